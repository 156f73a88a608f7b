// Tests of the DV file writer (delta/dv_writer.h) and of `delete` (commands/delete.h).
#include <gtest/gtest.h>

#include <iterator>

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/base/temp_dir.h"
#include "lithify/commands/append.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/dv_writer.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/test_util.h"
#include "lithify/io/filesystem.h"

namespace lithify {
namespace {

using delta::DeletionVector;
using delta::DeletionVectorDescriptor;

// ---- DV file writer ------------------------------------------------------------------

class DvWriterTest : public ::testing::Test {
 protected:
  std::unique_ptr<io::FileSystem> fs_ = io::NewMemoryFileSystem();
  const std::string root_ = "/t";
};

TEST_F(DvWriterTest, SeveralDvsInOneFileReadBack) {
  std::vector<DeletionVector> dvs;
  dvs.push_back(DeletionVector::FromRows({0, 3, 7}));
  dvs.push_back(DeletionVector::FromRows({1}));
  // Rows above 2^32 use a second RoaringBitmapArray bucket.
  dvs.push_back(DeletionVector::FromRows({5, 100000, (uint64_t{1} << 32) + 9}));
  std::vector<const DeletionVector*> ptrs;
  for (const auto& d : dvs) ptrs.push_back(&d);
  auto descs = delta::WriteDeletionVectorFile(fs_.get(), root_, ptrs);
  ASSERT_TRUE(descs.ok()) << descs.status().ToString();
  ASSERT_EQ(descs->size(), 3u);
  // One file: all descriptors share the path; offsets start after the version byte.
  EXPECT_EQ((*descs)[0].offset, 1);
  for (size_t i = 0; i < descs->size(); ++i) {
    const DeletionVectorDescriptor& d = (*descs)[i];
    EXPECT_EQ(d.storage_type, 'u');
    EXPECT_EQ(d.path_or_inline_dv, (*descs)[0].path_or_inline_dv);
    EXPECT_EQ(d.path_or_inline_dv.size(), 20u);
    EXPECT_EQ(d.cardinality, static_cast<int64_t>(dvs[i].cardinality()));
    if (i > 0) {
      EXPECT_EQ(*d.offset, *(*descs)[i - 1].offset + 8 + (*descs)[i - 1].size_in_bytes);
    }
    auto back = delta::LoadDeletionVector(fs_.get(), root_, d);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->ToVector(), dvs[i].ToVector());
  }
  auto rel = delta::RelativeDvFilePath((*descs)[0]);
  ASSERT_TRUE(rel.ok());
  auto info = fs_->Head(io::JoinPath(root_, *rel));
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  const DeletionVectorDescriptor& last = descs->back();
  EXPECT_EQ(static_cast<int64_t>(info->size), *last.offset + 8 + last.size_in_bytes);
}

TEST_F(DvWriterTest, RandomPrefixIsADirectory) {
  DeletionVector dv = DeletionVector::FromRows({2});
  auto descs = delta::WriteDeletionVectorFile(fs_.get(), root_, {&dv}, "ab");
  ASSERT_TRUE(descs.ok()) << descs.status().ToString();
  EXPECT_EQ((*descs)[0].path_or_inline_dv.substr(0, 2), "ab");
  auto rel = delta::RelativeDvFilePath((*descs)[0]);
  ASSERT_TRUE(rel.ok());
  EXPECT_EQ(rel->substr(0, 19), "ab/deletion_vector_");
  auto back = delta::LoadDeletionVector(fs_.get(), root_, (*descs)[0]);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToVector(), std::vector<uint64_t>{2});
}

TEST_F(DvWriterTest, CorruptedByteIsCorruption) {
  DeletionVector a = DeletionVector::FromRows({1, 2, 3});
  DeletionVector b = DeletionVector::FromRows({10, 20});
  auto descs = delta::WriteDeletionVectorFile(fs_.get(), root_, {&a, &b});
  ASSERT_TRUE(descs.ok());
  const std::string path = io::JoinPath(root_, *delta::RelativeDvFilePath((*descs)[0]));
  auto file = fs_->OpenForRead(path);
  ASSERT_TRUE(file.ok());
  std::string bytes((*file)->size(), '\0');
  ASSERT_TRUE((*file)->ReadAt(0, bytes.size(), reinterpret_cast<uint8_t*>(bytes.data())).ok());
  // Flip a bitmap byte of the second DV (inside the bitmap, past its size field).
  bytes[*(*descs)[1].offset + 4 + (*descs)[1].size_in_bytes - 1] ^= 0x01;
  ASSERT_TRUE(fs_->WriteFile(path, AsBytes(bytes)).ok());
  auto first = delta::LoadDeletionVector(fs_.get(), root_, (*descs)[0]);
  EXPECT_TRUE(first.ok()) << first.status().ToString();
  auto second = delta::LoadDeletionVector(fs_.get(), root_, (*descs)[1]);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsCorruption()) << second.status().ToString();
}

