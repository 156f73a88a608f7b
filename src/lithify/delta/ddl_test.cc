// Tests for delta/ddl.h: DDL parsing, schema JSON, protocol selection, validations and
// the create / alter planners (alter runs on snapshots of tables written to a memory FS).
#include "lithify/delta/ddl.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

#include "lithify/io/filesystem.h"

namespace lithify::delta {
namespace {

using Kind = DataType::Kind;

StructType Ddl(std::string_view text) {
  auto r = ParseSchemaDdl(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : StructType{};
}

std::string DdlError(std::string_view text) {
  auto r = ParseSchemaDdl(text);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_TRUE(r.status().IsInvalidArgument());
  return r.status().message();
}

template <typename T>
const T* Find(const std::vector<Action>& actions) {
  for (const auto& a : actions) {
    if (const T* t = std::get_if<T>(&a)) return t;
  }
  return nullptr;
}

NewTableSpec Spec(std::string_view ddl, std::map<std::string, std::string> props = {}) {
  NewTableSpec s;
  s.schema = Ddl(ddl);
  s.properties = std::move(props);
  return s;
}

std::vector<Action> Plan(const NewTableSpec& s) {
  auto r = PlanCreateTable(s, 1700000000000);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<Action>{};
}

Status PlanError(const NewTableSpec& s) {
  auto r = PlanCreateTable(s, 0);
  EXPECT_FALSE(r.ok());
  return r.ok() ? Status::OK() : r.status();
}

std::vector<std::string> V(std::initializer_list<std::string> l) { return l; }

// ---- DDL ---------------------------------------------------------------------------

TEST(SchemaDdl, EveryPrimitiveTypeAndSynonym) {
  StructType s = Ddl(
      "a boolean, b byte, c tinyint, d short, e smallint, f int, g integer, h long, i bigint, j float, "
      "k real, l double, m decimal(12,3), n decimal, o string, p binary, q date, r timestamp, "
      "s timestamp_ntz, t decimal(5)");
  const Kind want[] = {Kind::kBoolean, Kind::kByte, Kind::kByte, Kind::kShort, Kind::kShort,
                       Kind::kInteger, Kind::kInteger, Kind::kLong, Kind::kLong, Kind::kFloat,
                       Kind::kFloat, Kind::kDouble, Kind::kDecimal, Kind::kDecimal, Kind::kString,
                       Kind::kBinary, Kind::kDate, Kind::kTimestamp, Kind::kTimestampNtz, Kind::kDecimal};
  ASSERT_EQ(s.fields.size(), std::size(want));
  for (size_t i = 0; i < s.fields.size(); ++i) {
    EXPECT_EQ(s.fields[i].type.kind, want[i]) << s.fields[i].name;
    EXPECT_TRUE(s.fields[i].nullable);
  }
  EXPECT_EQ(s.fields[12].type.precision, 12);
  EXPECT_EQ(s.fields[12].type.scale, 3);
  EXPECT_EQ(s.fields[13].type.precision, 10);
  EXPECT_EQ(s.fields[13].type.scale, 0);
  EXPECT_EQ(s.fields[19].type.precision, 5);
  EXPECT_EQ(s.fields[19].type.scale, 0);
}

TEST(SchemaDdl, NestingNotNullCommentsAndQuotedNames) {
  StructType s = Ddl(
      "ID LONG NOT NULL COMMENT 'the \\'key\\'', `a b` Int, "
      "s STRUCT<x: int NOT NULL, `y.z` string COMMENT \"c\">, "
      "arr array<struct<q: double>>, m map<string, array<int>>, e struct<>");
  ASSERT_EQ(s.fields.size(), 6u);
  EXPECT_EQ(s.fields[0].name, "ID");
  EXPECT_FALSE(s.fields[0].nullable);
  EXPECT_EQ(s.fields[0].metadata.at("comment"), "\"the 'key'\"");
  EXPECT_EQ(s.fields[1].name, "a b");
  const DataType& st = s.fields[2].type;
  ASSERT_EQ(st.kind, Kind::kStruct);
  ASSERT_EQ(st.fields.size(), 2u);
  EXPECT_FALSE(st.fields[0].nullable);
  EXPECT_EQ(st.fields[1].name, "y.z");
  EXPECT_EQ(st.fields[1].metadata.at("comment"), "\"c\"");
  const DataType& arr = s.fields[3].type;
  ASSERT_EQ(arr.kind, Kind::kArray);
  ASSERT_EQ(arr.element->kind, Kind::kStruct);
  EXPECT_EQ(arr.element->fields[0].type.kind, Kind::kDouble);
  const DataType& m = s.fields[4].type;
  ASSERT_EQ(m.kind, Kind::kMap);
  EXPECT_EQ(m.key->kind, Kind::kString);
  ASSERT_EQ(m.value->kind, Kind::kArray);
  EXPECT_EQ(m.value->element->kind, Kind::kInteger);
  EXPECT_TRUE(s.fields[5].type.fields.empty());
  EXPECT_EQ(Ddl("`a``b` int").fields[0].name, "a`b");
}

TEST(SchemaDdl, ErrorsNameThePositionAndWhatWasExpected) {
  EXPECT_NE(DdlError("id lng").find("at position 3: expected a data type"), std::string::npos);
  EXPECT_NE(DdlError("id long,").find("at position 8: expected a column name, found the end"), std::string::npos);
  EXPECT_NE(DdlError("").find("at position 0: expected a column definition"), std::string::npos);
  EXPECT_NE(DdlError("a int b int").find("at position 6: expected ','"), std::string::npos);
  EXPECT_NE(DdlError("a decimal(40,2)").find("decimal(40,2)"), std::string::npos);
  EXPECT_NE(DdlError("a decimal(4,5)").find("precision"), std::string::npos);
  EXPECT_NE(DdlError("a decimal(x)").find("expected an integer"), std::string::npos);
  EXPECT_NE(DdlError("a int NOT").find("expected NULL after NOT"), std::string::npos);
  EXPECT_NE(DdlError("`abc int").find("at position 0: expected a closing '`'"), std::string::npos);
  EXPECT_NE(DdlError("a struct<b int").find("expected ',' or '>'"), std::string::npos);
  EXPECT_NE(DdlError("a map<int>").find("',' between the MAP key"), std::string::npos);
  EXPECT_NE(DdlError("a array<int").find("'>' closing ARRAY"), std::string::npos);
  EXPECT_NE(DdlError("a int COMMENT x").find("expected a quoted string"), std::string::npos);
  EXPECT_NE(DdlError("a int COMMENT 'x").find("closing quote"), std::string::npos);
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "array<";
  EXPECT_NE(DdlError("a " + deep + "int").find("nested deeper"), std::string::npos);
  // Bytes that are not UTF-8 would be stored as U+FFFD (another name than given): refused.
  EXPECT_NE(DdlError("`a\xff" "b` int").find("expected a quoted name of valid UTF-8"), std::string::npos);
  EXPECT_NE(DdlError("a int COMMENT 'x\xc3'").find("expected a string of valid UTF-8"), std::string::npos);
  EXPECT_EQ(Ddl("`caf\xc3\xa9` int COMMENT '\xe2\x82\xac'").fields[0].name, "caf\xc3\xa9");
}

// ---- schema JSON --------------------------------------------------------------------

TEST(SchemaJson, ExactShape) {
  EXPECT_EQ(SchemaToJson(Ddl("id long NOT NULL COMMENT 'k', a array<int>, m map<string,double>")),
            R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":false,"metadata":{"comment":"k"}},)"
            R"({"name":"a","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}},)"
            R"({"name":"m","type":{"type":"map","keyType":"string","valueType":"double","valueContainsNull":true},"nullable":true,"metadata":{}}]})");
}

