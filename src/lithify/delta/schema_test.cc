#include "lithify/delta/schema.h"

#include <gtest/gtest.h>

#include "lithify/delta/snapshot.h"
#include "lithify/delta/test_util.h"

namespace lithify::delta {
namespace {

TEST(SchemaTest, ParsesNestedTypesAndMetadata) {
  auto s = ParseSchema(R"J({"type":"struct","fields":[
    {"name":"a","type":"integer","nullable":false,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a"}},
    {"name":"d","type":"decimal(10, 2)","nullable":true,"metadata":{}},
    {"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"timestamp_ntz","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},
    {"name":"l","type":{"type":"array","elementType":"string","containsNull":false},"nullable":true,"metadata":{}},
    {"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"long","containsNull":true},"valueContainsNull":true},"nullable":true,"metadata":{}}
  ]})J");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->fields.size(), 5u);
  EXPECT_EQ(s->fields[0].type.kind, DataType::Kind::kInteger);
  EXPECT_FALSE(s->fields[0].nullable);
  EXPECT_EQ(s->fields[0].physical_name(), "col-a");
  EXPECT_EQ(s->fields[0].field_id(), 1);
  EXPECT_EQ(s->fields[1].type.ToString(), "decimal(10,2)");
  EXPECT_EQ(s->fields[2].type.fields[0].type.kind, DataType::Kind::kTimestampNtz);
  EXPECT_FALSE(s->fields[3].type.contains_null);
  EXPECT_EQ(s->fields[4].type.value->element->kind, DataType::Kind::kLong);
}

TEST(SchemaTest, MalformedSchemasAreCorruption) {
  for (const char* bad : {"{", R"J({"type":"struct"})J", R"J({"type":"array"})J",
                          R"J({"type":"struct","fields":[{"name":"a","type":"int128"}]})J",
                          R"J({"type":"struct","fields":[{"name":"a","type":"decimal(39,0)"}]})J",
                          R"J({"type":"struct","fields":[{"name":"a","type":"decimal(5,6)"}]})J",
                          R"J({"type":"struct","fields":[{"type":"long"}]})J", R"J("long")J"}) {
    auto s = ParseSchema(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_TRUE(s.status().IsCorruption()) << bad;
  }
}

TEST(ColumnMappingTest, ResolvesPhysicalNamesInCorpusTables) {
  auto fs = io::NewLocalFileSystem();
  auto name = Snapshot::Load(fs.get(), testing::GoldenTable("table-with-columnmapping-mode-name"));
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  EXPECT_EQ((*name)->column_mapping_mode(), ColumnMappingMode::kName);
  const auto& schema = (*name)->schema();
  ASSERT_FALSE(schema.fields.empty());
  const StructField& first = schema.fields[0];
  auto col = ResolvePhysicalColumn(schema, {first.name}, ColumnMappingMode::kName);
  ASSERT_TRUE(col.ok()) << col.status().ToString();
  EXPECT_EQ(col->path[0], *first.physical_name());
  EXPECT_NE(col->path[0], first.name);
  // The same column without mapping keeps its display name.
  EXPECT_EQ(ResolvePhysicalColumn(schema, {first.name}, ColumnMappingMode::kNone)->path[0], first.name);

  auto id = Snapshot::Load(fs.get(), testing::GoldenTable("table-with-columnmapping-mode-id"));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ((*id)->column_mapping_mode(), ColumnMappingMode::kId);
  // Nested: find a struct column and resolve one of its members.
  for (const auto& f : (*id)->schema().fields) {
    if (f.type.kind != DataType::Kind::kStruct) continue;
    auto nested = ResolvePhysicalColumn((*id)->schema(), {f.name, f.type.fields[0].name},
                                        ColumnMappingMode::kId);
    ASSERT_TRUE(nested.ok()) << nested.status().ToString();
    EXPECT_EQ(nested->path.size(), 2u);
    EXPECT_GT(nested->field_ids[1], 0);
    EXPECT_EQ(nested->path[1], *f.type.fields[0].physical_name());
  }
  EXPECT_TRUE(ResolvePhysicalColumn((*id)->schema(), {"no_such"}, ColumnMappingMode::kId)
                  .status().IsNotFound());
}

TEST(ColumnMappingTest, MissingPhysicalNameIsCorruptionAndModeParses) {
  auto s = ParseSchema(R"J({"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{}}]})J");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(ResolvePhysicalColumn(*s, {"a"}, ColumnMappingMode::kName).status().IsCorruption());
  EXPECT_EQ(ResolvePhysicalColumn(*s, {"A"}, ColumnMappingMode::kNone)->path[0], "a");
  EXPECT_EQ(*ParseColumnMappingMode({}), ColumnMappingMode::kNone);
  EXPECT_EQ(*ParseColumnMappingMode({{"delta.columnMapping.mode", "id"}}), ColumnMappingMode::kId);
  EXPECT_TRUE(ParseColumnMappingMode({{"delta.columnMapping.mode", "x"}}).status().IsCorruption());
}