TEST_F(DvWriterTest, RejectsEmptyInput) {
  DeletionVector empty = DeletionVector::FromRows({});
  EXPECT_TRUE(delta::WriteDeletionVectorFile(fs_.get(), root_, {}).status().IsInvalidArgument());
  EXPECT_TRUE(delta::WriteDeletionVectorFile(fs_.get(), root_, {&empty}).status().IsInvalidArgument());
  DeletionVector dv = DeletionVector::FromRows({1});
  EXPECT_TRUE(delta::WriteDeletionVectorFile(fs_.get(), root_, {&dv}, "../x").status().IsInvalidArgument());
}

TEST(DvPackingTest, PacksUpToTarget) {
  // Each DV is framed with 8 bytes: 92 + 8 = 100.
  auto files = delta::PackDeletionVectors({92, 92, 92, 392, 2}, 250);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0], (std::vector<size_t>{0, 1}));
  EXPECT_EQ(files[1], (std::vector<size_t>{2}));
  EXPECT_EQ(files[2], (std::vector<size_t>{3}));  // larger than the target: alone
  EXPECT_EQ(files[3], (std::vector<size_t>{4}));
  EXPECT_TRUE(delta::PackDeletionVectors({}, 100).empty());
}

// ---- DeleteRows ----------------------------------------------------------------------

using commands::DeleteResult;
using commands::DeleteRows;
using commands::DeleteSpec;
using delta::testing::TempTable;

// Rows of a version as sorted canonical JSON lines (a multiset).
std::vector<std::string> Rows(io::FileSystem* fs, const std::string& root,
                              delta::VersionSpec v = delta::VersionSpec::Latest(), const std::string& where = "") {
  commands::testing::Lines out;
  commands::ScanOptions opts;
  opts.version = v;
  opts.where = where;
  auto r = commands::Scan(fs, root, opts, out.sink.get());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::sort(out.lines.begin(), out.lines.end());
  return out.lines;
}

// before - matching, as multisets.
std::vector<std::string> Minus(const std::vector<std::string>& all, const std::vector<std::string>& gone) {
  std::vector<std::string> out;
  std::set_difference(all.begin(), all.end(), gone.begin(), gone.end(), std::back_inserter(out));
  return out;
}

int64_t Version(io::FileSystem* fs, const std::string& root) {
  auto s = delta::Snapshot::Load(fs, root);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? (*s)->version() : -1;
}

