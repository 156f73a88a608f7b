#include "lithify/table/value.h"

#include <gtest/gtest.h>

#include "lithify/table/file_entry.h"

namespace lithify::table {
namespace {

TEST(ValueTest, RendersEveryKind) {
  EXPECT_EQ(Value().ToString(), "null");
  EXPECT_EQ(Value::Boolean(true).ToString(), "true");
  EXPECT_EQ(Value::Int64(-12).ToString(), "-12");
  EXPECT_EQ(Value::String("a b").ToString(), "a b");
  EXPECT_EQ(Value::Date(0).ToString(), "1970-01-01");
  EXPECT_EQ(Value::Date(-1).ToString(), "1969-12-31");
  EXPECT_EQ(Value::Date(19723).ToString(), "2024-01-01");
  EXPECT_EQ(Value::Timestamp(-1).ToString(), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(Value::TimestampNtz(1'500'000).ToString(), "1970-01-01T00:00:01.500000");
  EXPECT_EQ(Value::Decimal(-5, 5, 2).ToString(), "-0.05");
  EXPECT_EQ(Value::Decimal(12345, 5, 2).ToString(), "123.45");
  EXPECT_EQ(Value::Decimal(7, 1, 0).ToString(), "7");
}

TEST(ValueTest, EqualityIsByKindAndPayload) {
  EXPECT_EQ(Value::Int64(3), Value::Int64(3));
  EXPECT_FALSE(Value::Int64(3) == Value::Date(3));
  EXPECT_FALSE(Value::Decimal(1, 5, 1) == Value::Decimal(1, 5, 2));
  EXPECT_EQ(Value(), Value::Null());
}

TEST(FileEntryTest, LiveRecordsSubtractDeletionVectorCardinality) {
  FileEntry f;
  EXPECT_FALSE(f.num_live_records().has_value());
  f.stats = FileStats{};
  f.stats->num_records = 10;
  EXPECT_EQ(f.num_live_records(), 10);
  f.deletion_vector = DeletionVectorRef{"u", "x", 1, 34, 3, "ux@1"};
  EXPECT_EQ(f.num_live_records(), 7);
  EXPECT_EQ(f.dv_unique_id(), "ux@1");
}

}  // namespace
}  // namespace lithify::table