DataType Prim(DataType::Kind k, int p = 0, int s = 0) {
  DataType t;
  t.kind = k;
  t.precision = p;
  t.scale = s;
  return t;
}

TEST(PartitionValueTest, TypesValuesPerAppendix) {
  using K = DataType::Kind;
  EXPECT_TRUE(ParsePartitionValue(Prim(K::kString), std::nullopt)->is_null());
  EXPECT_TRUE(ParsePartitionValue(Prim(K::kString), "")->is_null());
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kString), "a=b"), table::Value::String("a=b"));
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kInteger), "-12"), table::Value::Int64(-12));
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kBoolean), "true"), table::Value::Boolean(true));
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kDate), "2021-03-04"), table::Value::Date(18690));
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kDate), "2024-02-29"), table::Value::Date(19782));  // a leap day
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kTimestamp), "1970-01-01 00:00:01.5"),
            table::Value::Timestamp(1'500'000));
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kTimestamp), "1970-01-01T00:00:01.000001Z"),
            table::Value::Timestamp(1'000'001));
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kTimestamp), "1970-01-01T01:00:00+01:00"),
            table::Value::Timestamp(0));
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kTimestampNtz), "2000-01-01 00:00:00"),
            table::Value::TimestampNtz(946684800LL * 1000000));
  EXPECT_EQ(*ParsePartitionValue(Prim(K::kDecimal, 5, 2), "-1.5"), table::Value::Decimal(-150, 5, 2));
  EXPECT_EQ(ParsePartitionValue(Prim(K::kDouble), "2.5")->dbl(), 2.5);
  for (auto [k, text] : std::vector<std::pair<K, const char*>>{
           {K::kByte, "300"}, {K::kInteger, "1.5"}, {K::kBoolean, "yes"}, {K::kDate, "2021-13-01"},
           {K::kDate, "2023-02-29"}, {K::kTimestamp, "2023-02-29 00:00:00"}, {K::kTimestamp, "yesterday"}, {K::kDouble, "1x"}}) {
    EXPECT_TRUE(ParsePartitionValue(Prim(k), std::string(text)).status().IsCorruption()) << text;
  }
  EXPECT_TRUE(ParsePartitionValue(Prim(K::kDecimal, 3, 1), "123.4").status().IsCorruption());
}

TEST(PartitionValueTest, CorpusPartitionValuesOfManyTypesParse) {
  auto fs = io::NewLocalFileSystem();
  auto snap = Snapshot::Load(fs.get(), testing::GoldenTable("data-reader-partition-values"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  int nulls = 0, values = 0;
  for (const auto& f : (*snap)->files()) {
    for (const auto& col : (*snap)->partition_columns()) {
      const StructField* field = nullptr;
      for (const auto& sf : (*snap)->schema().fields) {
        if (sf.name == col) field = &sf;
      }
      ASSERT_NE(field, nullptr) << col;
      auto it = f.partition_values.find(col);
      ASSERT_NE(it, f.partition_values.end()) << col;
      auto v = ParsePartitionValue(field->type, it->second);
      ASSERT_TRUE(v.ok()) << col << ": " << v.status().ToString();
      (v->is_null() ? nulls : values)++;
    }
  }
  EXPECT_GT(nulls, 0);
  EXPECT_GT(values, 0);
}

}  // namespace
}  // namespace lithify::delta