std::shared_ptr<const delta::Snapshot> Latest(io::FileSystem* fs, const std::string& root) {
  auto s = delta::Snapshot::Load(fs, root);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

struct Counted {
  int adds = 0, removes = 0, adds_with_dv = 0, removes_with_dv = 0;
};
Counted CountActions(const delta::CommitResult& c) {
  Counted n;
  for (const delta::Action& a : c.actions) {
    if (auto* add = std::get_if<delta::AddFile>(&a)) {
      ++n.adds;
      if (add->deletion_vector) ++n.adds_with_dv;
    } else if (auto* rm = std::get_if<delta::RemoveFile>(&a)) {
      ++n.removes;
      if (rm->deletion_vector) ++n.removes_with_dv;
    }
  }
  return n;
}

// Deletes `pred` and checks: rows after == rows before minus rows matching (at the
// version read), the committed version is the next one, and numDeletedRows agrees.
DeleteResult DeleteAndCheck(io::FileSystem* fs, const std::string& root, const std::string& pred) {
  const int64_t v0 = Version(fs, root);
  const auto before = Rows(fs, root);
  const auto matching = Rows(fs, root, delta::VersionSpec::AtVersion(v0), pred);
  DeleteSpec spec;
  spec.predicate = pred;
  auto r = DeleteRows(fs, root, spec);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  EXPECT_EQ(r->read_version, v0);
  EXPECT_EQ(r->metrics.at("numDeletedRows"), static_cast<int64_t>(matching.size())) << pred;
  if (matching.empty()) {
    EXPECT_FALSE(r->commit.has_value());
    EXPECT_EQ(Version(fs, root), v0);
  } else {
    EXPECT_TRUE(r->commit.has_value());
    if (r->commit) {
      EXPECT_EQ(r->commit->version, v0 + 1);
    }
  }
  EXPECT_EQ(Rows(fs, root), Minus(before, matching)) << pred;
  return std::move(*r);
}

class DeleteTest : public ::testing::Test {
 protected:
  std::unique_ptr<io::FileSystem> fs_ = io::NewLocalFileSystem();
};

TEST_F(DeleteTest, DvTableWritesDvAndReaddsSamePath) {
  TempTable t(commands::testing::Kernel("table-with-dv-small"));
  auto snap0 = Latest(fs_.get(), t.root());
  ASSERT_EQ(snap0->files().size(), 1u);
  const table::FileEntry f0 = snap0->files()[0];
  ASSERT_TRUE(f0.deletion_vector.has_value());
  const int64_t old_card = f0.deletion_vector->cardinality;

  DeleteResult r = DeleteAndCheck(fs_.get(), t.root(), "value >= 7");
  ASSERT_TRUE(r.commit.has_value());
  Counted n = CountActions(*r.commit);
  EXPECT_EQ(n.adds, 1);
  EXPECT_EQ(n.adds_with_dv, 1);
  EXPECT_EQ(n.removes, 1);
  EXPECT_EQ(n.removes_with_dv, 1);  // the old DV is removed with the file
  EXPECT_EQ(r.metrics.at("numDeletionVectorsUpdated"), 1);
  EXPECT_EQ(r.metrics.at("numDeletionVectorsAdded"), 0);
  EXPECT_EQ(r.metrics.at("numRemovedFiles"), 0);
  EXPECT_EQ(r.metrics.at("numAddedFiles"), 0);
  EXPECT_EQ(r.dv_files_written, 1);
  for (const delta::Action& a : r.commit->actions) {
    if (auto* rm = std::get_if<delta::RemoveFile>(&a)) {
      EXPECT_EQ(rm->deletion_vector->UniqueId(), f0.deletion_vector->unique_id);
      EXPECT_EQ(rm->data_change, true);
      EXPECT_TRUE(rm->deletion_timestamp.has_value());
    }
  }

  auto snap1 = Latest(fs_.get(), t.root());
  ASSERT_EQ(snap1->files().size(), 1u);
  const table::FileEntry& f1 = snap1->files()[0];
  EXPECT_EQ(f1.path, f0.path);
  ASSERT_TRUE(f1.deletion_vector.has_value());
  EXPECT_NE(f1.deletion_vector->unique_id, f0.deletion_vector->unique_id);
  EXPECT_GT(f1.deletion_vector->cardinality, old_card);
  EXPECT_EQ(f1.num_records(), f0.num_records());  // physical count unchanged
  ASSERT_TRUE(f1.stats && f1.stats->tight_bounds.has_value());
  EXPECT_FALSE(*f1.stats->tight_bounds);
  // The new DV file exists under the table root.
  auto rel = delta::RelativeDvFilePath(delta::DeletionVectorDescriptor::FromRef(*f1.deletion_vector));
  ASSERT_TRUE(rel.ok());
  EXPECT_TRUE(fs_->Head(io::JoinPath(t.root(), *rel)).ok());
  // Commit info.
  auto ci = nlohmann::json::parse(snap1->commit_info()->json);
  EXPECT_EQ(ci["operation"], "DELETE");
  EXPECT_EQ(ci["operationParameters"]["predicate"], "[\"value >= 7\"]");
  EXPECT_EQ(ci["operationMetrics"]["numDeletionVectorsUpdated"], "1");
  for (const char* k : {"numDeletedRows", "numRemovedFiles", "numAddedFiles", "numDeletionVectorsAdded",
                        "numDeletionVectorsRemoved", "numAddedChangeFiles", "numCopiedRows", "numAddedBytes",
                        "numRemovedBytes", "executionTimeMs", "scanTimeMs", "rewriteTimeMs"}) {
    EXPECT_TRUE(ci["operationMetrics"].contains(k)) << k;
  }
}

TEST_F(DeleteTest, DeletingTwiceUnionsDvs) {
  TempTable t(commands::testing::Kernel("table-with-dv-small"));
  DeleteAndCheck(fs_.get(), t.root(), "value = 9");
  auto s1 = Latest(fs_.get(), t.root());
  const auto dv1 = *s1->files()[0].deletion_vector;
  DeleteResult r = DeleteAndCheck(fs_.get(), t.root(), "value = 8 OR value = 9");
  ASSERT_TRUE(r.commit.has_value());
  auto s2 = Latest(fs_.get(), t.root());
  ASSERT_EQ(s2->files().size(), 1u);
  const auto dv2 = *s2->files()[0].deletion_vector;
  EXPECT_EQ(dv2.cardinality, dv1.cardinality + 1);
  auto bits1 = delta::LoadDeletionVector(fs_.get(), t.root(), dv1);
  auto bits2 = delta::LoadDeletionVector(fs_.get(), t.root(), dv2);
  ASSERT_TRUE(bits1.ok() && bits2.ok());
  for (uint64_t row : bits1->ToVector()) EXPECT_TRUE(bits2->Contains(row)) << row;
  // The remove carries exactly the DV the previous commit added.
  bool saw = false;
  for (const delta::Action& a : r.commit->actions) {
    if (auto* rm = std::get_if<delta::RemoveFile>(&a)) {
      ASSERT_TRUE(rm->deletion_vector.has_value());
      EXPECT_EQ(rm->deletion_vector->UniqueId(), dv1.unique_id);
      saw = true;
    }
  }
  EXPECT_TRUE(saw);
}

TEST_F(DeleteTest, DeletingEveryLiveRowOfAFileRemovesIt) {
  TempTable t(commands::testing::Kernel("with-short-dv"));
  auto s0 = Latest(fs_.get(), t.root());
  ASSERT_EQ(s0->files().size(), 2u);
  // The first file holds ids 0..4 (3 deleted by its DV), the second 5..9.
  DeleteResult r = DeleteAndCheck(fs_.get(), t.root(), "id < 5");
  ASSERT_TRUE(r.commit.has_value());
  Counted n = CountActions(*r.commit);
  EXPECT_EQ(n.adds, 0);
  EXPECT_EQ(n.removes, 1);
  EXPECT_EQ(r.metrics.at("numRemovedFiles"), 1);
  EXPECT_EQ(r.metrics.at("numDeletionVectorsRemoved"), 1);
  EXPECT_EQ(Latest(fs_.get(), t.root())->files().size(), 1u);
}

TEST_F(DeleteTest, PartitionedDvTable) {
  TempTable t(commands::testing::Golden("dv-partitioned-with-checkpoint"));
  // A partition predicate: whole files go, other partitions are not even read.
  DeleteResult r1 = DeleteAndCheck(fs_.get(), t.root(), "part = 3");
  ASSERT_TRUE(r1.commit.has_value());
  EXPECT_EQ(r1.metrics.at("numAddedFiles"), 0);
  EXPECT_EQ(r1.metrics.at("numDeletionVectorsAdded") + r1.metrics.at("numDeletionVectorsUpdated"), 0);
  DeleteResult r2 = DeleteAndCheck(fs_.get(), t.root(), "col1 > 40 AND part <> 1");
  ASSERT_TRUE(r2.commit.has_value());
  // Some rows of several files: DVs (odd col1 in 30..39 lie in 5 partitions).
  DeleteResult r3 = DeleteAndCheck(fs_.get(), t.root(), "col1 IN (31, 33, 35, 37, 39, 22)");
  ASSERT_TRUE(r3.commit.has_value());
  EXPECT_GT(r3.metrics.at("numDeletionVectorsAdded") + r3.metrics.at("numDeletionVectorsUpdated"), 0);
  EXPECT_EQ(r3.dv_files_written, 1);  // several DVs packed into one file
  const auto latest = Latest(fs_.get(), t.root());  // keep the snapshot alive while iterating
  for (const table::FileEntry& f : latest->files()) {
    EXPECT_NE(f.partition_values.at("part"), std::optional<std::string>("3"));
  }
  EXPECT_FALSE(Rows(fs_.get(), t.root()).empty());
}

TEST_F(DeleteTest, DvFilesArePackedByTargetSize) {
  TempTable t(commands::testing::Golden("dv-partitioned-with-checkpoint"));
  DeleteSpec spec;
  spec.predicate = "col1 IN (31, 33, 35, 37, 39, 22)";
  spec.dv_file_target_bytes = 1;  // every DV in its own file
  auto r = DeleteRows(fs_.get(), t.root(), spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const int64_t dvs = r->metrics.at("numDeletionVectorsAdded") + r->metrics.at("numDeletionVectorsUpdated");
  EXPECT_GT(dvs, 1);
  EXPECT_EQ(r->dv_files_written, dvs);
}

TEST_F(DeleteTest, DvTableWithColumnMapping) {
  TempTable t(commands::testing::Golden("dv-with-columnmapping"));
  DeleteResult r = DeleteAndCheck(fs_.get(), t.root(), "col1 >= 45 OR col2 = 'foo2'");
  ASSERT_TRUE(r.commit.has_value());
  EXPECT_EQ(r.metrics.at("numAddedFiles"), 0);
}

TEST_F(DeleteTest, NothingMatchedCommitsNothing) {
  TempTable t(commands::testing::Kernel("table-with-dv-small"));
  const int64_t v0 = Version(fs_.get(), t.root());
  DeleteSpec spec;
  spec.predicate = "value > 100";  // skipped by statistics
  auto r = DeleteRows(fs_.get(), t.root(), spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->commit.has_value());
  EXPECT_EQ(r->files_scanned, 0);
  EXPECT_EQ(r->metrics.at("numDeletedRows"), 0);
  EXPECT_NE(r->message.find("no rows matched"), std::string::npos);
  // Rows already deleted by the DV (0 and 9? whichever) never count: 'value < 0'.
  spec.predicate = "value IS NULL";
  r = DeleteRows(fs_.get(), t.root(), spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->commit.has_value());
  EXPECT_EQ(Version(fs_.get(), t.root()), v0);
}

TEST_F(DeleteTest, UnknownColumnIsInvalidArgumentNamingIt) {
  TempTable t(commands::testing::Kernel("table-with-dv-small"));
  DeleteSpec spec;
  spec.predicate = "no_such_column = 1";
  auto r = DeleteRows(fs_.get(), t.root(), spec);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("no_such_column"), std::string::npos) << r.status().ToString();
}

TEST_F(DeleteTest, DeleteAllRemovesEveryFile) {
  TempTable t(commands::testing::Kernel("with-short-dv"));
  DeleteSpec spec;  // empty predicate
  auto r = DeleteRows(fs_.get(), t.root(), spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->commit.has_value());
  EXPECT_EQ(r->metrics.at("numDeletedRows"), 7);
  EXPECT_EQ(r->metrics.at("numRemovedFiles"), 2);
  EXPECT_TRUE(Rows(fs_.get(), t.root()).empty());
  auto ci = nlohmann::json::parse(Latest(fs_.get(), t.root())->commit_info()->json);
  EXPECT_EQ(ci["operationParameters"]["predicate"], "[]");
}

// ---- copy-on-write ----

TEST_F(DeleteTest, CopyOnWriteRewritesWithExactStats) {
  TempTable t(commands::testing::Kernel("table-without-dv-small"));
  DeleteResult r = DeleteAndCheck(fs_.get(), t.root(), "value < 3 OR value = 8");
  ASSERT_TRUE(r.commit.has_value());
  EXPECT_EQ(r.metrics.at("numRemovedFiles"), 1);
  EXPECT_EQ(r.metrics.at("numAddedFiles"), 1);
  EXPECT_EQ(r.metrics.at("numCopiedRows"), 6);
  EXPECT_EQ(r.metrics.at("numDeletionVectorsAdded"), 0);
  EXPECT_EQ(r.dv_files_written, 0);
  auto s = Latest(fs_.get(), t.root());
  ASSERT_EQ(s->files().size(), 1u);
  const table::FileEntry& f = s->files()[0];
  EXPECT_FALSE(f.deletion_vector.has_value());
  EXPECT_EQ(f.num_records(), 6);
  ASSERT_TRUE(f.stats.has_value());
  const table::ColumnStats* cs = f.stats->Find({"value"});
  ASSERT_NE(cs, nullptr);
  EXPECT_EQ(cs->min->ToString(), "3");
  EXPECT_EQ(cs->max->ToString(), "9");
  EXPECT_EQ(cs->null_count, 0);
}

TEST_F(DeleteTest, CopyOnWritePartitionedWithNulls) {
  TempTable t(commands::testing::Kernel("basic_partitioned"));
  // NULL partition values never match a comparison: the null partition survives.
  DeleteAndCheck(fs_.get(), t.root(), "letter <> 'a'");
  DeleteAndCheck(fs_.get(), t.root(), "letter IS NULL");
  DeleteAndCheck(fs_.get(), t.root(), "number > 1");
  const auto latest = Latest(fs_.get(), t.root());  // keep the snapshot alive while iterating
  for (const table::FileEntry& f : latest->files()) {
    EXPECT_FALSE(f.deletion_vector.has_value()) << f.path;
  }
}

TEST_F(DeleteTest, CopyOnWriteAllTypes) {
  TempTable t(commands::testing::Golden("parquet-all-types"));
  DeleteResult r = DeleteAndCheck(fs_.get(), t.root(), "ByteType < 50 OR StringType IS NULL");
  ASSERT_TRUE(r.commit.has_value());
  EXPECT_EQ(r.metrics.at("numAddedFiles"), 1);
  EXPECT_GT(r.metrics.at("numCopiedRows"), 0);
}

TEST_F(DeleteTest, DvPropertyWithoutFeatureIsRefused) {
  TempTable t(commands::testing::Kernel("table-without-dv-small"));
  auto s = Latest(fs_.get(), t.root());
  delta::Metadata md = s->metadata();
  md.configuration["delta.enableDeletionVectors"] = "true";
  const std::string line = delta::ActionToJson(md) + "\n";
  ASSERT_TRUE(fs_->WriteFile(t.log("00000000000000000001.json"), AsBytes(line)).ok());
  DeleteSpec spec;
  spec.predicate = "value = 1";
  auto r = DeleteRows(fs_.get(), t.root(), spec);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("deletionVectors"), std::string::npos);
  EXPECT_EQ(Version(fs_.get(), t.root()), 1);
}

