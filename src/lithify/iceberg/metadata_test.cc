// Table metadata parsing against apache/iceberg's own valid and invalid documents, and
// locating a table's current metadata file in its folder.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "lithify/base/macros.h"
#include "lithify/base/temp_dir.h"
#include "lithify/iceberg/location.h"
#include "lithify/iceberg/metadata.h"
#include "lithify_test_paths.h"

namespace lithify::iceberg {
namespace {

std::string Resources() {
  return std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus/apache-iceberg/core/src/test/resources/";
}

Result<TableMetadata> ParseFile(const std::string& name) {
  auto fs = io::NewLocalFileSystem();
  std::string path = Resources() + name;
  LITHIFY_ASSIGN_OR_RETURN(std::string text, ReadMetadataText(fs.get(), path));
  return ParseTableMetadata(text, path);
}

TEST(TableMetadata, UpstreamValidDocumentsParse) {
  for (const char* name : {"TableMetadataV1Valid.json", "TableMetadataV2Valid.json",
                           "TableMetadataV2ValidMinimal.json", "TableMetadataV3ValidMinimal.json",
                           "TableMetadataStatisticsFiles.json",
                           "TableMetadataPartitionStatisticsFiles.json"}) {
    Result<TableMetadata> m = ParseFile(name);
    EXPECT_TRUE(m.ok()) << name << ": " << m.status().ToString();
  }
}

TEST(TableMetadata, UpstreamValidV2Content) {
  Result<TableMetadata> m = ParseFile("TableMetadataV2Valid.json");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->format_version, 2);
  EXPECT_EQ(m->last_sequence_number, 34);
  EXPECT_EQ(m->current_schema_id, 1);
  ASSERT_EQ(m->schemas.size(), 2u);
  EXPECT_EQ(m->current_schema().fields.size(), 3u);
  ASSERT_EQ(m->partition_specs.size(), 1u);
  EXPECT_EQ(m->partition_specs[0].fields[0].transform.kind, Transform::Kind::kIdentity);
  ASSERT_EQ(m->snapshots.size(), 2u);
  ASSERT_NE(m->CurrentSnapshot(), nullptr);
  EXPECT_EQ(m->CurrentSnapshot()->snapshot_id, 3055729675574597004);
  EXPECT_EQ(m->CurrentSnapshot()->sequence_number, 1);
  EXPECT_EQ(m->refs.at("main").type, "branch");
  ASSERT_EQ(m->sort_orders.size(), 1u);
  EXPECT_EQ(m->sort_orders[0].fields.size(), 2u);
  EXPECT_EQ(m->sort_orders[0].fields[1].transform.kind, Transform::Kind::kBucket);
  EXPECT_EQ(m->sort_orders[0].fields[1].transform.param, 4);
}

TEST(TableMetadata, UpstreamStatisticsFiles) {
  Result<TableMetadata> m = ParseFile("TableMetadataStatisticsFiles.json");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->statistics.size(), 1u);
  EXPECT_FALSE(m->statistics[0].blob_types.empty());
  Result<TableMetadata> p = ParseFile("TableMetadataPartitionStatisticsFiles.json");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->partition_statistics.size(), 1u);
}

TEST(TableMetadata, UpstreamV1LegacyFields) {
  Result<TableMetadata> m = ParseFile("TableMetadataV1Valid.json");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->format_version, 1);
  ASSERT_EQ(m->partition_specs.size(), 1u);
  EXPECT_EQ(m->partition_specs[0].fields[0].field_id, 1000);  // assigned as v1 did
  EXPECT_EQ(m->last_sequence_number, 0);
}

TEST(TableMetadata, UpstreamV3Defaults) {
  Result<TableMetadata> m = ParseFile("TableMetadataV3ValidMinimal.json");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->format_version, 3);
  ASSERT_TRUE(m->current_schema().fields[0].initial_default.has_value());
  EXPECT_EQ(*m->current_schema().fields[0].initial_default, json::Json(1));
}