TEST(SchemaJson, RoundTripsEveryType) {
  StructType s = Ddl(
      "a boolean, b byte, c short, d int, e long, f float, g double, h decimal(38,18), i string, "
      "j binary, k date, l timestamp, m timestamp_ntz NOT NULL COMMENT 'ntz \"q\"', "
      "n struct<x: int, y: struct<z: array<map<string, struct<w: decimal(3,1)>>>>>, "
      "o array<array<long>>, p map<int, map<string, binary>>");
  // Containers with non-nullable elements and richer metadata.
  DataType arr;
  arr.kind = Kind::kArray;
  DataType el;
  el.kind = Kind::kDate;
  arr.element = std::make_shared<const DataType>(el);
  arr.contains_null = false;
  StructField f{"q", arr, true, {{"delta.columnMapping.id", "7"}, {"x", "{\"a\":[1,2]}"}}};
  s.fields.push_back(f);
  std::string json = SchemaToJson(s);
  auto back = ParseSchema(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(SameType(s, *back)) << json;
  EXPECT_EQ(SchemaToJson(*back), json);
  // SameType notices differences.
  StructType t = *back;
  t.fields[0].nullable = false;
  EXPECT_FALSE(SameType(s, t));
}

// ---- properties ----------------------------------------------------------------------

TEST(Properties, ValidationAndNormalization) {
  auto ok = [](std::string_view k, std::string_view v) {
    auto r = ValidateTableProperty(k, v);
    EXPECT_TRUE(r.ok()) << k << "=" << v << ": " << r.status().ToString();
    return r.ok() ? *r : std::pair<std::string, std::string>{};
  };
  EXPECT_EQ(ok("DELTA.APPENDONLY", "TRUE"), std::make_pair(std::string("delta.appendOnly"), std::string("true")));
  EXPECT_EQ(ok("owner", "anything").second, "anything");
  ok("delta.checkpointInterval", "5");
  ok("delta.dataSkippingNumIndexedCols", "-1");
  ok("delta.deletedFileRetentionDuration", "interval 7 days");
  ok("delta.logRetentionDuration", "30 days");
  ok("delta.targetFileSize", "128mb");
  ok("delta.targetFileSize", "134217728");
  EXPECT_EQ(ok("delta.isolationLevel", "serializable").second, "Serializable");
  ok("delta.columnMapping.mode", "name");
  ok("delta.autoOptimize.autoCompact", "false");
  ok("delta.enableChangeDataFeed", "false");
  ok("delta.feature.deletionVectors", "supported");

  auto bad = [](std::string_view k, std::string_view v, std::string_view needle) {
    auto r = ValidateTableProperty(k, v);
    ASSERT_FALSE(r.ok()) << k << "=" << v;
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  bad("delta.unknownThing", "1", "unknown Delta table property 'delta.unknownThing'");
  bad("delta.appendOnly", "yes", "expected true or false, got 'yes'");
  bad("delta.checkpointInterval", "ten", "expected an integer");
  bad("delta.checkpointInterval", "0", "integer >= 1");
  bad("delta.deletedFileRetentionDuration", "interval 1 month", "interval");
  bad("delta.targetFileSize", "-5", "positive size");
  bad("delta.isolationLevel", "WriteSerializable", "Serializable");
  bad("delta.columnMapping.mode", "physical", "none, name or id");
  bad("delta.columnMapping.maxColumnId", "3", "managed by lithify");
  bad("delta.feature.deletionVectors", "on", "'supported' or 'enabled'");
  EXPECT_TRUE(ValidateTableProperty("delta.enableChangeDataFeed", "true").status().IsNotSupported());
  EXPECT_TRUE(ValidateTableProperty("delta.feature.v2Checkpoint", "supported").status().IsNotSupported());
}

// Values the readers would refuse later (VACUUM's interval arithmetic, OPTIMIZE's size
// parser, Delta's 32-bit integers, the statistics writer) are refused when set.
TEST(Properties, ValidatedWithTheReadersParsers) {
  auto bad = [](std::string_view k, std::string_view v, std::string_view needle) {
    auto r = ValidateTableProperty(k, v);
    ASSERT_FALSE(r.ok()) << k << "=" << v;
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(k), std::string::npos) << r.status().message();
  };
  bad("delta.deletedFileRetentionDuration", "interval 1000000000000 days", "DELTA_INVALID_INTERVAL");
  bad("delta.deletedFileRetentionDuration", "interval 1000000000000 days", "1000000000000 days");
  bad("delta.logRetentionDuration", "interval 9223372036854775807 weeks", "out of range");
  bad("delta.deletedFileRetentionDuration", "interval -2 days", "negative");
  bad("delta.targetFileSize", "99999999999 pb", "2^63-1");
  bad("delta.checkpointInterval", "99999999999", "32-bit");
  bad("delta.randomPrefixLength", "3000000000", "32-bit");
  bad("delta.dataSkippingNumIndexedCols", "2000000000", "[-1, 1073741824]");
  bad("delta.dataSkippingStatsColumns", "a, `b", "unclosed");
  bad("delta.checkpointPolicy", "sometimes", "classic or v2");
  EXPECT_TRUE(ValidateTableProperty("delta.checkpointPolicy", "v2").status().IsNotSupported());
  bad("delta.unknownThing", "1", "DELTA_UNKNOWN_CONFIGURATION");
  // A CHECK constraint is not a property: setting one would skip validating existing rows.
  bad("delta.constraints.positive", "x > 0", "DELTA_ADD_CONSTRAINTS");
  bad("Delta.Constraints.positive", "x > 0", "DELTA_ADD_CONSTRAINTS");
  // What the readers accept is accepted (the old checks refused fractions and "kib").
  for (auto [k, v] : {std::pair<std::string_view, std::string_view>{"delta.targetFileSize", "1.5gb"},
                      {"delta.targetFileSize", "64 KiB"},
                      {"delta.deletedFileRetentionDuration", "interval 2 days 3 hours"},
                      {"delta.deletedFileRetentionDuration", "interval 106751991 days"},
                      {"delta.checkpointPolicy", "Classic"}}) {
    auto r = ValidateTableProperty(k, v);
    EXPECT_TRUE(r.ok()) << k << "=" << v << ": " << r.status().ToString();
  }
  // A stats column list naming a partition column breaks every later write: refused.
  NewTableSpec s;
  s.schema = *ParseSchemaDdl("a int, p int");
  s.partition_columns = {"p"};
  s.properties = {{"delta.dataSkippingStatsColumns", "p"}};
  auto plan = PlanCreateTable(s, 0);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("not a data column"), std::string::npos) << plan.status().message();
}