// Issue 14: a DV keeps the file's statistics, only marking them wide. Re-serialising them
// through doubles turned the decimal(20,5) max 9970418458088.79529 into
// 9970418458088.795 (below the data) and the decimal(38,0) max into 1e+38.
TEST_F(DeleteTest, DvKeepsDecimalBoundsExactly) {
  TempDir dir;
  const std::string root = dir.path() + "/t";
  delta::NewTableSpec spec;
  auto schema = delta::ParseSchemaDdl("id long, d20 decimal(20,5), d38 decimal(38,0)");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  spec.schema = *schema;
  spec.properties["delta.enableDeletionVectors"] = "true";
  ASSERT_TRUE(commands::CreateTable(fs_.get(), root, spec).ok());
  const std::string nines(38, '9');
  const std::string input = dir.path() + "/rows.jsonl";
  const std::string rows = R"({"id":1,"d20":"9970418458088.79529","d38":")" + nines + "\"}\n" +
                           R"({"id":2,"d20":"-9970418458088.79529","d38":"-)" + nines + "\"}\n" +
                           R"({"id":3,"d20":"0.00001","d38":"0"})" "\n";
  ASSERT_TRUE(fs_->WriteFile(input, AsBytes(rows)).ok());
  commands::AppendSpec append;
  append.inputs = {input};
  ASSERT_TRUE(commands::AppendRows(fs_.get(), root, append).ok());
  const std::string before = Latest(fs_.get(), root)->files().at(0).stats->raw;
  ASSERT_NE(before.find("9970418458088.79529"), std::string::npos) << before;

  DeleteAndCheck(fs_.get(), root, "id = 3");
  auto s = Latest(fs_.get(), root);
  ASSERT_EQ(s->files().size(), 1u);
  const table::FileEntry& f = s->files()[0];
  ASSERT_TRUE(f.deletion_vector.has_value());
  ASSERT_TRUE(f.stats.has_value());
  // The same text, with tightBounds false appended.
  EXPECT_EQ(f.stats->raw, before.substr(0, before.size() - 1) + R"(,"tightBounds":false})");
  EXPECT_NE(f.stats->raw.find(R"("d20":9970418458088.79529)"), std::string::npos) << f.stats->raw;
  EXPECT_NE(f.stats->raw.find(R"("d38":-)" + nines), std::string::npos) << f.stats->raw;
  // And the bounds still find the rows at the extremes.
  EXPECT_EQ(Rows(fs_.get(), root, delta::VersionSpec::Latest(), "d20 >= 9970418458088.79529").size(), 1u);
  EXPECT_EQ(Rows(fs_.get(), root, delta::VersionSpec::Latest(), "d38 <= -" + nines).size(), 1u);
}

