// The table-feature registry: its lookups, and that ddl, the snapshot's protocol gate and
// the write gate give the answers their own lists gave before the registry (the lists
// are written out below as the expected values).
#include "lithify/delta/table_features.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "lithify/base/text.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/write_gate.h"

namespace lithify::delta {
namespace {

using Op = WriteOperation;
using V = FeatureVerdict;
using Names = std::set<std::string>;

// ---- the lists the registry replaced, as they were ---------------------------------

// ddl.cc kFeatures: name, reader+writer, legacy reader and writer versions.
struct OldDdlFeature {
  const char* name;
  bool reader_writer;
  int legacy_reader;
  int legacy_writer;
};
constexpr OldDdlFeature kOldDdlFeatures[] = {
    {"appendOnly", false, 1, 2},          {"invariants", false, 1, 2},
    {"checkConstraints", false, 1, 3},    {"changeDataFeed", false, 1, 4},
    {"generatedColumns", false, 1, 4},    {"columnMapping", true, 2, 5},
    {"identityColumns", false, 1, 6},     {"deletionVectors", true, 0, 0},
    {"timestampNtz", true, 0, 0},         {"v2Checkpoint", true, 0, 0},
    {"vacuumProtocolCheck", true, 0, 0},  {"typeWidening", true, 0, 0},
    {"typeWidening-preview", true, 0, 0}, {"variantType", true, 0, 0},
    {"variantType-preview", true, 0, 0},  {"variantShredding", true, 0, 0},
    {"catalogManaged", true, 0, 0},       {"domainMetadata", false, 0, 0},
    {"rowTracking", false, 0, 0},         {"clustering", false, 0, 0},
    {"inCommitTimestamp", false, 0, 0},
};

// snapshot.cc kReadableFeatures.
const Names kOldReadable = {
    "deletionVectors",  "columnMapping",    "timestampNtz",    "v2Checkpoint",        "vacuumProtocolCheck",
    "domainMetadata",   "rowTracking",      "inCommitTimestamp", "appendOnly",        "invariants",
    "checkConstraints", "generatedColumns", "changeDataFeed",  "identityColumns",     "clustering",
    "icebergCompatV1",  "icebergCompatV2",  "allowColumnDefaults", "checkpointProtection",
    "materializePartitionColumns"};

// snapshot.cc kWritableFeatures.
const Names kOldWritable = {
    "appendOnly",      "invariants",      "checkConstraints", "changeDataFeed",    "generatedColumns",
    "columnMapping",   "identityColumns", "deletionVectors",  "rowTracking",       "timestampNtz",
    "domainMetadata",  "v2Checkpoint",    "icebergCompatV1",  "icebergCompatV2",   "clustering",
    "vacuumProtocolCheck", "inCommitTimestamp", "allowColumnDefaults", "checkpointProtection"};

// ddl.cc kSettableFeatures (`delta.feature.<name>`).
const Names kOldSettable = {"appendOnly",      "invariants",        "columnMapping",
                            "deletionVectors", "domainMetadata",    "rowTracking",
                            "inCommitTimestamp", "timestampNtz",    "clustering"};

// write_gate.cc kRules, in WriteOperation order.
struct OldRule {
  const char* feature;
  OperationVerdicts verdicts;
};
const OldRule kOldRules[] = {
    //                       append       delete DV    delete COW   rewrite      alter        checkpoint   vacuum
    {"appendOnly",          {V::kAllowed, V::kRefused, V::kRefused, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed}},
    {"invariants",          {V::kEnforced, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed}},
    {"checkConstraints",    {V::kEnforced, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed}},
    {"generatedColumns",    {V::kEnforced, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed}},
    {"identityColumns",     {V::kEnforced, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed}},
    {"allowColumnDefaults", {V::kRefused, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed, V::kAllowed}},
};

constexpr Op kAllOps[] = {Op::kAppend,  Op::kDeleteDv,   Op::kDeleteCopyOnWrite, Op::kRewrite,
                          Op::kAlter,   Op::kCheckpoint, Op::kVacuum};

// Names the registry knows, plus names it must not know.
Names AllNames() {
  Names out = {"someFutureFeature", "geospatial", "blahabl", "APPENDONLY", "appendonly"};
  for (const TableFeature& f : KnownTableFeatures()) out.insert(std::string(f.name));
  return out;
}

const OldDdlFeature* OldDdl(const std::string& name) {
  for (const OldDdlFeature& f : kOldDdlFeatures) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

template <typename Pred>
Names RegistryNames(Pred pred) {
  Names out;
  for (const TableFeature& f : KnownTableFeatures()) {
    if (pred(f)) out.insert(std::string(f.name));
  }
  return out;
}

Protocol TableFeaturesProtocol(const std::string& reader, const std::string& writer) {
  Protocol p{3, 7, std::vector<std::string>{}, std::vector<std::string>{}};
  if (!reader.empty()) p.reader_features->push_back(reader);
  if (!writer.empty()) p.writer_features->push_back(writer);
  return p;
}

// ---- the registry itself -------------------------------------------------------------

TEST(TableFeatures, NamesAreUniqueIgnoringCase) {
  Names seen;
  for (const TableFeature& f : KnownTableFeatures()) {
    EXPECT_FALSE(f.name.empty());
    // Unique in any case: delta.feature.<name> is looked up case-insensitively.
    EXPECT_TRUE(seen.insert(AsciiLower(f.name)).second) << f.name;
  }
  EXPECT_EQ(seen.size(), 26u);
}

TEST(TableFeatures, FindIsExact) {
  const TableFeature* f = FindTableFeature("deletionVectors");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "deletionVectors");
  EXPECT_TRUE(f->reader_writer());
  ASSERT_NE(FindTableFeature("materializePartitionColumns"), nullptr);
  ASSERT_NE(FindTableFeature("typeWidening-preview"), nullptr);
  // Protocols name features case-sensitively.
  EXPECT_EQ(FindTableFeature("DeletionVectors"), nullptr);
  EXPECT_EQ(FindTableFeature("someFutureFeature"), nullptr);
  EXPECT_EQ(FindTableFeature(""), nullptr);
}

TEST(TableFeatures, FindSettableIgnoresCaseAndSkipsTheOthers) {
  const TableFeature* f = FindSettableFeature("DELETIONVECTORS");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "deletionVectors");
  EXPECT_EQ(FindSettableFeature("intimestamp"), nullptr);  // not a name
  ASSERT_NE(FindSettableFeature("incommittimestamp"), nullptr);
  EXPECT_EQ(FindSettableFeature("incommittimestamp")->name, "inCommitTimestamp");
  // Known but not settable.
  EXPECT_NE(FindTableFeature("v2Checkpoint"), nullptr);
  EXPECT_EQ(FindSettableFeature("v2Checkpoint"), nullptr);
  EXPECT_EQ(FindSettableFeature("checkConstraints"), nullptr);
  EXPECT_EQ(FindSettableFeature("typeWidening"), nullptr);
  EXPECT_EQ(FindSettableFeature("someFutureFeature"), nullptr);
}

TEST(TableFeatures, EachAnswerImpliesTheWeakerOne) {
  for (const TableFeature& f : KnownTableFeatures()) {
    EXPECT_TRUE(!f.settable || f.writable) << f.name;
    EXPECT_TRUE(!f.writable || f.readable) << f.name;
    // Data rules are writer rules, on tables lithify may write.
    if (f.constrains_data()) {
      EXPECT_EQ(f.kind, FeatureKind::kWriterOnly) << f.name;
      EXPECT_TRUE(f.writable) << f.name;
    }
    EXPECT_EQ(f.has_legacy_protocol(), f.legacy_reader != 0) << f.name;
  }
}

// ---- the old lists' answers, unchanged -----------------------------------------------

TEST(TableFeatures, DdlKnowsWhatItKnew) {
  for (const OldDdlFeature& old : kOldDdlFeatures) {
    const TableFeature* f = FindTableFeature(old.name);
    ASSERT_NE(f, nullptr) << old.name;
    EXPECT_EQ(f->reader_writer(), old.reader_writer) << old.name;
    EXPECT_EQ(f->legacy_reader, old.legacy_reader) << old.name;
    EXPECT_EQ(f->legacy_writer, old.legacy_writer) << old.name;
  }
  // The features ddl.cc did not know are now found, and must act as unknown ones did in
  // its protocol arithmetic: no legacy protocol, never put in readerFeatures.
  for (const TableFeature& f : KnownTableFeatures()) {
    if (OldDdl(std::string(f.name)) != nullptr) continue;
    EXPECT_FALSE(f.has_legacy_protocol()) << f.name;
    EXPECT_EQ(f.legacy_reader, 0) << f.name;
    EXPECT_FALSE(f.reader_writer()) << f.name;
  }
}

TEST(TableFeatures, LegacyVersionsImplyTheSameFeatures) {
  using S = std::vector<std::string>;
  const S legacy_by_writer[] = {
      {},
      {},
      {"appendOnly", "invariants"},
      {"appendOnly", "checkConstraints", "invariants"},
      {"appendOnly", "changeDataFeed", "checkConstraints", "generatedColumns", "invariants"},
      {"appendOnly", "changeDataFeed", "checkConstraints", "columnMapping", "generatedColumns", "invariants"},
      {"appendOnly", "changeDataFeed", "checkConstraints", "columnMapping", "generatedColumns", "identityColumns",
       "invariants"},
  };
  for (int w = 1; w <= 6; ++w) {
    EXPECT_EQ(SupportedFeatures(Protocol{1, w, std::nullopt, std::nullopt}), legacy_by_writer[w]) << w;
  }
  // Reader version 2 is column mapping, the only feature asking a legacy reader version.
  EXPECT_EQ(SupportedFeatures(Protocol{2, 2, std::nullopt, std::nullopt}),
            S({"appendOnly", "columnMapping", "invariants"}));
  EXPECT_EQ(RegistryNames([](const TableFeature& f) { return f.legacy_reader > 1; }), Names({"columnMapping"}));
  EXPECT_EQ(FindTableFeature("columnMapping")->legacy_reader, 2);
  EXPECT_EQ(FindTableFeature("identityColumns")->legacy_writer, 6);
  // Writer 7 lists its features: no legacy ones added.
  EXPECT_EQ(SupportedFeatures(TableFeaturesProtocol("", "rowTracking")), S({"rowTracking"}));
}

TEST(TableFeatures, ReadableAsTheSnapshotListWas) {
  EXPECT_EQ(RegistryNames([](const TableFeature& f) { return f.readable; }), kOldReadable);
  for (const std::string& name : AllNames()) {
    const bool readable = kOldReadable.count(name) != 0;
    EXPECT_EQ(IsReadableFeature(name), readable) << name;
    Status st = CheckReadSupported(TableFeaturesProtocol(name, name));
    EXPECT_EQ(st.ok(), readable) << name << ": " << st.ToString();
    if (!readable) {
      EXPECT_TRUE(st.IsNotSupported()) << name;
      EXPECT_NE(st.message().find("'" + name + "'"), std::string::npos) << st.message();
    }
  }
  // writerFeatures are not checked for reading.
  EXPECT_TRUE(CheckReadSupported(TableFeaturesProtocol("", "typeWidening")).ok());
}

TEST(TableFeatures, WritableAsTheSnapshotListWas) {
  EXPECT_EQ(RegistryNames([](const TableFeature& f) { return f.writable; }), kOldWritable);
  for (const std::string& name : AllNames()) {
    const bool writable = kOldWritable.count(name) != 0;
    EXPECT_EQ(IsWritableFeature(name), writable) << name;
    std::string as_writer = WriteBlockReason(TableFeaturesProtocol("", name));
    std::string as_reader = WriteBlockReason(TableFeaturesProtocol(name, ""));
    if (writable) {
      EXPECT_EQ(as_writer, "") << name;
      EXPECT_EQ(as_reader, "") << name;
    } else {
      EXPECT_EQ(as_writer, "writer feature '" + name + "' is not supported");
      EXPECT_EQ(as_reader, "reader feature '" + name + "' is not supported for writing");
    }
  }
}

TEST(TableFeatures, SettableAsDdlsListWas) {
  EXPECT_EQ(RegistryNames([](const TableFeature& f) { return f.settable; }), kOldSettable);
  for (const std::string& name : AllNames()) {
    auto r = ValidateTableProperty("delta.feature." + name, "supported");
    const bool settable = kOldSettable.count(name) != 0 || name == "APPENDONLY" || name == "appendonly";
    EXPECT_EQ(r.ok(), settable) << name << ": " << (r.ok() ? "" : r.status().ToString());
    if (r.ok()) {
      // Stored under the canonical name.
      const std::string canonical = name == "APPENDONLY" || name == "appendonly" ? "appendOnly" : name;
      EXPECT_EQ(r->first, "delta.feature." + canonical);
      EXPECT_EQ(r->second, "supported");
    } else {
      EXPECT_TRUE(r.status().IsNotSupported()) << name;
    }
  }
}

TEST(TableFeatures, VerdictTableOfTheWriteGate) {
  Names constraining;
  for (const OldRule& rule : kOldRules) {
    constraining.insert(rule.feature);
    const TableFeature* f = FindTableFeature(rule.feature);
    ASSERT_NE(f, nullptr) << rule.feature;
    for (Op op : kAllOps) {
      const V want = rule.verdicts[static_cast<size_t>(op)];
      EXPECT_EQ(f->verdict(op), want) << rule.feature << " " << WriteOperationName(op);
      EXPECT_EQ(VerdictFor(rule.feature, op), want) << rule.feature << " " << WriteOperationName(op);
    }
  }
  EXPECT_EQ(RegistryNames([](const TableFeature& f) { return f.constrains_data(); }), constraining);
  // Every other name, known or not, constrains nothing.
  for (const std::string& name : AllNames()) {
    if (constraining.count(name) != 0) continue;
    for (Op op : kAllOps) EXPECT_EQ(VerdictFor(name, op), V::kAllowed) << name << " " << WriteOperationName(op);
  }
  // The row is in WriteOperation order: appendOnly refuses exactly the two deletes.
  const TableFeature* append_only = FindTableFeature("appendOnly");
  EXPECT_EQ(append_only->verdict(Op::kDeleteDv), V::kRefused);
  EXPECT_EQ(append_only->verdict(Op::kDeleteCopyOnWrite), V::kRefused);
  EXPECT_EQ(append_only->verdict(Op::kVacuum), V::kAllowed);
  EXPECT_EQ(kWriteOperationCount, 7u);
}

}  // namespace
}  // namespace lithify::delta
