// Direct checkpoint extraction against the rendering path (checkpoint.h).
#include "lithify/delta/checkpoint.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "lithify/base/macros.h"
#include "lithify/delta/checkpoint_extract.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/test_util.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::delta {
namespace {

using parquet::FieldSpec;
using PV = parquet::Value;

Result<std::vector<Action>> ReadDirect(io::FileSystem* fs, const std::string& path) {
  std::vector<Action> out;
  LITHIFY_RETURN_NOT_OK(ReadParquetCheckpoint(fs, path, [&](Action&& a) {
    out.push_back(std::move(a));
    return Status::OK();
  }));
  return out;
}

Result<std::vector<Action>> ReadRendered(io::FileSystem* fs, const std::string& path) {
  std::vector<Action> out;
  LITHIFY_RETURN_NOT_OK(ReadParquetCheckpointRendered(fs, path, [&](Action&& a) {
    out.push_back(std::move(a));
    return Status::OK();
  }));
  return out;
}

// Every Parquet checkpoint, checkpoint part and sidecar of the corpus yields the same
// actions (or the same error) on both paths.
TEST(CheckpointTest, DirectExtractionEqualsRenderingOnEveryCorpusCheckpoint) {
  auto fs = io::NewLocalFileSystem();
  int files = 0, actions = 0, adds_with_stats_parsed = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(testing::CorpusDir())) {
    const std::string p = e.path().string();
    if (!e.is_regular_file() || e.path().extension() != ".parquet") continue;
    if (p.find("/_delta_log/") == std::string::npos) continue;
    SCOPED_TRACE(p);
    // The comparison is only meaningful when the extractor takes the file.
    auto reader = parquet::FileReader::Open(fs.get(), p);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_NE(CheckpointExtractor::Make((*reader)->schema()), nullptr) << "falls back to rendering";
    auto direct = ReadDirect(fs.get(), p);
    auto rendered = ReadRendered(fs.get(), p);
    ASSERT_EQ(direct.ok(), rendered.ok()) << direct.status().ToString() << " / " << rendered.status().ToString();
    if (!direct.ok()) {
      EXPECT_EQ(direct.status().ToString(), rendered.status().ToString());
      continue;
    }
    ASSERT_EQ(direct->size(), rendered->size());
    for (size_t i = 0; i < direct->size(); ++i) {
      ASSERT_TRUE((*direct)[i] == (*rendered)[i]) << "action " << i << ":\n  direct   "
                                                  << ActionToJson((*direct)[i]) << "\n  rendered "
                                                  << ActionToJson((*rendered)[i]);
      if (auto* a = std::get_if<AddFile>(&(*direct)[i]); a && a->stats_parsed) ++adds_with_stats_parsed;
    }
    ++files;
    actions += static_cast<int>(direct->size());
  }
  // The corpus has dozens of checkpoints, including struct-only statistics.
  EXPECT_GE(files, 40);
  EXPECT_GT(actions, 500);
  EXPECT_GT(adds_with_stats_parsed, 0);
}

// A checkpoint written here with edge cases the corpus may lack: duplicate map keys
// (last wins), null map values (kept in partitionValues, dropped in tags), empty vs
// null maps and lists, INT32 DV fields, a DV, and a row holding no action.
std::vector<FieldSpec> CheckpointFields() {
  auto smap = [](std::string name) {
    return FieldSpec::Map(std::move(name), FieldSpec::String("key", false), FieldSpec::String("value"));
  };
  auto dv = FieldSpec::Struct("deletionVector", {FieldSpec::String("storageType"), FieldSpec::String("pathOrInlineDv"),
                                                 FieldSpec::Int("offset"), FieldSpec::Int("sizeInBytes"),
                                                 FieldSpec::Long("cardinality"), FieldSpec::Long("maxRowIndex")});
  return {
      FieldSpec::Struct("txn", {FieldSpec::String("appId"), FieldSpec::Long("version"), FieldSpec::Long("lastUpdated")}),
      FieldSpec::Struct("add", {FieldSpec::String("path"), smap("partitionValues"), FieldSpec::Long("size"),
                                FieldSpec::Long("modificationTime"), FieldSpec::Boolean("dataChange"),
                                FieldSpec::String("stats"), smap("tags"), dv}),
      FieldSpec::Struct("remove", {FieldSpec::String("path"), FieldSpec::Long("deletionTimestamp"),
                                   FieldSpec::Boolean("dataChange"), smap("partitionValues"), FieldSpec::Long("size")}),
      FieldSpec::Struct("metaData", {FieldSpec::String("id"), FieldSpec::String("schemaString"),
                                     FieldSpec::List("partitionColumns", FieldSpec::String("element")),
                                     FieldSpec::Struct("format", {FieldSpec::String("provider"), smap("options")}),
                                     smap("configuration"), FieldSpec::Long("createdTime")}),
      FieldSpec::Struct("protocol", {FieldSpec::Int("minReaderVersion"), FieldSpec::Int("minWriterVersion"),
                                     FieldSpec::List("readerFeatures", FieldSpec::String("element")),
                                     FieldSpec::List("writerFeatures", FieldSpec::String("element"))}),
  };
}