// The rewritten files of an unpartitioned table hold exactly the table's rows: DuckDB
// reading them must see the surviving rows lithify's scan sees.
void ExpectDuckDbSeesSurvivors(io::FileSystem* fs, const std::string& root, const DeleteResult& r) {
  ASSERT_TRUE(r.commit.has_value());
  std::vector<std::string> duck;
  for (const delta::Action& a : r.commit->actions) {
    const auto* add = std::get_if<delta::AddFile>(&a);
    if (add == nullptr) continue;
    auto rel = delta::DecodeActionPath(add->path);
    ASSERT_TRUE(rel.ok());
    auto lines = commands::testing::DuckDbRows(io::JoinPath(root, *rel));
    if (!lines) GTEST_SKIP() << "node or the DuckDB oracle is missing (scripts/install-deps.sh)";
    duck.insert(duck.end(), lines->begin(), lines->end());
  }
  std::sort(duck.begin(), duck.end());
  std::vector<std::string> ours = Rows(fs, root);
  // Report the lines that differ (gtest would print only the first 32 of each side).
  std::vector<std::string> only_duck, only_ours;
  std::set_difference(duck.begin(), duck.end(), ours.begin(), ours.end(),
                      std::back_inserter(only_duck));
  std::set_difference(ours.begin(), ours.end(), duck.begin(), duck.end(),
                      std::back_inserter(only_ours));
  EXPECT_EQ(duck.size(), ours.size());
  for (size_t i = 0; i < only_duck.size() && i < 3; ++i) ADD_FAILURE() << "only DuckDB: " << only_duck[i];
  for (size_t i = 0; i < only_ours.size() && i < 3; ++i) ADD_FAILURE() << "only lithify: " << only_ours[i];
}