// ---- protocol selection ----------------------------------------------------------------

Protocol ProtocolOf(const std::vector<Action>& actions) {
  const Protocol* p = Find<Protocol>(actions);
  EXPECT_NE(p, nullptr);
  return p ? *p : Protocol{};
}

TEST(CreateProtocol, LegacyWhenEnough) {
  EXPECT_EQ(ProtocolOf(Plan(Spec("a int"))), (Protocol{1, 2, std::nullopt, std::nullopt}));
  EXPECT_EQ(ProtocolOf(Plan(Spec("a int", {{"delta.appendOnly", "true"}}))), (Protocol{1, 2, std::nullopt, std::nullopt}));
  EXPECT_EQ(ProtocolOf(Plan(Spec("a int", {{"delta.columnMapping.mode", "name"}}))),
            (Protocol{2, 5, std::nullopt, std::nullopt}));
  EXPECT_EQ(ProtocolOf(Plan(Spec("a int", {{"delta.columnMapping.mode", "id"}}))),
            (Protocol{2, 5, std::nullopt, std::nullopt}));
  EXPECT_EQ(ProtocolOf(Plan(Spec("a int", {{"delta.enableDeletionVectors", "false"}}))),
            (Protocol{1, 2, std::nullopt, std::nullopt}));
}

