// Schema evolution against deletes and defaults, on corpus tables whose metadata is
// evolved at test time (a new metadata file written to a temporary folder, named
// directly; the data, delete and manifest files stay the corpus's):
//   * equality deletes whose equality field the current schema has dropped keep applying
//     (matched by field id against the data files' columns, which are read but not
//     output), also after a rename and with a new column taking the dropped one's name;
//   * struct initial-default: a struct missing from a file reads as null unless its
//     initial-default is {}, then its fields take their own initial-defaults (top level
//     and nested under a struct the file has); other struct or list defaults are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "lithify/base/temp_dir.h"
#include "test_util.h"

namespace lithify::iceberg {
namespace {

using nlohmann::json;
using testing::Corpus;

json ReadJson(const std::string& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// Writes `metadata` as a metadata file in `dir` and reads the current snapshot's rows.
Result<std::vector<json>> ScanEvolved(const TempDir& dir, const json& metadata) {
  const std::string path = dir.path() + "/v99.metadata.json";
  std::ofstream(path, std::ios::trunc) << metadata.dump();
  LITHIFY_ASSIGN_OR_RETURN(auto t, IcebergTable::Open(io::NewLocalFileSystem(), path, OpenOptions{testing::CorpusMap()}));
  LITHIFY_ASSIGN_OR_RETURN(const Snapshot* snap, t->Select(SnapshotSelector::Current()));
  return testing::ReadRows(*t, snap);
}

std::vector<std::string> Dumped(const std::vector<json>& rows) {
  std::vector<std::string> out;
  for (const json& r : rows) out.push_back(r.dump());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Dumped(std::initializer_list<json> rows) { return Dumped(std::vector<json>(rows)); }

// duckdb-iceberg's equality_deletes table (v2, unpartitioned): data files with
// id 1..4 / a..d and 5, 6 / e, f (with bir); equality deletes name=b, id=1,
// (id=3, name=c) and name=f leave rows 4 and 5.
const char* kEq = "/duckdb-iceberg/data/persistent/equality_deletes/warehouse/mydb/mytable/metadata/v7.metadata.json";

json Field(int id, const std::string& name, const json& type) {
  return json{{"id", id}, {"name", name}, {"required", false}, {"type", type}};
}

// The table's metadata with `schemas` appended and the last made current.
json Evolve(json m, const std::vector<json>& schemas) {
  for (const json& s : schemas) m["schemas"].push_back(s);
  m["current-schema-id"] = schemas.back()["schema-id"];
  int last = m["last-column-id"];
  for (const json& s : schemas) {
    for (const json& f : s["fields"]) last = std::max(last, f["id"].get<int>());
  }
  m["last-column-id"] = last;
  return m;
}

json Schema(int id, std::vector<json> fields) {
  return json{{"type", "struct"}, {"schema-id", id}, {"fields", std::move(fields)}};
}

TEST(IcebergEvolution, EqualityDeletesOnADroppedColumnStillApply) {
  TempDir dir;
  const json v7 = ReadJson(Corpus() + kEq);
  // Sanity: the table as written.
  auto base = ScanEvolved(dir, v7);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  EXPECT_EQ(Dumped(*base), Dumped({json{{"id", 4}, {"name", "d"}, {"bir", "2025-01-04"}},
                                   json{{"id", 5}, {"name", "e"}, {"bir", "2025-01-05"}}}));

  // `name` dropped: the deletes name=b and name=f still remove b and f.
  auto dropped = ScanEvolved(dir, Evolve(v7, {Schema(1, {Field(1, "id", "int"), Field(3, "bir", "date")})}));
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_EQ(Dumped(*dropped), Dumped({json{{"id", 4}, {"bir", "2025-01-04"}}, json{{"id", 5}, {"bir", "2025-01-05"}}}));

  // Both equality columns dropped: only bir is output, the same two rows live.
  auto both = ScanEvolved(dir, Evolve(v7, {Schema(1, {Field(3, "bir", "date")})}));
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(Dumped(*both), Dumped({json{{"bir", "2025-01-04"}}, json{{"bir", "2025-01-05"}}}));

  // Renamed, then dropped, then a new column takes the old name (new id, default 'zz'):
  // the deletes still match field 2, the new column reads its default.
  json added = Field(4, "name", "string");
  added["initial-default"] = "zz";
  added["write-default"] = "zz";
  auto renamed = ScanEvolved(
      dir, Evolve(v7, {Schema(1, {Field(1, "id", "int"), Field(2, "label", "string"), Field(3, "bir", "date")}),
                       Schema(2, {Field(1, "id", "int"), Field(3, "bir", "date")}),
                       Schema(3, {Field(1, "id", "int"), Field(3, "bir", "date"), added})}));
  ASSERT_TRUE(renamed.ok()) << renamed.status().ToString();
  EXPECT_EQ(Dumped(*renamed), Dumped({json{{"id", 4}, {"bir", "2025-01-04"}, {"name", "zz"}},
                                      json{{"id", 5}, {"bir", "2025-01-05"}, {"name", "zz"}}}));

  // Promoted on the way (id int -> long in the newest schema holding it, then dropped).
  auto promoted = ScanEvolved(dir, Evolve(v7, {Schema(1, {Field(1, "id", "long"), Field(2, "name", "string"),
                                                          Field(3, "bir", "date")}),
                                               Schema(2, {Field(2, "name", "string"), Field(3, "bir", "date")})}));
  ASSERT_TRUE(promoted.ok()) << promoted.status().ToString();
  EXPECT_EQ(Dumped(*promoted), Dumped({json{{"name", "d"}, {"bir", "2025-01-04"}},
                                       json{{"name", "e"}, {"bir", "2025-01-05"}}}));

  // A field id no schema of the table has (its schemas were removed): refused by name.
  json gone = v7;
  gone["schemas"] = json::array({Schema(1, {Field(1, "id", "int"), Field(3, "bir", "date")})});
  gone["current-schema-id"] = 1;
  auto refused = ScanEvolved(dir, gone);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kNotSupported) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("field id 2, which no schema of the table has"), std::string::npos)
      << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("delete-"), std::string::npos) << refused.status().ToString();
}

json WithDefault(json f, const json& d) {
  f["initial-default"] = d;
  f["write-default"] = d;
  return f;
}

json Struct(std::vector<json> fields) { return json{{"type", "struct"}, {"fields", std::move(fields)}}; }

TEST(IcebergEvolution, StructInitialDefaultAtTopLevel) {
  TempDir dir;
  const json v7 = ReadJson(Corpus() + kEq);
  // s {} : x default 7, y no default, inner {} : z default 9, n (null default) : w default 1,
  // l list without default; t (no default) : a default 3.
  json s = WithDefault(
      Field(4, "s",
            Struct({WithDefault(Field(5, "x", "int"), 7), Field(6, "y", "string"),
                    WithDefault(Field(7, "inner", Struct({WithDefault(Field(8, "z", "long"), 9)})), json::object()),
                    Field(9, "n", Struct({WithDefault(Field(10, "w", "int"), 1)})),
                    Field(11, "l", json{{"type", "list"}, {"element-id", 12}, {"element", "int"},
                                        {"element-required", false}})})),
      json::object());
  json t = Field(13, "t", Struct({WithDefault(Field(14, "a", "int"), 3)}));
  auto rows = ScanEvolved(dir, Evolve(v7, {Schema(1, {Field(1, "id", "int"), s, t})}));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const json sv = {{"x", 7}, {"y", nullptr}, {"inner", {{"z", 9}}}, {"n", nullptr}, {"l", nullptr}};
  EXPECT_EQ(Dumped(*rows), Dumped({json{{"id", 4}, {"s", sv}, {"t", nullptr}}, json{{"id", 5}, {"s", sv}, {"t", nullptr}}}));

  // A struct default with field values, and a non-null list default, are refused by name.
  json bad = WithDefault(Field(4, "s", Struct({Field(5, "x", "int")})), json{{"x", 1}});
  auto refused = ScanEvolved(dir, Evolve(v7, {Schema(1, {Field(1, "id", "int"), bad})}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kCorruption) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("initial-default of struct 's'"), std::string::npos)
      << refused.status().ToString();
  json list = WithDefault(Field(4, "l", json{{"type", "list"}, {"element-id", 5}, {"element", "int"},
                                            {"element-required", false}}),
                          json::array({1, 2}));
  refused = ScanEvolved(dir, Evolve(v7, {Schema(1, {Field(1, "id", "int"), list})}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kNotSupported) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("column 'l'"), std::string::npos) << refused.status().ToString();
}

// duckdb-iceberg's add_columns_with_defaults_in_struct (v2): struct `a` whose files hold
// only a.col1; fields 3..16 were added to `a` later with initial-defaults of every type.
const char* kInStruct =
    "/duckdb-iceberg/data/persistent/add_columns_with_defaults_in_struct/default.db/"
    "add_columns_with_defaults_in_struct/metadata/00003-21a957f9-c2ee-431a-9d18-bf257b561198.metadata.json";

TEST(IcebergEvolution, StructInitialDefaultUnderAStructTheFileHas) {
  TempDir dir;
  const json m = ReadJson(Corpus() + kInStruct);
  auto base = ScanEvolved(dir, m);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  // a.sub {} : k default 5, v no default; a.nul (null default) : q default 1.
  json schema;
  for (const json& s : m["schemas"]) {
    if (s["schema-id"] == m["current-schema-id"]) schema = s;
  }
  schema["schema-id"] = 2;
  json& a = schema["fields"][0]["type"]["fields"];
  a.push_back(WithDefault(Field(17, "sub", Struct({WithDefault(Field(18, "k", "int"), 5), Field(19, "v", "string")})),
                          json::object()));
  a.push_back(Field(20, "nul", Struct({WithDefault(Field(21, "q", "int"), 1)})));
  auto rows = ScanEvolved(dir, Evolve(m, {schema}));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<json> expected = *base;
  for (json& r : expected) {
    if (r["a"].is_null()) continue;
    r["a"]["sub"] = {{"k", 5}, {"v", nullptr}};
    r["a"]["nul"] = nullptr;
  }
  ASSERT_EQ(expected.size(), 2u);
  EXPECT_EQ(Dumped(*rows), Dumped(expected));
}

}  // namespace
}  // namespace lithify::iceberg