PV Map(std::vector<std::pair<std::string, std::optional<std::string>>> kv) {
  std::vector<std::pair<PV, PV>> e;
  for (auto& [k, v] : kv) e.emplace_back(PV::String(k), v ? PV::String(*v) : PV::Null());
  return PV::Map(std::move(e));
}

Status WriteCheckpoint(io::FileSystem* fs, const std::string& path, const std::vector<std::vector<PV>>& rows) {
  LITHIFY_ASSIGN_OR_RETURN(auto schema, parquet::BuildSchema(CheckpointFields()));
  LITHIFY_ASSIGN_OR_RETURN(auto out, fs->Create(path));
  LITHIFY_ASSIGN_OR_RETURN(auto w, parquet::FileWriter::Open(std::move(out), schema));
  parquet::RowBatchBuilder b(w->schema());
  for (const auto& r : rows) LITHIFY_RETURN_NOT_OK(b.Append(r));
  LITHIFY_RETURN_NOT_OK(w->WriteBatch(b.Finish()));
  return w->Close().status();
}

std::vector<PV> Row(int which, PV v) {
  std::vector<PV> r(5);
  r[which] = std::move(v);
  return r;
}

TEST(CheckpointTest, DirectExtractionEqualsRenderingOnEdgeCases) {
  auto fs = io::NewMemoryFileSystem();
  auto dv = PV::Struct({PV::String("u"), PV::String("ab^-aqEH.-t@S}K{vb[*k^"), PV::Int(1), PV::Int(36),
                        PV::Int(2), PV::Null()});
  std::vector<std::vector<PV>> rows = {
      Row(4, PV::Struct({PV::Int(3), PV::Int(7), PV::List({PV::String("deletionVectors")}), PV::List({})})),
      Row(3, PV::Struct({PV::String("id-1"), PV::String("{\"type\":\"struct\",\"fields\":[]}"),
                         PV::List({PV::String("d")}), PV::Struct({PV::Null(), Map({})}),
                         Map({{"delta.appendOnly", "true"}, {"x", std::nullopt}}), PV::Int(5)})),
      Row(0, PV::Struct({PV::String("app"), PV::Int(9), PV::Null()})),
      Row(1, PV::Struct({PV::String("d=1/a%20b.parquet"), Map({{"d", "1"}, {"e", std::nullopt}, {"d", "2"}}),
                         PV::Int(10), PV::Int(20), PV::Bool(false), PV::String("{\"numRecords\":3}"),
                         Map({{"t", "v"}, {"n", std::nullopt}}), dv})),
      Row(1, PV::Struct({PV::String("b.parquet"), PV::Null(), PV::Int(1), PV::Null(), PV::Null(), PV::Null(),
                         PV::Null(), PV::Null()})),
      Row(2, PV::Struct({PV::String("c.parquet"), PV::Int(100), PV::Null(), PV::Null(), PV::Int(4)})),
      Row(2, PV::Struct({PV::String("e.parquet"), PV::Null(), PV::Bool(true), Map({}), PV::Null()})),
      std::vector<PV>(5),  // no action
  };
  ASSERT_TRUE(WriteCheckpoint(fs.get(), "/t/1.checkpoint.parquet", rows).ok());
  auto direct = ReadDirect(fs.get(), "/t/1.checkpoint.parquet");
  auto rendered = ReadRendered(fs.get(), "/t/1.checkpoint.parquet");
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  ASSERT_TRUE(rendered.ok()) << rendered.status().ToString();
  ASSERT_EQ(direct->size(), 7u);
  ASSERT_EQ(*direct, *rendered);
  const auto& add = std::get<AddFile>((*direct)[3]);
  EXPECT_EQ(add.partition_values.at("d"), "2");  // last duplicate wins
  EXPECT_FALSE(add.partition_values.at("e").has_value());
  EXPECT_EQ(add.tags.size(), 1u);
  ASSERT_TRUE(add.deletion_vector.has_value());
  EXPECT_EQ(add.deletion_vector->offset, 1);
  EXPECT_FALSE(std::get<RemoveFile>((*direct)[5]).partition_values.has_value());
  EXPECT_TRUE(std::get<RemoveFile>((*direct)[6]).partition_values.has_value());
}