TEST_F(DeleteTest, CopyOnWriteDuckDbReadsSurvivors) {
  TempTable t(commands::testing::Kernel("table-without-dv-small"));
  DeleteResult r = DeleteAndCheck(fs_.get(), t.root(), "value IN (0, 3, 6, 9) OR value = 4");
  ExpectDuckDbSeesSurvivors(fs_.get(), t.root(), r);
}

TEST_F(DeleteTest, CopyOnWriteAllTypesDuckDbReadsSurvivors) {
  TempTable t(commands::testing::Golden("parquet-all-types"));
  DeleteResult r = DeleteAndCheck(fs_.get(), t.root(), "IntegerType >= 100 AND BooleanType");
  ExpectDuckDbSeesSurvivors(fs_.get(), t.root(), r);
}

TEST_F(DeleteTest, AppendOnlyTableIsRefused) {
  TempTable t(commands::testing::Kernel("table-without-dv-small"));
  delta::Metadata md = Latest(fs_.get(), t.root())->metadata();
  md.configuration["delta.appendOnly"] = "true";
  ASSERT_TRUE(fs_->WriteFile(t.log("00000000000000000001.json"), AsBytes(delta::ActionToJson(md) + "\n")).ok());
  DeleteSpec spec;
  spec.predicate = "value = 1";
  auto r = DeleteRows(fs_.get(), t.root(), spec);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("append-only"), std::string::npos);
  // Nothing was written next to the data file.
  size_t parquet_files = 0;
  for (auto& e : std::filesystem::directory_iterator(t.root())) parquet_files += e.path().extension() == ".parquet";
  EXPECT_EQ(parquet_files, 1u);
}