TEST(CreateProtocol, EveryFeatureCombination) {
  // Bits: deletion vectors, row tracking, in-commit timestamps, column mapping, clustering.
  for (int mask = 0; mask < 32; ++mask) {
    NewTableSpec s = Spec("a int, b string");
    std::set<std::string> want_w, want_r;
    if (mask & 1) { s.properties["delta.enableDeletionVectors"] = "true"; want_w.insert("deletionVectors"); want_r.insert("deletionVectors"); }
    if (mask & 2) { s.properties["delta.enableRowTracking"] = "true"; want_w.insert({"rowTracking", "domainMetadata"}); }
    if (mask & 4) { s.properties["delta.enableInCommitTimestamps"] = "true"; want_w.insert("inCommitTimestamp"); }
    if (mask & 8) { s.properties["delta.columnMapping.mode"] = "name"; want_w.insert("columnMapping"); want_r.insert("columnMapping"); }
    if (mask & 16) { s.clustering_columns = {"a"}; want_w.insert({"clustering", "domainMetadata"}); }
    Protocol p = ProtocolOf(Plan(s));
    SCOPED_TRACE(mask);
    if (mask == 0) {
      EXPECT_EQ(p, (Protocol{1, 2, std::nullopt, std::nullopt}));
    } else if (mask == 8) {
      EXPECT_EQ(p, (Protocol{2, 5, std::nullopt, std::nullopt}));
    } else {
      EXPECT_EQ(p.min_writer_version, 7);
      ASSERT_TRUE(p.writer_features);
      EXPECT_EQ(std::set<std::string>(p.writer_features->begin(), p.writer_features->end()), want_w);
      if (want_r.empty()) {
        EXPECT_EQ(p.min_reader_version, 1);
        EXPECT_FALSE(p.reader_features);
      } else {
        EXPECT_EQ(p.min_reader_version, 3);
        ASSERT_TRUE(p.reader_features);
        EXPECT_EQ(std::set<std::string>(p.reader_features->begin(), p.reader_features->end()), want_r);
      }
    }
  }
}

TEST(CreateProtocol, SchemaAndExplicitFeatures) {
  EXPECT_EQ(ProtocolOf(Plan(Spec("a timestamp_ntz"))), (Protocol{3, 7, V({"timestampNtz"}), V({"timestampNtz"})}));
  EXPECT_EQ(ProtocolOf(Plan(Spec("a int", {{"delta.appendOnly", "true"}, {"delta.enableInCommitTimestamps", "true"}}))),
            (Protocol{1, 7, std::nullopt, V({"appendOnly", "inCommitTimestamp"})}));
  auto actions = Plan(Spec("a int", {{"delta.feature.deletionVectors", "supported"}}));
  EXPECT_EQ(ProtocolOf(actions), (Protocol{3, 7, V({"deletionVectors"}), V({"deletionVectors"})}));
  EXPECT_TRUE(Find<Metadata>(actions)->configuration.empty());  // feature requests are not stored
}

// ---- create: metadata, column mapping, clustering ---------------------------------------

TEST(CreateTable, MetadataCarriesSchemaPartitionsAndProperties) {
  NewTableSpec s = Spec("id long, P string, v double", {{"delta.appendOnly", "TRUE"}, {"owner", "me"}});
  s.partition_columns = {"p"};
  s.name = "t";
  s.description = "desc";
  auto actions = Plan(s);
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<Protocol>(actions[0]));
  const Metadata& m = std::get<Metadata>(actions[1]);
  EXPECT_EQ(m.id.size(), 36u);
  EXPECT_EQ(m.partition_columns, V({"P"}));  // the schema's spelling
  EXPECT_EQ(m.created_time, 1700000000000);
  EXPECT_EQ(m.format.provider, "parquet");
  EXPECT_EQ(m.name, "t");
  EXPECT_EQ(m.description, "desc");
  EXPECT_EQ(m.configuration, (std::map<std::string, std::string>{{"delta.appendOnly", "true"}, {"owner", "me"}}));
  auto schema = ParseSchema(m.schema_string);
  ASSERT_TRUE(schema.ok());
  EXPECT_TRUE(SameType(*schema, s.schema));
  EXPECT_NE(Plan(s).size(), 0u);
  EXPECT_NE(std::get<Metadata>(Plan(s)[1]).id, m.id);  // a new UUID each time

  PlannedOperation op = CreateTableOperation(actions);
  EXPECT_EQ(op.name, "CREATE TABLE");
  EXPECT_EQ(op.parameters.dump(),
            R"({"clusterBy":"[]","description":"desc","isManaged":"false","partitionBy":"[\"P\"]",)"
            R"("properties":"{\"delta.appendOnly\":\"true\",\"owner\":\"me\"}"})");
}