TEST(CheckpointTest, MissingRequiredFieldIsCorruptionWithFileAndRow) {
  auto fs = io::NewMemoryFileSystem();
  std::vector<std::vector<PV>> rows = {
      Row(0, PV::Struct({PV::String("app"), PV::Int(9), PV::Null()})),
      Row(1, PV::Struct({PV::Null(), PV::Null(), PV::Int(1), PV::Null(), PV::Null(), PV::Null(), PV::Null(),
                         PV::Null()})),
  };
  ASSERT_TRUE(WriteCheckpoint(fs.get(), "/t/2.checkpoint.parquet", rows).ok());
  auto direct = ReadDirect(fs.get(), "/t/2.checkpoint.parquet");
  auto rendered = ReadRendered(fs.get(), "/t/2.checkpoint.parquet");
  ASSERT_FALSE(direct.ok());
  EXPECT_TRUE(direct.status().IsCorruption());
  EXPECT_EQ(direct.status().ToString(), rendered.status().ToString());
  EXPECT_NE(direct.status().message().find("/t/2.checkpoint.parquet row 1"), std::string::npos)
      << direct.status().ToString();
  EXPECT_NE(direct.status().message().find("missing field 'path'"), std::string::npos);
}

// A sink error stops the read and comes back unchanged.
TEST(CheckpointTest, SinkErrorIsReturnedUnchanged) {
  auto fs = io::NewMemoryFileSystem();
  std::vector<std::vector<PV>> rows = {Row(0, PV::Struct({PV::String("a"), PV::Int(1), PV::Null()})),
                                       Row(0, PV::Struct({PV::String("b"), PV::Int(2), PV::Null()}))};
  ASSERT_TRUE(WriteCheckpoint(fs.get(), "/t/3.checkpoint.parquet", rows).ok());
  int calls = 0;
  Status st = ReadParquetCheckpoint(fs.get(), "/t/3.checkpoint.parquet", [&](Action&&) {
    ++calls;
    return Status::Cancelled("stop");
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(st.ToString(), Status::Cancelled("stop").ToString());
}

}  // namespace
}  // namespace lithify::delta

namespace lithify::delta {
namespace {

// LoadOptions::stats changes only what is kept of the statistics, never the file set.
TEST(CheckpointTest, StatsModesKeepTheSameFilesAndOnlyTheAskedStatistics) {
  auto fs = io::NewLocalFileSystem();
  const std::string table = testing::DeltaRsTable("delta-1.2.1-only-struct-stats");
  auto parsed = Snapshot::Load(fs.get(), table, VersionSpec::Latest(), LoadOptions{StatsMode::kParsed});
  auto raw = Snapshot::Load(fs.get(), table, VersionSpec::Latest(), LoadOptions{StatsMode::kRaw});
  auto none = Snapshot::Load(fs.get(), table, VersionSpec::Latest(), LoadOptions{StatsMode::kNone});
  ASSERT_TRUE(parsed.ok() && raw.ok() && none.ok()) << parsed.status().ToString();
  ASSERT_FALSE((*parsed)->files().empty());
  ASSERT_EQ((*raw)->files().size(), (*parsed)->files().size());
  ASSERT_EQ((*none)->files().size(), (*parsed)->files().size());
  int with_stats = 0;
  for (size_t i = 0; i < (*parsed)->files().size(); ++i) {
    const auto& p = (*parsed)->files()[i];
    const auto& r = (*raw)->files()[i];
    const auto& n = (*none)->files()[i];
    EXPECT_EQ(r.path, p.path);
    EXPECT_EQ(n.path, p.path);
    EXPECT_EQ(n.size, p.size);
    EXPECT_FALSE(n.stats.has_value());
    ASSERT_EQ(r.stats.has_value(), p.stats.has_value());
    if (p.stats) {
      ++with_stats;
      EXPECT_EQ(r.stats->raw, p.stats->raw);
      EXPECT_TRUE(r.stats->columns.empty());
      EXPECT_FALSE(p.stats->columns.empty());
    }
  }
  EXPECT_GT(with_stats, 0);
}

}  // namespace
}  // namespace lithify::delta