// Copy-on-write would give surviving rows new ids on a row-tracking table: refused, and
// nothing is written or committed.
TEST_F(DeleteTest, CopyOnWriteOnRowTrackingTableIsRefused) {
  TempTable t(commands::testing::Kernel("table-without-dv-small"));
  delta::Protocol p;
  p.min_reader_version = 1;
  p.min_writer_version = 7;
  p.writer_features = std::vector<std::string>{"rowTracking", "domainMetadata"};
  ASSERT_TRUE(fs_->WriteFile(t.log("00000000000000000001.json"), AsBytes(delta::ActionToJson(p) + "\n")).ok());
  DeleteSpec spec;
  spec.predicate = "value = 1";
  auto r = DeleteRows(fs_.get(), t.root(), spec);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("row ids"), std::string::npos);
  EXPECT_EQ(Version(fs_.get(), t.root()), 1);
  size_t parquet_files = 0;
  for (auto& e : std::filesystem::directory_iterator(t.root())) parquet_files += e.path().extension() == ".parquet";
  EXPECT_EQ(parquet_files, 1u);
}

TEST_F(DeleteTest, NullsNeverMatchComparisons) {
  // basic_partitioned has a null partition; `letter <> 'x'` is NULL there, so its rows
  // survive, while `letter IS NULL` deletes them.
  TempTable t(commands::testing::Kernel("basic_partitioned"));
  const auto before = Rows(fs_.get(), t.root());
  DeleteResult r = DeleteAndCheck(fs_.get(), t.root(), "letter <> 'x'");
  const auto after = Rows(fs_.get(), t.root());
  ASSERT_FALSE(after.empty());
  for (const std::string& row : after) EXPECT_NE(row.find("\"letter\":null"), std::string::npos) << row;
  DeleteAndCheck(fs_.get(), t.root(), "letter IS NULL");
  EXPECT_TRUE(Rows(fs_.get(), t.root()).empty());
}