TEST(CreateTable, ColumnMappingAssignsIdsDepthFirst) {
  NewTableSpec s = Spec("a int, s struct<x: int, y: array<struct<z: int>>>, m map<string, int>",
                        {{"delta.columnMapping.mode", "name"}});
  auto actions = Plan(s);
  const Metadata* m = Find<Metadata>(actions);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->configuration.at("delta.columnMapping.maxColumnId"), "6");
  auto schema = ParseSchema(m->schema_string);
  ASSERT_TRUE(schema.ok());
  const StructType& st = *schema;
  std::set<std::string> physical;
  auto check = [&](const StructField& f, int64_t id) {
    EXPECT_EQ(f.field_id(), id) << f.name;
    auto pn = f.physical_name();
    ASSERT_TRUE(pn) << f.name;
    EXPECT_EQ(pn->rfind("col-", 0), 0u);
    EXPECT_EQ(pn->size(), 40u);
    physical.insert(*pn);
  };
  check(st.fields[0], 1);
  check(st.fields[1], 2);
  check(st.fields[1].type.fields[0], 3);
  check(st.fields[1].type.fields[1], 4);
  check(st.fields[1].type.fields[1].type.element->fields[0], 5);
  check(st.fields[2], 6);
  EXPECT_EQ(physical.size(), 6u);
}

TEST(CreateTable, RowTrackingMaterializedColumnNames) {
  auto actions = Plan(Spec("a int", {{"delta.enableRowTracking", "true"}}));
  const auto& c = Find<Metadata>(actions)->configuration;
  EXPECT_EQ(c.at("delta.rowTracking.materializedRowIdColumnName").rfind("_row-id-col-", 0), 0u);
  EXPECT_EQ(c.at("delta.rowTracking.materializedRowCommitVersionColumnName").rfind("_row-commit-version-col-", 0), 0u);
  EXPECT_EQ(c.at("delta.rowTracking.materializedRowIdColumnName").size(), std::string("_row-id-col-").size() + 36);
}

TEST(CreateTable, ClusteringDomainExactJson) {
  NewTableSpec s = Spec("a int, B string, s struct<x: long>");
  s.clustering_columns = {"a", "b", "s.x"};
  auto actions = Plan(s);
  ASSERT_EQ(actions.size(), 3u);
  const auto& d = std::get<DomainMetadata>(actions[2]);
  EXPECT_EQ(d.domain, "delta.clustering");
  EXPECT_EQ(d.configuration, R"({"clusteringColumns":[["a"],["B"],["s","x"]]})");
  EXPECT_FALSE(d.removed);
  EXPECT_EQ(CreateTableOperation(actions).parameters["clusterBy"], R"(["a","B","s.x"])");

  s.clustering_columns = {"a", "b"};
  EXPECT_EQ(std::get<DomainMetadata>(Plan(s)[2]).configuration, R"({"clusteringColumns":[["a"],["B"]]})");
}

TEST(CreateTable, ClusteringDomainUsesPhysicalNamesWithColumnMapping) {
  NewTableSpec s = Spec("a int, s struct<x: long>", {{"delta.columnMapping.mode", "name"}});
  s.clustering_columns = {"s.x"};
  auto actions = Plan(s);
  auto schema = ParseSchema(Find<Metadata>(actions)->schema_string);
  ASSERT_TRUE(schema.ok());
  std::string ps = *schema->fields[1].physical_name();
  std::string px = *schema->fields[1].type.fields[0].physical_name();
  EXPECT_EQ(Find<DomainMetadata>(actions)->configuration,
            R"({"clusteringColumns":[[")" + ps + R"(",")" + px + R"("]]})");
  EXPECT_EQ(CreateTableOperation(actions).parameters["clusterBy"], R"(["s.x"])");
}

// ---- create: validations ---------------------------------------------------------------

void ExpectError(const Status& st, std::string_view needle) {
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(needle), std::string::npos) << st.ToString();
}

TEST(CreateValidation, Clustering) {
  NewTableSpec s = Spec("a int, b int, c int, d int, e int, f boolean, g binary, st struct<x: int>, "
                        "ar array<int>, m map<int,int>");
  s.partition_columns = {"a"};
  s.clustering_columns = {"b"};
  ExpectError(PlanError(s), "DELTA_CLUSTER_BY_WITH_PARTITIONED_BY");
  s.partition_columns.clear();
  s.clustering_columns = {"a", "b", "c", "d", "e"};
  ExpectError(PlanError(s), "DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS");
  s.clustering_columns = {"a", "b", "c", "d"};
  EXPECT_TRUE(PlanCreateTable(s, 0).ok());
  for (const char* c : {"f", "g"}) {
    s.clustering_columns = {c};
    ExpectError(PlanError(s), "DELTA_CLUSTERING_COLUMN_MISSING_STATS");
  }
  for (const char* c : {"st", "ar", "m"}) {
    s.clustering_columns = {c};
    ExpectError(PlanError(s), "DELTA_CLUSTERING_COLUMNS_DATATYPE_NOT_SUPPORTED");
  }
  s.clustering_columns = {"nope"};
  ExpectError(PlanError(s), "column 'nope' does not exist");
  s.clustering_columns = {"ar.x"};
  ExpectError(PlanError(s), "is not a struct");
  s.clustering_columns = {"a", "A"};
  ExpectError(PlanError(s), "listed twice");
  s.clustering_columns = {};
  s.properties = {{"delta.feature.clustering", "supported"}};
  ExpectError(PlanError(s), "DELTA_CREATE_TABLE_SET_CLUSTERING_TABLE_FEATURE_NOT_ALLOWED");
}

