// The file actions' field tables (action_fields.h) against the five pieces of code that
// use them: the JSON parser and writer, the fast commit scanner, and the checkpoint
// schema. The checkpoint reader is covered by the checkpoint tests (every corpus
// checkpoint extracts as its rendering parses).
#include "lithify/delta/action_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/delta/actions.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/live_files.h"

namespace lithify::delta {
namespace {

using parquet::FieldSpec;
using parquet::FieldType;

DeletionVectorDescriptor FullDv() {
  DeletionVectorDescriptor dv;
  dv.storage_type = 'p';
  dv.path_or_inline_dv = "s3://bucket/t/deletion_vector_1.bin";
  dv.offset = 4;
  dv.size_in_bytes = 40;
  dv.cardinality = 6;
  dv.max_row_index = 99;
  return dv;
}

// Every field of the tables set to a value other than its default.
AddFile FullAdd() {
  AddFile a;
  a.path = "p%3D1/f.parquet";
  a.partition_values = {{"p", "1"}, {"q", std::nullopt}};
  a.size = 1234;
  a.modification_time = 1700000000000;
  a.data_change = false;
  a.stats = R"({"numRecords":3})";
  a.tags = {{"ZCUBE_ID", "abc"}};
  a.deletion_vector = FullDv();
  a.base_row_id = 10;
  a.default_row_commit_version = 2;
  a.clustering_provider = "liquid";
  return a;
}

RemoveFile FullRemove() {
  RemoveFile r;
  r.path = "p%3D1/f.parquet";
  r.deletion_timestamp = 5;
  r.data_change = false;
  r.extended_file_metadata = true;
  r.partition_values = std::map<std::string, std::optional<std::string>>{{"p", "1"}};
  r.size = 1234;
  r.stats = R"({"numRecords":3})";
  r.tags = {{"k", "v"}};
  r.deletion_vector = FullDv();
  r.base_row_id = 10;
  r.default_row_commit_version = 2;
  return r;
}

std::vector<std::string> Names(std::span<const action_fields::Field> fields) {
  std::vector<std::string> out;
  for (const auto& f : fields) out.emplace_back(f.name);
  return out;
}

std::vector<std::string> Keys(const nlohmann::json& o) {
  std::vector<std::string> out;
  for (auto it = o.begin(); it != o.end(); ++it) out.push_back(it.key());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The JSON writer writes every field of the tables, and both parsers read each back.
TEST(ActionFields, EveryFieldIsWrittenAndReadByBothJsonParsers) {
  const AddFile add = FullAdd();
  const RemoveFile remove = FullRemove();
  const std::string add_line = ActionToJson(add), remove_line = ActionToJson(remove);
  const auto add_json = nlohmann::json::parse(add_line)["add"];
  const auto remove_json = nlohmann::json::parse(remove_line)["remove"];
  EXPECT_EQ(Keys(add_json), Sorted(Names(action_fields::kAddFields)));
  EXPECT_EQ(Keys(remove_json), Sorted(Names(action_fields::kRemoveFields)));
  EXPECT_EQ(Keys(add_json["deletionVector"]), Sorted(Names(action_fields::kDeletionVectorFields)));

  auto slow = ParseCommitFile(add_line + "\n" + remove_line + "\n", "00.json");
  auto fast = ParseCommitFileFast(add_line + "\n" + remove_line + "\n", "00.json");
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  ASSERT_EQ(slow->size(), 2u);
  EXPECT_EQ(std::get<AddFile>((*slow)[0]), add);
  EXPECT_EQ(std::get<RemoveFile>((*slow)[1]), remove);
  EXPECT_EQ(*fast, *slow);
}

// A JSON action without a field the table marks required is Corruption in both parsers
// (the fast scanner hands such a line to the slow parser), and one without an optional
// field is not.
TEST(ActionFields, RequiredFieldsAreRequiredByBothJsonParsers) {
  struct Case {
    const char* kind;
    std::span<const action_fields::Field> fields;
    const char* nested;  // the DV's fields live under "deletionVector"
  };
  const Case cases[] = {{"add", action_fields::kAddFields, nullptr},
                        {"remove", action_fields::kRemoveFields, nullptr},
                        {"add", action_fields::kDeletionVectorFields, "deletionVector"},
                        {"remove", action_fields::kDeletionVectorFields, "deletionVector"}};
  int required_seen = 0;
  for (const Case& c : cases) {
    for (const action_fields::Field& f : c.fields) {
      auto line = nlohmann::json::parse(std::string(c.kind) == "add" ? ActionToJson(FullAdd()) : ActionToJson(FullRemove()));
      auto& obj = c.nested ? line[c.kind][c.nested] : line[c.kind];
      obj.erase(std::string(f.name));
      const std::string text = line.dump() + "\n";
      auto slow = ParseCommitFile(text, "00.json");
      auto fast = ParseCommitFileFast(text, "00.json");
      SCOPED_TRACE(std::string(c.kind) + (c.nested ? "." + std::string(c.nested) : "") + "." + std::string(f.name));
      if (f.json_required) {
        ++required_seen;
        EXPECT_TRUE(slow.status().IsCorruption()) << slow.status().ToString();
        EXPECT_TRUE(fast.status().IsCorruption()) << fast.status().ToString();
      } else {
        ASSERT_TRUE(slow.ok()) << slow.status().ToString();
        ASSERT_TRUE(fast.ok()) << fast.status().ToString();
        EXPECT_EQ(*fast, *slow);
      }
    }
  }
  // add: path, size; remove: path; the DV's storageType, pathOrInlineDv, sizeInBytes and
  // cardinality (twice: under add and under remove).
  EXPECT_EQ(required_seen, 2 + 1 + 4 + 4);
}

const FieldSpec* Child(const FieldSpec& s, std::string_view name) {
  for (const FieldSpec& c : s.children) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

struct Expected {
  const char* name;
  FieldType type;
  bool nullable;
};

void ExpectStruct(const FieldSpec* s, const std::vector<Expected>& want) {
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->type, FieldType::kStruct);
  ASSERT_EQ(s->children.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(s->name + "." + want[i].name);
    EXPECT_EQ(s->children[i].name, want[i].name);
    EXPECT_EQ(s->children[i].type, want[i].type);
    EXPECT_EQ(s->children[i].nullable, want[i].nullable);
  }
}

// The checkpoint's add and remove structs, built from the tables, are Delta's checkpoint
// schema (PROTOCOL.md "Checkpoint Schema"), written out here in full: remove rows carry
// no stats, size and the DV's sizeInBytes / cardinality are never null.
TEST(ActionFields, CheckpointStructsAreDeltasCheckpointSchema) {
  const std::vector<FieldSpec> top = CheckpointSchemaFields();
  FieldSpec root = FieldSpec::Struct("root", top);
  const std::vector<Expected> dv = {{"storageType", FieldType::kString, true},
                                    {"pathOrInlineDv", FieldType::kString, true},
                                    {"offset", FieldType::kInt, true},
                                    {"sizeInBytes", FieldType::kInt, false},
                                    {"cardinality", FieldType::kLong, false},
                                    {"maxRowIndex", FieldType::kLong, true}};
  ExpectStruct(Child(root, "add"), {{"path", FieldType::kString, true},
                                    {"partitionValues", FieldType::kMap, true},
                                    {"size", FieldType::kLong, false},
                                    {"modificationTime", FieldType::kLong, false},
                                    {"dataChange", FieldType::kBoolean, false},
                                    {"stats", FieldType::kString, true},
                                    {"tags", FieldType::kMap, true},
                                    {"deletionVector", FieldType::kStruct, true},
                                    {"baseRowId", FieldType::kLong, true},
                                    {"defaultRowCommitVersion", FieldType::kLong, true},
                                    {"clusteringProvider", FieldType::kString, true}});
  ExpectStruct(Child(root, "remove"), {{"path", FieldType::kString, true},
                                       {"deletionTimestamp", FieldType::kLong, true},
                                       {"dataChange", FieldType::kBoolean, false},
                                       {"extendedFileMetadata", FieldType::kBoolean, true},
                                       {"partitionValues", FieldType::kMap, true},
                                       {"size", FieldType::kLong, true},
                                       {"tags", FieldType::kMap, true},
                                       {"deletionVector", FieldType::kStruct, true},
                                       {"baseRowId", FieldType::kLong, true},
                                       {"defaultRowCommitVersion", FieldType::kLong, true}});
  ExpectStruct(Child(*Child(root, "add"), "deletionVector"), dv);
  ExpectStruct(Child(*Child(root, "remove"), "deletionVector"), dv);
  ExpectStruct(Child(root, "metaData"), {{"id", FieldType::kString, true},
                                         {"name", FieldType::kString, true},
                                         {"description", FieldType::kString, true},
                                         {"format", FieldType::kStruct, true},
                                         {"schemaString", FieldType::kString, true},
                                         {"partitionColumns", FieldType::kList, true},
                                         {"configuration", FieldType::kMap, true},
                                         {"createdTime", FieldType::kLong, true}});
  ExpectStruct(Child(*Child(root, "metaData"), "format"),
               {{"provider", FieldType::kString, true}, {"options", FieldType::kMap, true}});
  ExpectStruct(Child(root, "protocol"), {{"minReaderVersion", FieldType::kInt, false},
                                         {"minWriterVersion", FieldType::kInt, false},
                                         {"readerFeatures", FieldType::kList, true},
                                         {"writerFeatures", FieldType::kList, true}});
  ExpectStruct(Child(root, "txn"), {{"appId", FieldType::kString, true},
                                    {"version", FieldType::kLong, false},
                                    {"lastUpdated", FieldType::kLong, true}});
  ExpectStruct(Child(root, "domainMetadata"), {{"domain", FieldType::kString, true},
                                               {"configuration", FieldType::kString, true},
                                               {"removed", FieldType::kBoolean, false}});
  std::vector<std::string> columns;
  for (const FieldSpec& c : top) columns.push_back(c.name);
  EXPECT_EQ(columns, (std::vector<std::string>{"txn", "add", "remove", "metaData", "protocol", "domainMetadata"}));
}

// The other actions: the JSON writer writes every field of their tables (all set), and the
// parser reads the line back as the same action.
TEST(ActionFields, OtherActionsWriteEveryTableField) {
  Metadata m;
  m.id = "id";
  m.name = "n";
  m.description = "d";
  m.format.options = {{"k", "v"}};
  m.schema_string = R"({"type":"struct","fields":[]})";
  m.partition_columns = {"p"};
  m.created_time = 7;
  m.configuration = {{"delta.appendOnly", "false"}};
  Protocol p{3, 7, std::vector<std::string>{"deletionVectors"}, std::vector<std::string>{"deletionVectors"}};
  Txn t{"app", 4, 9};
  DomainMetadata d{"delta.clustering", "{}", true};
  CheckpointMetadata c{12, {{"k", "v"}}};
  Sidecar sc{"a.parquet", 10, 11, {{"k", "v"}}};
  struct Case {
    Action action;
    std::string_view kind;
    std::span<const action_fields::Field> fields;
  };
  const Case cases[] = {{m, action_fields::kMetadataAction, action_fields::kMetadataFields},
                        {p, action_fields::kProtocolAction, action_fields::kProtocolFields},
                        {t, action_fields::kTxnAction, action_fields::kTxnFields},
                        {d, action_fields::kDomainMetadataAction, action_fields::kDomainMetadataFields},
                        {c, action_fields::kCheckpointMetadataAction, action_fields::kCheckpointMetadataFields},
                        {sc, action_fields::kSidecarAction, action_fields::kSidecarFields}};
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.kind));
    const std::string line = ActionToJson(k.action);
    const auto j = nlohmann::json::parse(line);
    ASSERT_TRUE(j.contains(std::string(k.kind)));
    EXPECT_EQ(Keys(j[std::string(k.kind)]), Sorted(Names(k.fields)));
    auto back = ParseActionLine(line);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_TRUE(back->has_value());
    EXPECT_EQ(**back, k.action);
  }
  EXPECT_EQ(Keys(nlohmann::json::parse(ActionToJson(m))["metaData"]["format"]),
            Sorted(Names(action_fields::kFormatFields)));
}

}  // namespace
}  // namespace lithify::delta
