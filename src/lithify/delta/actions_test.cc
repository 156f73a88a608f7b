#include "lithify/delta/actions.h"

#include <gtest/gtest.h>

namespace lithify::delta {
namespace {

Action RoundTrip(const Action& a) {
  auto parsed = ParseActionLine(ActionToJson(a));
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(parsed->has_value());
  return **parsed;
}

TEST(ActionsTest, AddRoundTripsWithEveryField) {
  AddFile a;
  a.path = "part%3D1/file%20a.parquet";
  a.partition_values = {{"part", "1"}, {"n", std::nullopt}};
  a.size = 1234;
  a.modification_time = 1700000000000;
  a.data_change = false;
  a.stats = R"({"numRecords":3})";
  a.tags = {{"ZCUBE_ID", "abc"}};
  DeletionVectorDescriptor dv;
  dv.storage_type = 'u';
  dv.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
  dv.offset = 4;
  dv.size_in_bytes = 40;
  dv.cardinality = 6;
  a.deletion_vector = dv;
  a.base_row_id = 10;
  a.default_row_commit_version = 2;
  a.clustering_provider = "liquid";
  EXPECT_EQ(std::get<AddFile>(RoundTrip(a)), a);
}

TEST(ActionsTest, OtherActionsRoundTrip) {
  RemoveFile r;
  r.path = "x.parquet";
  r.deletion_timestamp = 5;
  r.extended_file_metadata = true;
  r.partition_values = std::map<std::string, std::optional<std::string>>{{"p", "a"}};
  r.size = 9;
  EXPECT_EQ(std::get<RemoveFile>(RoundTrip(r)), r);

  Metadata m;
  m.id = "id-1";
  m.name = "t";
  m.schema_string = R"({"type":"struct","fields":[]})";
  m.partition_columns = {"p"};
  m.created_time = 7;
  m.configuration = {{"delta.appendOnly", "true"}};
  EXPECT_EQ(std::get<Metadata>(RoundTrip(m)), m);

  Protocol p{3, 7, std::vector<std::string>{"deletionVectors"},
             std::vector<std::string>{"deletionVectors", "domainMetadata"}};
  EXPECT_EQ(std::get<Protocol>(RoundTrip(p)), p);
  Protocol legacy{1, 2, std::nullopt, std::nullopt};
  EXPECT_EQ(std::get<Protocol>(RoundTrip(legacy)), legacy);

  Txn t{"app", 42, 99};
  EXPECT_EQ(std::get<Txn>(RoundTrip(t)), t);
  DomainMetadata d{"delta.rowTracking", R"({"rowIdHighWaterMark":3})", true};
  EXPECT_EQ(std::get<DomainMetadata>(RoundTrip(d)), d);
  CheckpointMetadata c{12, {{"k", "v"}}};
  EXPECT_EQ(std::get<CheckpointMetadata>(RoundTrip(c)), c);
  Sidecar s{"a.parquet", 10, 11, {}};
  EXPECT_EQ(std::get<Sidecar>(RoundTrip(s)), s);
}

TEST(ActionsTest, CommitInfoKeepsUnknownFieldsAndInCommitTimestamp) {
  auto a = ParseActionLine(R"({"commitInfo":{"inCommitTimestamp":17,"timestamp":18,"operation":"WRITE","x":{"y":1}}})");
  ASSERT_TRUE(a.ok());
  const auto& ci = std::get<CommitInfo>(**a);
  EXPECT_EQ(ci.in_commit_timestamp, 17);
  EXPECT_EQ(ci.timestamp, 18);
  EXPECT_EQ(ci.operation, "WRITE");
  EXPECT_NE(ci.json.find("\"x\":{\"y\":1}"), std::string::npos);
  EXPECT_EQ(std::get<CommitInfo>(RoundTrip(ci)).in_commit_timestamp, 17);
}

TEST(ActionsTest, CheckpointStyleMapsAndNullColumnsParse) {
  // Canonical JSON of a checkpoint row: every action column present, maps as arrays.
  auto a = ParseActionLine(
      R"({"txn":null,"add":{"path":"a","partitionValues":[{"key":"p","value":null},{"key":"q","value":"1"}],)"
      R"("size":1,"modificationTime":2,"dataChange":true,"tags":[],"stats_parsed":{"numRecords":4}},"remove":null})");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const auto& add = std::get<AddFile>(**a);
  EXPECT_EQ(add.partition_values.at("p"), std::nullopt);
  EXPECT_EQ(add.partition_values.at("q"), "1");
  EXPECT_EQ(add.stats_parsed, R"({"numRecords":4})");
}

TEST(ActionsTest, UnknownActionsAndBlankLinesAreIgnored) {
  auto a = ParseActionLine(R"({"futureAction":{"x":1}})");
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->has_value());
  auto b = ParseActionLine("   ");
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->has_value());
  auto cdc = ParseActionLine(R"({"cdc":{"path":"_change_data/x","partitionValues":{},"size":3,"dataChange":false}})");
  ASSERT_TRUE(cdc.ok());
  EXPECT_TRUE(std::holds_alternative<AddCdcFile>(**cdc));
}