TEST(CreateValidation, ClusteringColumnsNeedStatistics) {
  NewTableSpec s = Spec("a int, s struct<x: int, y: int>, b int", {{"delta.dataSkippingNumIndexedCols", "2"}});
  s.clustering_columns = {"s.x"};
  EXPECT_TRUE(PlanCreateTable(s, 0).ok());
  s.clustering_columns = {"s.y"};  // leaf 3 of 4
  ExpectError(PlanError(s), "DELTA_CLUSTERING_COLUMN_MISSING_STATS");
  s.clustering_columns = {"b"};
  ExpectError(PlanError(s), "first 2 leaf columns");
  s.properties["delta.dataSkippingNumIndexedCols"] = "-1";
  EXPECT_TRUE(PlanCreateTable(s, 0).ok());
  s.properties = {{"delta.dataSkippingStatsColumns", "a, s"}};
  s.clustering_columns = {"s.y"};
  EXPECT_TRUE(PlanCreateTable(s, 0).ok());
  s.clustering_columns = {"b"};
  ExpectError(PlanError(s), "delta.dataSkippingStatsColumns");
  s.properties = {{"delta.dataSkippingStatsColumns", "zz"}};
  s.clustering_columns = {};
  ExpectError(PlanError(s), "column 'zz' does not exist");
  // The default is 32 leaf columns.
  std::string ddl;
  for (int i = 0; i < 33; ++i) ddl += fmt::format("{}c{} int", i ? ", " : "", i);
  NewTableSpec wide = Spec(ddl);
  wide.clustering_columns = {"c31"};
  EXPECT_TRUE(PlanCreateTable(wide, 0).ok());
  wide.clustering_columns = {"c32"};
  ExpectError(PlanError(wide), "DELTA_CLUSTERING_COLUMN_MISSING_STATS");
}

TEST(CreateValidation, PartitionsNamesAndProperties) {
  NewTableSpec s = Spec("a int, b int, st struct<x: int>, ar array<int>");
  s.partition_columns = {"zz"};
  ExpectError(PlanError(s), "partition column 'zz' is not a top-level column");
  s.partition_columns = {"st"};
  ExpectError(PlanError(s), "partition column 'st' has type struct");
  s.partition_columns = {"ar"};
  ExpectError(PlanError(s), "primitive");
  s.partition_columns = {"a", "A"};
  ExpectError(PlanError(s), "listed twice");
  NewTableSpec two = Spec("a int, b int");
  two.partition_columns = {"a", "b"};
  ExpectError(PlanError(two), "DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION");

  ExpectError(PlanError(Spec("a int, A long")), "DELTA_DUPLICATE_COLUMNS_FOUND: duplicate column name 'A'");
  ExpectError(PlanError(Spec("s struct<x: int, X: int>")), "duplicate column name 'X' in 's'");
  ExpectError(PlanError(Spec("`` int")), "empty column name");
  ExpectError(PlanError(Spec("`a b` int")), "DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES: column name 'a b'");
  ExpectError(PlanError(Spec("s struct<`x=1`: int>")), "column name 'x=1' in 's'");
  EXPECT_TRUE(PlanCreateTable(Spec("`a b` int", {{"delta.columnMapping.mode", "name"}}), 0).ok());
  ExpectError(PlanError(Spec("a int", {{"delta.bogus", "1"}})), "unknown Delta table property");
  ExpectError(PlanError(Spec("a int", {{"delta.enableDeletionVectors", "1"}})), "true or false");
  ExpectError(PlanError(Spec("a int", {{"delta.rowTracking.materializedRowIdColumnName", "x"}})), "managed");
  EXPECT_TRUE(PlanError(Spec("a int", {{"delta.enableChangeDataFeed", "true"}})).IsNotSupported());
  EXPECT_FALSE(PlanCreateTable(NewTableSpec{}, 0).ok());
}

// ---- alter ---------------------------------------------------------------------------

class AlterTest : public ::testing::Test {
 protected:
  // Writes version 0 from a create plan (plus optional files) and loads it.
  std::shared_ptr<const Snapshot> Table(const NewTableSpec& spec, bool with_file = false) {
    auto actions = Plan(spec);
    std::string text;
    for (const auto& a : actions) text += ActionToJson(a) + "\n";
    if (with_file) {
      AddFile f;
      f.path = "part-0.parquet";
      f.size = 10;
      f.stats = R"({"numRecords":1})";
      text += ActionToJson(f) + "\n";
    }
    std::string path = root_ + "/_delta_log/00000000000000000000.json";
    EXPECT_TRUE(fs_->WriteFile(path, ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size())).ok());
    auto snap = Snapshot::Load(fs_.get(), root_);
    EXPECT_TRUE(snap.ok()) << snap.status().ToString();
    return snap.ok() ? *snap : nullptr;
  }
  std::vector<Action> Alter(const Snapshot& snap, const AlterSpec& spec) {
    auto r = PlanAlterTable(snap, spec);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<Action>{};
  }
  std::unique_ptr<io::FileSystem> fs_ = io::NewMemoryFileSystem();
  std::string root_ = "/t";
};