TEST(TableMetadata, UpstreamInvalidDocumentsAreRefused) {
  struct Case { const char* name; const char* says; StatusCode code; };
  for (const Case& c : {Case{"TableMetadataUnsupportedVersion.json", "format version 42", StatusCode::kNotSupported},
                        Case{"TableMetadataV1MissingSchemaType.json", "missing field 'type'", StatusCode::kCorruption},
                        Case{"TableMetadataV2CurrentSchemaNotFound.json", "current-schema-id", StatusCode::kCorruption},
                        Case{"TableMetadataV2MissingLastPartitionId.json", "last-partition-id", StatusCode::kCorruption},
                        Case{"TableMetadataV2MissingPartitionSpecs.json", "partition-specs", StatusCode::kCorruption},
                        Case{"TableMetadataV2MissingSchemas.json", "schemas", StatusCode::kCorruption},
                        Case{"TableMetadataV2MissingSortOrder.json", "sort-orders", StatusCode::kCorruption}}) {
    Result<TableMetadata> m = ParseFile(c.name);
    ASSERT_FALSE(m.ok()) << c.name;
    EXPECT_EQ(m.status().code(), c.code) << c.name << ": " << m.status().ToString();
    EXPECT_NE(m.status().message().find(c.says), std::string::npos) << m.status().ToString();
    EXPECT_NE(m.status().message().find(c.name), std::string::npos) << "names the file: " << m.status().ToString();
  }
}

TEST(TableMetadata, MalformedTextNamesTheFile) {
  std::string valid = R"({"format-version": 2, "table-uuid": "u", "location": "/t")";
  for (std::string text : {std::string(""), valid, valid + "}", std::string("[1,2]"), std::string(100, '[')}) {
    Result<TableMetadata> m = ParseTableMetadata(text, "/t/metadata/v1.metadata.json");
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_TRUE(m.status().IsCorruption()) << m.status().ToString();
    EXPECT_NE(m.status().message().find("v1.metadata.json"), std::string::npos);
  }
}

