// The property table: names, defaults and the parsers each type is read with.
#include "lithify/delta/table_properties.h"

#include <gtest/gtest.h>

#include <set>

#include "lithify/base/byte_size.h"
#include "lithify/base/text.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/maintenance_policy.h"
#include "lithify/delta/stats_writer.h"

namespace lithify::delta {
namespace {

constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;

TEST(TableProperties, NamesAreUniqueDeltaKeys) {
  std::set<std::string> seen;
  for (const TableProperty& p : KnownTableProperties()) {
    EXPECT_EQ(p.name.substr(0, 6), "delta.") << p.name;
    EXPECT_TRUE(seen.insert(AsciiLower(p.name)).second) << p.name;
  }
}

TEST(TableProperties, FindIgnoresCase) {
  ASSERT_NE(FindTableProperty("DELTA.APPENDONLY"), nullptr);
  EXPECT_EQ(FindTableProperty("delta.appendonly")->name, "delta.appendOnly");
  EXPECT_EQ(FindTableProperty("delta.rowTrackingSuspended"), nullptr);  // read-only: not settable
  EXPECT_EQ(FindTableProperty("delta.nope"), nullptr);
}

// A default is a value CREATE/ALTER accepts: the readers' parsers take it.
TEST(TableProperties, DefaultsPassTheirOwnValidation) {
  for (const TableProperty& p : KnownTableProperties()) {
    if (p.type == PropertyType::kManaged || p.default_value.empty()) continue;
    auto r = ValidateTableProperty(p.name, p.default_value);
    EXPECT_TRUE(r.ok()) << p.name << ": " << r.status().ToString();
  }
}

// The typed defaults the readers use agree with the table's text defaults.
TEST(TableProperties, DefaultsMatchTheReaders) {
  EXPECT_EQ(*ParseIntervalMs(prop::kDeletedFileRetentionDuration.default_value), kDefaultDeletedFileRetentionMs);
  EXPECT_EQ(*ParseIntervalMs(prop::kDeletedFileRetentionDuration.default_value), 7 * kDayMs);
  EXPECT_EQ(*ParseIntervalMs(prop::kLogRetentionDuration.default_value), 30 * kDayMs);
  EXPECT_EQ(*ParseNumIndexedCols({}), kDefaultNumIndexedCols);
  EXPECT_EQ(std::to_string(kDefaultNumIndexedCols), prop::kDataSkippingNumIndexedCols.default_value);
  EXPECT_EQ(*TombstoneRetentionMs(Metadata{}), 7 * kDayMs);
  EXPECT_EQ(prop::kColumnMappingMode.default_value, "none");
  EXPECT_EQ(prop::kCheckpointInterval.default_value, "10");
  EXPECT_STREQ(kTargetFileSizeProperty, "delta.targetFileSize");
  EXPECT_STREQ(kDeletedFileRetentionProperty, "delta.deletedFileRetentionDuration");
  EXPECT_STREQ(kUniversalFormatProperty, "delta.universalFormat.enabledFormats");
}

TEST(TableProperties, Booleans) {
  const TableConfig c = {{"delta.appendOnly", "TRUE"}, {"delta.enableDeletionVectors", "true"},
                         {"delta.enableRowTracking", "yes"}};
  EXPECT_FALSE(IsExactlyTrue(c, prop::kAppendOnly));
  EXPECT_TRUE(IsTrueIgnoringCase(c, prop::kAppendOnly));
  EXPECT_TRUE(IsExactlyTrue(c, prop::kEnableDeletionVectors));
  EXPECT_TRUE(IsTrueIgnoringCase(c, prop::kEnableDeletionVectors));
  EXPECT_FALSE(IsTrueIgnoringCase(c, prop::kEnableRowTracking));
  EXPECT_FALSE(IsExactlyTrue(c, prop::kEnableInCommitTimestamps));  // absent
  EXPECT_EQ(PropertyOr(c, prop::kColumnMappingMode), "none");
  EXPECT_EQ(PropertyOr(c, prop::kAppendOnly), "TRUE");
  EXPECT_EQ(FindProperty(c, prop::kTargetFileSize), nullptr);
}

void ExpectRefused(std::string_view key, std::string_view value, std::string_view part) {
  auto r = ValidateTableProperty(key, value);
  ASSERT_FALSE(r.ok()) << key << "=" << value;
  EXPECT_NE(r.status().message().find(part), std::string::npos) << r.status().message();
}

void ExpectAccepted(std::string_view key, std::string_view value, std::string_view stored) {
  auto r = ValidateTableProperty(key, value);
  ASSERT_TRUE(r.ok()) << key << "=" << value << ": " << r.status().ToString();
  EXPECT_EQ(r->second, stored);
}

TEST(TableProperties, BoolForms) {
  ExpectAccepted("delta.appendOnly", "TRUE", "true");
  ExpectAccepted("delta.appendOnly", "False", "false");
  ExpectRefused("delta.appendOnly", "1", "expected true or false, got '1'");
  ExpectRefused("delta.enableChangeDataFeed", "true", "does not write change data files");
}

TEST(TableProperties, IntForms) {
  ExpectAccepted("delta.checkpointInterval", "5", "5");
  ExpectRefused("delta.checkpointInterval", "0", "an integer >= 1");
  ExpectRefused("delta.checkpointInterval", "x", "an integer");
  ExpectRefused("delta.checkpointInterval", "2147483648", "32-bit integer");
  ExpectAccepted("delta.dataSkippingNumIndexedCols", "-1", "-1");
  ExpectRefused("delta.dataSkippingNumIndexedCols", "-2", "an integer >= -1");
}

TEST(TableProperties, IntervalForms) {
  EXPECT_EQ(*ParseIntervalMs("interval 1 week"), 7 * kDayMs);
  EXPECT_EQ(*ParseIntervalMs("2 days"), 2 * kDayMs);
  EXPECT_EQ(*ParseIntervalMs("INTERVAL 3 Hours"), 3 * 3600 * 1000);
  ExpectAccepted("delta.logRetentionDuration", "interval 2 weeks", "interval 2 weeks");
  ExpectRefused("delta.logRetentionDuration", "interval 1 month", "DELTA_INVALID_INTERVAL");
  ExpectRefused("delta.deletedFileRetentionDuration", "soon", "DELTA_INVALID_INTERVAL");
}

TEST(TableProperties, SizeForms) {
  EXPECT_EQ(*ParseByteSize("128mb"), int64_t{128} << 20);
  ExpectAccepted("delta.targetFileSize", "1g", "1g");
  ExpectRefused("delta.targetFileSize", "0", "a positive size in bytes");
  ExpectRefused("delta.targetFileSize", "big", "a positive size in bytes");
}

TEST(TableProperties, EnumForms) {
  ExpectAccepted("delta.columnMapping.mode", "NAME", "name");
  ExpectRefused("delta.columnMapping.mode", "both", "none, name or id");
  ExpectAccepted("delta.checkpointPolicy", "Classic", "classic");
  ExpectRefused("delta.checkpointPolicy", "v2", "classic checkpoints only");
  ExpectAccepted("delta.isolationLevel", "serializable", "Serializable");
  ExpectRefused("delta.isolationLevel", "WriteSerializable", "Serializable (the only");
}

TEST(TableProperties, PrefixesAndManaged) {
  ExpectRefused(std::string(kConstraintPrefix) + "positive", "x > 0", "DELTA_ADD_CONSTRAINTS");
  ExpectRefused("delta.columnMapping.maxColumnId", "3", "managed by lithify");
  ExpectRefused("delta.rowTrackingSuspended", "true", "DELTA_UNKNOWN_CONFIGURATION");
  ExpectAccepted(std::string(kFeaturePrefix) + "APPENDONLY", "Supported", "supported");
}

}  // namespace
}  // namespace lithify::delta