TEST_F(AlterTest, SetAndUnsetProperties) {
  auto snap = Table(Spec("a int", {{"owner", "me"}}));
  AlterSpec set;
  set.set_properties = {{"delta.logRetentionDuration", "interval 60 days"}, {"OWNER", "you"}};
  auto actions = Alter(*snap, set);
  ASSERT_EQ(actions.size(), 1u);
  const Metadata& m = std::get<Metadata>(actions[0]);
  EXPECT_EQ(m.id, snap->metadata().id);
  EXPECT_EQ(m.schema_string, snap->metadata().schema_string);
  EXPECT_EQ(m.configuration.at("delta.logRetentionDuration"), "interval 60 days");
  EXPECT_EQ(m.configuration.at("owner"), "me");
  EXPECT_EQ(m.configuration.at("OWNER"), "you");  // non-Delta keys are case-sensitive
  auto op = AlterTableOperation(*snap, set);
  ASSERT_TRUE(op.ok());
  EXPECT_EQ(op->name, "SET TBLPROPERTIES");
  EXPECT_EQ(op->parameters.dump(),
            R"({"properties":"{\"OWNER\":\"you\",\"delta.logRetentionDuration\":\"interval 60 days\"}"})");

  AlterSpec unset;
  unset.unset_properties = {"owner"};
  actions = Alter(*snap, unset);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_TRUE(std::get<Metadata>(actions[0]).configuration.empty());
  op = AlterTableOperation(*snap, unset);
  ASSERT_TRUE(op.ok());
  EXPECT_EQ(op->name, "UNSET TBLPROPERTIES");
  EXPECT_EQ(op->parameters.dump(), R"({"ifExists":"false","properties":"[\"owner\"]"})");

  unset.unset_properties = {"missing"};
  auto r = PlanAlterTable(*snap, unset);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("DELTA_UNSET_NON_EXISTENT_PROPERTY"), std::string::npos);
  unset.unset_if_exists = true;
  EXPECT_TRUE(PlanAlterTable(*snap, unset).ok());

  EXPECT_FALSE(PlanAlterTable(*snap, AlterSpec{}).ok());
  AlterSpec both = set;
  both.unset_properties = {"owner"};
  EXPECT_TRUE(PlanAlterTable(*snap, both).ok());
  EXPECT_FALSE(AlterTableOperation(*snap, both).ok());
}

TEST_F(AlterTest, EnablingAFeatureUpgradesTheProtocolNeverDowngrades) {
  auto snap = Table(Spec("a int"));
  AlterSpec dv;
  dv.set_properties = {{"delta.enableDeletionVectors", "true"}};
  auto actions = Alter(*snap, dv);
  ASSERT_EQ(actions.size(), 2u);
  // From legacy (1,2): the implied appendOnly and invariants are listed too.
  EXPECT_EQ(std::get<Protocol>(actions[0]),
            (Protocol{3, 7, V({"deletionVectors"}), V({"appendOnly", "deletionVectors", "invariants"})}));

  AlterSpec ao;
  ao.set_properties = {{"delta.appendOnly", "true"}};
  EXPECT_EQ(Alter(*snap, ao).size(), 1u);  // (1,2) already supports appendOnly

  auto dv_table = Table(Spec("a int", {{"delta.enableDeletionVectors", "true"}}));
  AlterSpec off;
  off.set_properties = {{"delta.enableDeletionVectors", "false"}};
  actions = Alter(*dv_table, off);
  ASSERT_EQ(actions.size(), 1u);  // metadata only; the feature stays
  EXPECT_TRUE(std::holds_alternative<Metadata>(actions[0]));

  AlterSpec ict;
  ict.set_properties = {{"delta.enableInCommitTimestamps", "true"}};
  ict.now_ms = 1234;
  actions = Alter(*dv_table, ict);
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(std::get<Protocol>(actions[0]),
            (Protocol{3, 7, V({"deletionVectors"}), V({"deletionVectors", "inCommitTimestamp"})}));
  const auto& c = std::get<Metadata>(actions[1]).configuration;
  EXPECT_EQ(c.at("delta.inCommitTimestampEnablementVersion"), "1");
  EXPECT_EQ(c.at("delta.inCommitTimestampEnablementTimestamp"), "1234");

  auto cm = Table(Spec("a int", {{"delta.columnMapping.mode", "name"}}));
  AlterSpec rt;
  rt.set_properties = {{"delta.enableRowTracking", "true"}};
  actions = Alter(*cm, rt);
  ASSERT_EQ(actions.size(), 2u);
  const Protocol& p = std::get<Protocol>(actions[0]);
  EXPECT_EQ(p.min_reader_version, 3);
  EXPECT_EQ(p.reader_features, V({"columnMapping"}));
  EXPECT_EQ(p.writer_features, V({"appendOnly", "changeDataFeed", "checkConstraints", "columnMapping",
                                  "domainMetadata", "generatedColumns", "invariants", "rowTracking"}));
  EXPECT_TRUE(std::get<Metadata>(actions[1]).configuration.count("delta.rowTracking.materializedRowIdColumnName"));
}