TEST(TableMetadata, SequenceNumberGoingBackwardsIsCorruption) {
  auto fs = io::NewLocalFileSystem();
  std::string path = Resources() + "TableMetadataV2Valid.json";
  Result<std::string> text = ReadMetadataText(fs.get(), path);
  ASSERT_TRUE(text.ok());
  Result<json::Json> j = json::Parse(*text);
  ASSERT_TRUE(j.ok());
  (*j)["snapshots"][0]["sequence-number"] = 1;  // parent not below its child (1)
  Result<TableMetadata> m = ParseTableMetadata(json::Dump(*j), "x.metadata.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("not above its parent"), std::string::npos) << m.status().ToString();
  (*j)["snapshots"][1]["sequence-number"] = 99;  // above last-sequence-number
  m = ParseTableMetadata(json::Dump(*j), "x.metadata.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("last-sequence-number"), std::string::npos) << m.status().ToString();
}

TEST(TableMetadata, SelectSnapshot) {
  Result<TableMetadata> m = ParseFile("TableMetadataV2Valid.json");
  ASSERT_TRUE(m.ok());
  auto cur = SelectSnapshot(*m, SnapshotSelector::Current());
  ASSERT_TRUE(cur.ok());
  EXPECT_EQ((*cur)->snapshot_id, 3055729675574597004);
  auto first = SelectSnapshot(*m, SnapshotSelector::Id(3051729675574597004));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)->sequence_number, 0);
  EXPECT_TRUE(SelectSnapshot(*m, SnapshotSelector::Id(7)).status().IsNotFound());
  EXPECT_TRUE(SelectSnapshot(*m, SnapshotSelector::Ref("nope")).status().IsNotFound());
  auto main = SelectSnapshot(*m, SnapshotSelector::Ref("main"));
  ASSERT_TRUE(main.ok());
  EXPECT_EQ((*main)->snapshot_id, 3055729675574597004);
  ASSERT_FALSE(m->snapshot_log.empty());
  auto asof = SelectSnapshot(*m, SnapshotSelector::AsOf(m->snapshot_log.front().timestamp_ms));
  ASSERT_TRUE(asof.ok());
  EXPECT_EQ((*asof)->snapshot_id, m->snapshot_log.front().snapshot_id);
  EXPECT_TRUE(SelectSnapshot(*m, SnapshotSelector::AsOf(0)).status().IsNotFound());
}

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string Gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(text.size() + 128, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(LocateMetadata, VersionHintFormsAndNewestFile) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string t = dir.table();
  const std::string md = t + "/metadata/";
  Write(md + "v1.metadata.json", "{}");
  Write(md + "v2.metadata.json", "{}");
  Write(md + "00003-abc.metadata.json", "{}");
  auto loc = LocateMetadata(fs.get(), t);
  ASSERT_TRUE(loc.ok()) << loc.status().ToString();
  EXPECT_EQ(loc->path, md + "00003-abc.metadata.json");
  for (auto [hint, want] : {std::pair{"2", "v2.metadata.json"}, std::pair{"v1", "v1.metadata.json"},
                            std::pair{"3", "00003-abc.metadata.json"},
                            std::pair{"00003-abc", "00003-abc.metadata.json"},
                            std::pair{"v2.metadata.json\n", "v2.metadata.json"}}) {
    Write(md + "version-hint.text", hint);
    loc = LocateMetadata(fs.get(), t);
    ASSERT_TRUE(loc.ok()) << hint << ": " << loc.status().ToString();
    EXPECT_EQ(loc->path, md + want) << hint;
  }
  Write(md + "version-hint.text", "9");
  EXPECT_TRUE(LocateMetadata(fs.get(), t).status().IsCorruption());
  Write(md + "version-hint.text", "");  // an empty hint falls back to the newest file
  loc = LocateMetadata(fs.get(), t);
  ASSERT_TRUE(loc.ok());
  EXPECT_EQ(loc->path, md + "00003-abc.metadata.json");
  // Named directly.
  loc = LocateMetadata(fs.get(), md + "v1.metadata.json");
  ASSERT_TRUE(loc.ok());
  EXPECT_EQ(loc->path, md + "v1.metadata.json");
  EXPECT_TRUE(LocateMetadata(fs.get(), dir.path() + "/nothing").status().IsNotFound());
}

TEST(LocateMetadata, GzipMetadata) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string md = dir.table() + "/metadata/";
  Write(md + "v4.gz.metadata.json", Gzip(R"({"hello": 1})"));
  auto loc = LocateMetadata(fs.get(), dir.table());
  ASSERT_TRUE(loc.ok());
  EXPECT_EQ(loc->path, md + "v4.gz.metadata.json");
  auto text = ReadMetadataText(fs.get(), loc->path);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, R"({"hello": 1})");
  std::string broken = Gzip(R"({"hello": 1})");
  broken.resize(broken.size() / 2);
  Write(md + "v5.gz.metadata.json", broken);
  auto bad = ReadMetadataText(fs.get(), md + "v5.gz.metadata.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsCorruption()) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("v5.gz.metadata.json"), std::string::npos);
}

TEST(LocationMapTest, PrefixRewritesAndFileUris) {
  auto m = LocationMap::Parse({"/test-warehouse/=/data/", "/test-warehouse/iceberg_test/=/corpus/",
                               "data/persistent/=/c/duckdb-iceberg/data/persistent/"});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Apply("/test-warehouse/iceberg_test/t/x.avro"), "/corpus/t/x.avro");  // longest first
  EXPECT_EQ(m->Apply("/test-warehouse/other"), "/data/other");
  EXPECT_EQ(m->Apply("file://data/persistent/t/a.parquet"), "/c/duckdb-iceberg/data/persistent/t/a.parquet");
  EXPECT_EQ(m->Apply("file:///abs/x"), "/abs/x");
  EXPECT_EQ(m->Apply("file:/abs/x"), "/abs/x");
  EXPECT_EQ(m->Apply("s3://b/k"), "s3://b/k");
  auto bad = LocationMap::Parse({"noequals"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("usage: ", 0), 0u);
}

}  // namespace
}  // namespace lithify::iceberg