// ---- concurrency ----

// A concurrent blind append into partition `part` whose col1 statistics are [lo, hi].
std::string ConcurrentAppend(int part, int lo, int hi) {
  delta::AddFile add;
  add.path = fmt::format("part={}/concurrent.parquet", part);
  add.partition_values["part"] = std::to_string(part);
  add.size = 100;
  add.stats = fmt::format(R"({{"numRecords":2,"minValues":{{"col1":{}}},"maxValues":{{"col1":{}}},"nullCount":{{"col1":0}}}})",
                          lo, hi);
  delta::CommitInfo ci;
  ci.json = R"({"timestamp":1,"operation":"WRITE","isBlindAppend":true})";
  ci.timestamp = 1;
  ci.operation = "WRITE";
  return delta::ActionToJson(ci) + "\n" + delta::ActionToJson(add) + "\n";
}

TEST_F(DeleteTest, ConcurrentAppendOutsideThePredicateIsRebased) {
  TempTable t(commands::testing::Golden("dv-partitioned-with-checkpoint"));
  const int64_t v0 = Version(fs_.get(), t.root());
  commands::testing::RacingFileSystem racing(fs_.get(), ConcurrentAppend(1, 1, 41));
  DeleteSpec spec;
  spec.predicate = "part = 3 AND col1 > 20";
  auto r = DeleteRows(&racing, t.root(), spec);
  ASSERT_TRUE(racing.raced());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->commit.has_value());
  EXPECT_EQ(r->commit->version, v0 + 2);
  EXPECT_EQ(r->commit->lost_to_versions, std::vector<int64_t>{v0 + 1});
}

TEST_F(DeleteTest, ConcurrentAppendThatMayMatchConflicts) {
  TempTable t(commands::testing::Golden("dv-partitioned-with-checkpoint"));
  const int64_t v0 = Version(fs_.get(), t.root());
  // Partition 3, col1 in [3, 43]: may hold rows with col1 > 20.
  commands::testing::RacingFileSystem racing(fs_.get(), ConcurrentAppend(3, 3, 43));
  DeleteSpec spec;
  spec.predicate = "part = 3 AND col1 > 20";
  auto r = DeleteRows(&racing, t.root(), spec);
  ASSERT_TRUE(racing.raced());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("ConcurrentAppendException"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(Version(fs_.get(), t.root()), v0 + 1);  // only the racer's commit
}

}  // namespace
}  // namespace lithify