TEST_F(AlterTest, RefusedChanges) {
  auto cm = Table(Spec("a int", {{"delta.columnMapping.mode", "name"}}));
  AlterSpec mode;
  mode.set_properties = {{"delta.columnMapping.mode", "id"}};
  EXPECT_TRUE(PlanAlterTable(*cm, mode).status().IsNotSupported());
  mode.set_properties = {{"delta.columnMapping.mode", "NAME"}};
  EXPECT_TRUE(PlanAlterTable(*cm, mode).ok());  // unchanged
  AlterSpec unset_mode;
  unset_mode.unset_properties = {"delta.columnMapping.mode"};
  EXPECT_TRUE(PlanAlterTable(*cm, unset_mode).status().IsNotSupported());

  auto with_file = Table(Spec("a int"), /*with_file=*/true);
  AlterSpec rt;
  rt.set_properties = {{"delta.enableRowTracking", "true"}};
  EXPECT_TRUE(PlanAlterTable(*with_file, rt).status().IsNotSupported());
  AlterSpec cdf;
  cdf.set_properties = {{"delta.enableChangeDataFeed", "true"}};
  EXPECT_TRUE(PlanAlterTable(*with_file, cdf).status().IsNotSupported());
  AlterSpec bad;
  bad.set_properties = {{"delta.checkpointInterval", "often"}};
  EXPECT_TRUE(PlanAlterTable(*with_file, bad).status().IsInvalidArgument());
}

TEST_F(AlterTest, ClusterByAndNone) {
  auto plain = Table(Spec("a int, b string, s struct<x: int>"));
  AlterSpec by;
  by.clustering_columns = V({"B", "s.x"});
  auto actions = Alter(*plain, by);
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(std::get<Protocol>(actions[0]),
            (Protocol{1, 7, std::nullopt, V({"appendOnly", "clustering", "domainMetadata", "invariants"})}));
  EXPECT_EQ(std::get<DomainMetadata>(actions[1]).configuration, R"({"clusteringColumns":[["b"],["s","x"]]})");
  auto op = AlterTableOperation(*plain, by);
  ASSERT_TRUE(op.ok());
  EXPECT_EQ(op->name, "CLUSTER BY");
  EXPECT_EQ(op->parameters.dump(), R"({"newClusteringColumns":"[\"b\",\"s.x\"]","oldClusteringColumns":"[]"})");

  AlterSpec none;
  none.clustering_columns = std::vector<std::string>{};
  EXPECT_NE(PlanAlterTable(*plain, none).status().message().find("not clustered"), std::string::npos);

  NewTableSpec cs = Spec("a int, b string");
  cs.clustering_columns = {"a"};
  auto clustered = Table(cs);
  EXPECT_EQ(ClusteringColumnsOf(*clustered), std::vector<std::vector<std::string>>{{"a"}});
  actions = Alter(*clustered, none);
  ASSERT_EQ(actions.size(), 1u);  // protocol already has clustering
  EXPECT_EQ(std::get<DomainMetadata>(actions[0]).configuration, R"({"clusteringColumns":[]})");
  op = AlterTableOperation(*clustered, none);
  ASSERT_TRUE(op.ok());
  EXPECT_EQ(op->parameters["oldClusteringColumns"], R"(["a"])");
  EXPECT_EQ(op->parameters["newClusteringColumns"], "[]");

  AlterSpec too_many;
  too_many.clustering_columns = V({"a", "b", "a", "b", "a"});
  EXPECT_NE(PlanAlterTable(*clustered, too_many).status().message().find("DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS"),
            std::string::npos);

  NewTableSpec ps = Spec("a int, b string");
  ps.partition_columns = {"b"};
  auto partitioned = Table(ps);
  EXPECT_NE(PlanAlterTable(*partitioned, by).status().message().find(
                "DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED"),
            std::string::npos);
}

TEST_F(AlterTest, ClusterByWithColumnMappingUsesPhysicalNames) {
  auto cm = Table(Spec("a int, b string", {{"delta.columnMapping.mode", "id"}}));
  AlterSpec by;
  by.clustering_columns = V({"b"});
  auto actions = Alter(*cm, by);
  ASSERT_EQ(actions.size(), 2u);
  std::string pb = *cm->schema().fields[1].physical_name();
  EXPECT_EQ(std::get<DomainMetadata>(actions[1]).configuration,
            R"({"clusteringColumns":[[")" + pb + R"("]]})");
  const Protocol& p = std::get<Protocol>(actions[0]);
  EXPECT_EQ(p.min_reader_version, 3);
  EXPECT_EQ(p.reader_features, V({"columnMapping"}));
}

TEST(SupportedFeaturesTest, LegacyAndExplicit) {
  EXPECT_EQ(SupportedFeatures(Protocol{1, 2, std::nullopt, std::nullopt}), V({"appendOnly", "invariants"}));
  EXPECT_EQ(SupportedFeatures(Protocol{2, 5, std::nullopt, std::nullopt}),
            V({"appendOnly", "changeDataFeed", "checkConstraints", "columnMapping", "generatedColumns", "invariants"}));
  EXPECT_EQ(SupportedFeatures(Protocol{3, 7, V({"deletionVectors"}), V({"deletionVectors", "x"})}),
            V({"deletionVectors", "x"}));
}

}  // namespace
}  // namespace lithify::delta