TEST(ActionsTest, MalformedLinesAreCorruptionWithFileAndLine) {
  std::string content =
      "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
      "{\"add\":{\"path\":\"a\",\"size\":1,\"modificationTi";  // truncated
  auto r = ParseCommitFile(content, "_delta_log/00000000000000000012.json");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("_delta_log/00000000000000000012.json line 2"), std::string::npos)
      << r.status().message();
}

TEST(ActionsTest, MistypedOrMissingRequiredFieldsAreCorruption) {
  for (const char* line : {
           R"({"add":{"path":"a","size":"big","modificationTime":1,"dataChange":true}})",
           R"({"add":{"size":1}})",
           R"({"protocol":{"minReaderVersion":1}})",
           R"({"metaData":{"name":"no id"}})",
           R"({"add":{"path":"a","size":-1}})",
           R"({"add":{"path":"a","size":1,"deletionVector":{"storageType":"x","pathOrInlineDv":"","sizeInBytes":1,"cardinality":1}}})",
           R"([1,2])",
           R"({"txn":{"appId":"a","version":18446744073709551615}})",
       }) {
    auto r = ParseActionLine(line);
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported()) << line;
  }
  std::string deep(1000, '[');
  EXPECT_TRUE(ParseActionLine(deep).status().IsCorruption());
}

TEST(ActionsTest, PathsArePercentDecodedAndKeptInsideTheRoot) {
  EXPECT_EQ(*DecodeActionPath("a%20b%3Dc"), "a b=c");
  EXPECT_TRUE(DecodeActionPath("a%2").status().IsCorruption());
  EXPECT_TRUE(DecodeActionPath("a%zz").status().IsCorruption());
  EXPECT_EQ(*RelativizeDataPath("/t", "p%3D1/f.parquet"), "p=1/f.parquet");
  EXPECT_EQ(*RelativizeDataPath("/t", "./a//b.parquet"), "a/b.parquet");
  EXPECT_EQ(*RelativizeDataPath("/data/t", "file:/data/t/x.parquet"), "x.parquet");
  EXPECT_EQ(*RelativizeDataPath("/data/t/", "file:///data/t/d/x%20y.parquet"), "d/x y.parquet");
  EXPECT_EQ(*RelativizeDataPath("/data/t", "/data/t/x.parquet"), "x.parquet");
  for (const char* bad : {"../x.parquet", "a/../../x", "%2E%2E/x", "/data/other/x.parquet",
                          "file:/data/tx/x.parquet", "s3://bucket/t/x.parquet",
                          "file://host/data/t/x.parquet", ""}) {
    auto r = RelativizeDataPath("/data/t", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsCorruption()) << bad;
  }
}

TEST(ActionsTest, ObjectStoreRootsRelativizeTheirOwnUris) {
  EXPECT_EQ(*RelativizeDataPath("s3://bucket/t", "s3://bucket/t/x.parquet"), "x.parquet");
  // Scheme aliases name the same store; escapes are decoded; the root may end in '/'.
  EXPECT_EQ(*RelativizeDataPath("s3://bucket/t/", "s3a://bucket/t/p%3D1/x%20y.parquet"), "p=1/x y.parquet");
  EXPECT_EQ(*RelativizeDataPath("s3a://bucket/t", "S3://bucket/t/x.parquet"), "x.parquet");
  // A '/' path is resolved within the root's bucket, as Hadoop does.
  EXPECT_EQ(*RelativizeDataPath("s3://bucket/t", "/t/d/x.parquet"), "d/x.parquet");
  EXPECT_EQ(*RelativizeDataPath("abfss://c@acct.dfs.core.windows.net/t",
                                "abfs://c@acct.dfs.core.windows.net/t/x.parquet"),
            "x.parquet");
  EXPECT_EQ(*RelativizeDataPath("s3://bucket/t", "x.parquet"), "x.parquet");
  for (const char* bad : {"s3://other/t/x.parquet", "s3://bucket/tx/x.parquet", "s3://bucket/t",
                          "file:/t/x.parquet", "/other/x.parquet", "abfs://c@acct/t/x.parquet",
                          "s3://bucket/t/../x.parquet"}) {
    auto r = RelativizeDataPath("s3://bucket/t", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsCorruption()) << bad;
  }
}

}  // namespace
}  // namespace lithify::delta
