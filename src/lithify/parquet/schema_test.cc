// Tests of Schema (tree building, levels, LIST/MAP classification per LogicalTypes.md)
// and of the column batch helpers (RowLevelStarts, FilterRows, ColumnValues).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "lithify/base/nesting.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet {
namespace {

constexpr auto kReq = Repetition::kRequired;
constexpr auto kOpt = Repetition::kOptional;
constexpr auto kRep = Repetition::kRepeated;

SchemaElement Root(int children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

SchemaElement Group(std::string name, Repetition rep, int children,
                    std::optional<ConvertedType> ct = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = rep;
  e.num_children = children;
  e.converted_type = ct;
  return e;
}

SchemaElement Leaf(std::string name, Repetition rep, PhysicalType type = PhysicalType::kInt32) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = rep;
  e.type = type;
  if (type == PhysicalType::kFixedLenByteArray) e.type_length = 16;
  return e;
}

Schema Build(std::vector<SchemaElement> elements) {
  auto r = Schema::FromElements(std::move(elements));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Schema();
}

int NodeByName(const Schema& s, const std::string& dotted) {
  auto r = s.FindNode(dotted);
  EXPECT_TRUE(r.ok()) << dotted << ": " << r.status().ToString();
  return r.ok() ? *r : -1;
}

TEST(SchemaTest, FlatLevelsAndLeafNumbering) {
  Schema s = Build({Root(3), Leaf("a", kReq), Leaf("b", kOpt, PhysicalType::kByteArray),
                    Leaf("c", kRep, PhysicalType::kInt64)});
  ASSERT_EQ(s.num_leaves(), 3);
  EXPECT_EQ(s.leaf(0).dotted_path, "a");
  EXPECT_EQ(s.leaf(0).max_def, 0);
  EXPECT_EQ(s.leaf(0).max_rep, 0);
  EXPECT_EQ(s.leaf(1).max_def, 1);
  EXPECT_EQ(s.leaf(1).max_rep, 0);
  EXPECT_EQ(s.leaf(1).physical_type, PhysicalType::kByteArray);
  EXPECT_EQ(s.leaf(2).max_def, 1);
  EXPECT_EQ(s.leaf(2).max_rep, 1);
  EXPECT_EQ(s.top_level_fields(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(s.node(1).kind, NodeKind::kPrimitive);
  // An unannotated repeated primitive is a required list of itself.
  const SchemaNode& c = s.node(3);
  EXPECT_EQ(c.kind, NodeKind::kList);
  EXPECT_EQ(c.repeated_node, 3);
  EXPECT_EQ(c.element_node, 3);
  EXPECT_EQ(s.leaf(2).element, &s.node(3).element);
}

TEST(SchemaTest, NestedLevelsAndPaths) {
  // optional group a { required group b { optional int32 c; repeated int32 d; } }
  Schema s = Build({Root(1), Group("a", kOpt, 1), Group("b", kReq, 2), Leaf("c", kOpt),
                    Leaf("d", kRep)});
  ASSERT_EQ(s.num_leaves(), 2);
  EXPECT_EQ(s.leaf(0).path, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(s.leaf(0).dotted_path, "a.b.c");
  EXPECT_EQ(s.leaf(0).max_def, 2);
  EXPECT_EQ(s.leaf(0).max_rep, 0);
  EXPECT_EQ(s.leaf(1).max_def, 2);
  EXPECT_EQ(s.leaf(1).max_rep, 1);
  EXPECT_EQ(s.node(1).kind, NodeKind::kStruct);
  EXPECT_EQ(s.node(2).max_def, 1);
  EXPECT_EQ(s.node(2).parent, 1);
  EXPECT_EQ(s.LeavesUnder(1), (std::vector<int>{0, 1}));
  EXPECT_EQ(s.LeavesUnder(4), (std::vector<int>{1}));
}

TEST(SchemaTest, StandardThreeLevelList) {
  // required group my_list (LIST) { repeated group list { optional binary element; } }
  Schema s = Build({Root(1), Group("my_list", kReq, 1, ConvertedType::kList),
                    Group("list", kRep, 1), Leaf("element", kOpt, PhysicalType::kByteArray)});
  const SchemaNode& l = s.node(1);
  EXPECT_EQ(l.kind, NodeKind::kList);
  EXPECT_EQ(l.repeated_node, 2);
  EXPECT_EQ(l.element_node, 3);
  // The middle level is not itself a list.
  EXPECT_NE(s.node(2).kind, NodeKind::kList);
  EXPECT_EQ(s.leaf(0).max_def, 2);
  EXPECT_EQ(s.leaf(0).max_rep, 1);
}

TEST(SchemaTest, ListViaLogicalTypeOnly) {
  SchemaElement list = Group("my_list", kOpt, 1);
  list.logical_type.kind = LogicalType::Kind::kList;
  Schema s = Build({Root(1), list, Group("list", kRep, 1), Leaf("element", kReq)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kList);
  EXPECT_EQ(s.node(1).element_node, 3);
  EXPECT_EQ(s.leaf(0).max_def, 2);
}

TEST(SchemaTest, ListOfLists) {
  Schema s = Build({Root(1), Group("array_of_arrays", kOpt, 1, ConvertedType::kList),
                    Group("list", kRep, 1), Group("element", kReq, 1, ConvertedType::kList),
                    Group("list", kRep, 1), Leaf("element", kReq)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kList);
  EXPECT_EQ(s.node(1).element_node, 3);
  EXPECT_EQ(s.node(3).kind, NodeKind::kList);
  EXPECT_EQ(s.node(3).element_node, 5);
  EXPECT_EQ(s.leaf(0).max_def, 3);
  EXPECT_EQ(s.leaf(0).max_rep, 2);
}

TEST(SchemaTest, BackCompatRule1RepeatedPrimitive) {
  // optional group my_list (LIST) { repeated int32 element; }
  Schema s = Build({Root(1), Group("my_list", kOpt, 1, ConvertedType::kList),
                    Leaf("element", kRep)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kList);
  EXPECT_EQ(s.node(1).repeated_node, 2);
  EXPECT_EQ(s.node(1).element_node, 2);
  // Handled as the list's middle level, so not a bare list of its own.
  EXPECT_EQ(s.node(2).kind, NodeKind::kPrimitive);
}

TEST(SchemaTest, BackCompatRule2GroupWithSeveralFields) {
  Schema s = Build({Root(1), Group("my_list", kOpt, 1, ConvertedType::kList),
                    Group("element", kRep, 2), Leaf("str", kReq, PhysicalType::kByteArray),
                    Leaf("num", kReq)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kList);
  EXPECT_EQ(s.node(1).element_node, 2);
  EXPECT_EQ(s.node(2).kind, NodeKind::kStruct);
}

TEST(SchemaTest, BackCompatRule3RepeatedChildListOfLists) {
  // optional group my_list (LIST) { repeated group array (LIST) { repeated int32 array; } }
  Schema s = Build({Root(1), Group("my_list", kOpt, 1, ConvertedType::kList),
                    Group("array", kRep, 1, ConvertedType::kList), Leaf("array", kRep)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kList);
  EXPECT_EQ(s.node(1).repeated_node, 2);
  EXPECT_EQ(s.node(1).element_node, 2);
  EXPECT_EQ(s.node(2).kind, NodeKind::kList);
  EXPECT_EQ(s.node(2).repeated_node, 3);
  EXPECT_EQ(s.node(2).element_node, 3);
  EXPECT_EQ(s.node(3).kind, NodeKind::kPrimitive);
  EXPECT_EQ(s.leaf(0).max_rep, 2);
}

TEST(SchemaTest, BackCompatRule3WithoutInnerAnnotation) {
  // A one-field repeated group whose field is repeated: the group is the element.
  Schema s = Build({Root(1), Group("my_list", kOpt, 1, ConvertedType::kList),
                    Group("element", kRep, 1), Leaf("inner", kRep)});
  EXPECT_EQ(s.node(1).element_node, 2);
  EXPECT_EQ(s.node(3).kind, NodeKind::kList);  // bare list inside the element struct
}

TEST(SchemaTest, BackCompatRule4ArrayAndTupleNames) {
  Schema a = Build({Root(1), Group("my_list", kOpt, 1, ConvertedType::kList),
                    Group("array", kRep, 1), Leaf("str", kReq, PhysicalType::kByteArray)});
  EXPECT_EQ(a.node(1).kind, NodeKind::kList);
  EXPECT_EQ(a.node(1).element_node, 2);
  EXPECT_EQ(a.node(2).kind, NodeKind::kStruct);
  Schema t = Build({Root(1), Group("my_list", kOpt, 1, ConvertedType::kList),
                    Group("my_list_tuple", kRep, 1),
                    Leaf("str", kReq, PhysicalType::kByteArray)});
  EXPECT_EQ(t.node(1).element_node, 2);
}

TEST(SchemaTest, BackCompatRule5OneFieldGroupIsThreeLevel) {
  Schema s = Build({Root(1), Group("my_list", kOpt, 1, ConvertedType::kList),
                    Group("element", kRep, 1), Leaf("str", kOpt, PhysicalType::kByteArray)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kList);
  EXPECT_EQ(s.node(1).repeated_node, 2);
  EXPECT_EQ(s.node(1).element_node, 3);
}

TEST(SchemaTest, BareRepeatedGroupIsRequiredListOfStructs) {
  // repeated group my_list { required int32 num; optional binary str; }
  Schema s = Build({Root(1), Group("my_list", kRep, 2), Leaf("num", kReq),
                    Leaf("str", kOpt, PhysicalType::kByteArray)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kList);
  EXPECT_EQ(s.node(1).repeated_node, 1);
  EXPECT_EQ(s.node(1).element_node, 1);
  EXPECT_EQ(s.node(2).kind, NodeKind::kPrimitive);
  EXPECT_EQ(s.leaf(0).max_def, 1);
  EXPECT_EQ(s.leaf(1).max_def, 2);
  EXPECT_EQ(s.leaf(1).max_rep, 1);
}

TEST(SchemaTest, MalformedListAnnotationFallsBackToStruct) {
  Schema s = Build({Root(1), Group("my_list", kOpt, 2, ConvertedType::kList), Leaf("a", kReq),
                    Leaf("b", kRep)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kStruct);
  EXPECT_EQ(s.node(3).kind, NodeKind::kList);  // its repeated child is a bare list
}

TEST(SchemaTest, StandardMap) {
  Schema s = Build({Root(1), Group("my_map", kReq, 1, ConvertedType::kMap),
                    Group("key_value", kRep, 2, ConvertedType::kMapKeyValue),
                    Leaf("key", kReq, PhysicalType::kByteArray), Leaf("value", kOpt)});
  const SchemaNode& m = s.node(1);
  EXPECT_EQ(m.kind, NodeKind::kMap);
  EXPECT_EQ(m.repeated_node, 2);
  EXPECT_EQ(m.key_node, 3);
  EXPECT_EQ(m.value_node, 4);
  // MAP_KEY_VALUE inside a MAP is just the middle level.
  EXPECT_EQ(s.node(2).kind, NodeKind::kStruct);
  EXPECT_EQ(s.leaf(0).max_def, 1);
  EXPECT_EQ(s.leaf(1).max_def, 2);
  EXPECT_EQ(s.leaf(1).max_rep, 1);
}

TEST(SchemaTest, MapWithMisnamedFieldsAndKeyOnly) {
  // optional group my_map (MAP) { repeated group map { required binary str; required int32 num; } }
  Schema s = Build({Root(2), Group("my_map", kOpt, 1, ConvertedType::kMap),
                    Group("map", kRep, 2), Leaf("str", kReq, PhysicalType::kByteArray),
                    Leaf("num", kReq), Group("set", kOpt, 1, ConvertedType::kMap),
                    Group("key_value", kRep, 1), Leaf("key", kReq)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kMap);
  EXPECT_EQ(s.node(1).key_node, 3);
  EXPECT_EQ(s.node(1).value_node, 4);
  EXPECT_EQ(s.node(5).kind, NodeKind::kMap);
  EXPECT_EQ(s.node(5).key_node, 7);
  EXPECT_EQ(s.node(5).value_node, -1);
}

TEST(SchemaTest, MapKeyValueOutsideMapIsAMap) {
  // optional group my_map (MAP_KEY_VALUE) { repeated group map { required binary key; optional int32 value; } }
  Schema s = Build({Root(1), Group("my_map", kOpt, 1, ConvertedType::kMapKeyValue),
                    Group("map", kRep, 2), Leaf("key", kReq, PhysicalType::kByteArray),
                    Leaf("value", kOpt)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kMap);
  EXPECT_EQ(s.node(1).repeated_node, 2);
  EXPECT_EQ(s.node(1).key_node, 3);
  EXPECT_EQ(s.node(1).value_node, 4);
}

TEST(SchemaTest, MapOfMapsAndListInsideMapValue) {
  Schema s = Build({Root(1), Group("m", kOpt, 1, ConvertedType::kMap),
                    Group("key_value", kRep, 2), Leaf("key", kReq, PhysicalType::kByteArray),
                    Group("value", kOpt, 1, ConvertedType::kMap), Group("key_value", kRep, 2),
                    Leaf("key", kReq), Leaf("value", kOpt, PhysicalType::kBoolean)});
  EXPECT_EQ(s.node(1).kind, NodeKind::kMap);
  EXPECT_EQ(s.node(4).kind, NodeKind::kMap);
  EXPECT_EQ(s.node(4).key_node, 6);
  EXPECT_EQ(s.leaf(2).max_def, 5);
  EXPECT_EQ(s.leaf(2).max_rep, 2);
  EXPECT_EQ(s.leaf(2).dotted_path, "m.key_value.value.key_value.value");
}

TEST(SchemaTest, MissingRepetitionReadsAsRequired) {
  SchemaElement a = Leaf("a", kReq);
  a.repetition_type.reset();
  Schema s = Build({Root(1), a});
  EXPECT_EQ(s.node(1).repetition, Repetition::kRequired);
  EXPECT_EQ(s.leaf(0).max_def, 0);
  auto back = s.ToElements();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].repetition_type, Repetition::kRequired);
}

TEST(SchemaTest, LeafWithZeroChildrenIsStillALeaf) {
  SchemaElement a = Leaf("a", kOpt);
  a.num_children = 0;
  Schema s = Build({Root(1), a});
  EXPECT_EQ(s.num_leaves(), 1);
}

TEST(SchemaTest, RejectsMalformedTrees) {
  auto corrupt = [](std::vector<SchemaElement> e) {
    auto r = Schema::FromElements(std::move(e));
    return !r.ok() && r.status().IsCorruption();
  };
  EXPECT_TRUE(corrupt({}));
  EXPECT_TRUE(corrupt({Root(2), Leaf("a", kReq)}));                 // children past end
  EXPECT_TRUE(corrupt({Root(1), Leaf("a", kReq), Leaf("b", kReq)}));  // trailing element
  SchemaElement untyped = Leaf("a", kReq);
  untyped.type.reset();
  EXPECT_TRUE(corrupt({Root(1), untyped}));
  SchemaElement flba = Leaf("f", kReq, PhysicalType::kFixedLenByteArray);
  flba.type_length = 0;
  EXPECT_TRUE(corrupt({Root(1), flba}));
  flba.type_length.reset();
  EXPECT_TRUE(corrupt({Root(1), flba}));
  SchemaElement typed_group = Group("g", kReq, 1);
  typed_group.type = PhysicalType::kInt32;
  EXPECT_TRUE(corrupt({Root(1), typed_group, Leaf("a", kReq)}));
  EXPECT_TRUE(corrupt({Leaf("root", kReq)}));  // root must be a group
  SchemaElement negative = Group("g", kReq, -1);
  EXPECT_TRUE(corrupt({Root(1), negative}));
  SchemaElement bad_type = Leaf("a", kReq);
  bad_type.type = static_cast<PhysicalType>(42);
  EXPECT_TRUE(corrupt({Root(1), bad_type}));
}

TEST(SchemaTest, DepthLimit) {
  auto nested = [](int depth) {
    std::vector<SchemaElement> e{Root(1)};
    for (int i = 0; i < depth; ++i) e.push_back(Group("g" + std::to_string(i), kOpt, 1));
    e.push_back(Leaf("x", kOpt));
    return e;
  };
  // The shared limit (base/nesting.h), iteratively checked while the tree is built.
  EXPECT_TRUE(Schema::FromElements(nested(kMaxParquetSchemaNesting - 1)).ok());  // leaf at the limit
  for (int depth : {kMaxParquetSchemaNesting, 20000, 100000}) {
    auto r = Schema::FromElements(nested(depth));
    ASSERT_FALSE(r.ok()) << depth;
    EXPECT_TRUE(r.status().IsCorruption());
    EXPECT_NE(r.status().message().find("nested deeper than 256 levels"), std::string::npos)
        << r.status().message();
  }
}

TEST(SchemaTest, CopyFixesElementPointers) {
  Schema copy;
  {
    Schema s = Build({Root(2), Leaf("a", kReq), Leaf("b", kOpt)});
    copy = s;
    Schema copy2(s);
    EXPECT_EQ(copy2.leaf(1).element, &copy2.node(2).element);
  }
  ASSERT_EQ(copy.num_leaves(), 2);
  EXPECT_EQ(copy.leaf(1).element, &copy.node(2).element);
  EXPECT_EQ(copy.leaf(1).element->name, "b");
  Schema moved = std::move(copy);
  EXPECT_EQ(moved.leaf(0).element, &moved.node(1).element);
}

TEST(SchemaTest, FindNode) {
  Schema s = Build({Root(3), Group("a", kOpt, 2), Leaf("b", kReq), Group("c", kOpt, 1),
                    Leaf("d", kOpt), Leaf("x.y", kOpt), Leaf("e", kReq)});
  EXPECT_EQ(NodeByName(s, "a"), 1);
  EXPECT_EQ(NodeByName(s, "a.b"), 2);
  EXPECT_EQ(NodeByName(s, "a.c"), 3);
  EXPECT_EQ(NodeByName(s, "a.c.d"), 4);
  EXPECT_EQ(NodeByName(s, "x.y"), 5);  // a top-level name containing a dot
  EXPECT_EQ(NodeByName(s, "e"), 6);
  for (const char* missing : {"z", "a.z", "a.b.c", "", "a."}) {
    auto r = s.FindNode(missing);
    ASSERT_FALSE(r.ok()) << missing;
    EXPECT_TRUE(r.status().IsNotFound());
    EXPECT_NE(r.status().message().find(std::string("'") + missing + "'"), std::string::npos);
  }
  EXPECT_EQ(s.LeavesUnder(0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(s.LeavesUnder(3), (std::vector<int>{1}));
}

TEST(SchemaTest, ToElementsRoundTrips) {
  std::vector<SchemaElement> in{Root(2), Group("m", kOpt, 1, ConvertedType::kMap),
                                Group("key_value", kRep, 2),
                                Leaf("key", kReq, PhysicalType::kByteArray),
                                Leaf("value", kOpt, PhysicalType::kFixedLenByteArray),
                                Leaf("z", kReq, PhysicalType::kDouble)};
  Schema s = Build(in);
  EXPECT_EQ(s.ToElements(), in);
  Schema again = Build(s.ToElements());
  EXPECT_EQ(again.num_leaves(), 3);
  EXPECT_EQ(again.leaf(1).type_length, 16);
}

// ------------------------------------------------------------------ column batches

ColumnValues Int32Values(const std::vector<int32_t>& v) {
  ColumnValues out;
  out.type = PhysicalType::kInt32;
  for (int32_t x : v) out.fixed.AppendValue(x);
  out.count = static_cast<int64_t>(v.size());
  return out;
}

std::vector<int32_t> Ints(const ColumnValues& v) {
  std::vector<int32_t> out;
  for (int64_t i = 0; i < v.count; ++i) out.push_back(v.value<int32_t>(i));
  return out;
}

ColumnValues Strings(const std::vector<std::string>& v) {
  ColumnValues out;
  out.type = PhysicalType::kByteArray;
  out.offsets.push_back(0);
  for (const auto& s : v) {
    out.data.Append(s);
    out.offsets.push_back(static_cast<int64_t>(out.data.size()));
  }
  out.count = static_cast<int64_t>(v.size());
  return out;
}

std::vector<std::string> StringList(const ColumnValues& v) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < v.count; ++i) out.emplace_back(v.binary(i));
  return out;
}

TEST(ColumnBatchTest, WidthsAndAppendRange) {
  ColumnValues v;
  v.type = PhysicalType::kInt96;
  EXPECT_EQ(v.width(), 12u);
  v.type = PhysicalType::kFixedLenByteArray;
  v.type_length = 7;
  EXPECT_EQ(v.width(), 7u);
  v.type = PhysicalType::kBoolean;
  EXPECT_EQ(v.width(), 1u);
  v.type = PhysicalType::kByteArray;
  EXPECT_EQ(v.width(), 0u);

  ColumnValues s = Strings({"a", "bb", "", "dddd"});
  ColumnValues t;
  t.type = PhysicalType::kByteArray;
  t.AppendRange(s, 1, 3);
  t.AppendRange(s, 3, 4);
  t.AppendRange(s, 0, 1);
  EXPECT_EQ(StringList(t), (std::vector<std::string>{"bb", "", "dddd", "a"}));
  EXPECT_EQ(t.offsets.front(), 0);
  t.Clear();
  EXPECT_EQ(t.count, 0);
  EXPECT_TRUE(t.offsets.empty());

  ColumnValues i = Int32Values({1, 2, 3, 4});
  ColumnValues j;
  j.AppendRange(i, 2, 4);
  j.AppendRange(i, 0, 1);
  EXPECT_EQ(Ints(j), (std::vector<int32_t>{3, 4, 1}));
}

TEST(ColumnBatchTest, RowLevelStartsFlatAndRepeated) {
  ColumnData flat;
  flat.num_levels = 3;
  EXPECT_EQ(RowLevelStarts(flat, 3), (std::vector<int64_t>{0, 1, 2, 3}));
  ColumnData rep;
  rep.rep_levels = {0, 1, 1, 0, 0, 1};
  rep.num_levels = 6;
  EXPECT_EQ(RowLevelStarts(rep, 3), (std::vector<int64_t>{0, 3, 4, 6}));
}

TEST(ColumnBatchTest, FilterRowsFlatOptional) {
  ColumnDescriptor d;
  d.max_def = 1;
  RowBatch b;
  b.num_rows = 5;
  b.first_row_index = 10;
  ColumnData c;
  c.descr = &d;
  c.num_levels = 5;
  c.def_levels = {1, 0, 1, 1, 0};  // values 10, _, 30, 40, _
  c.values = Int32Values({10, 30, 40});
  b.columns.push_back(std::move(c));
  ColumnData s;  // required strings, no descriptor needed
  s.num_levels = 5;
  s.values = Strings({"r0", "r1", "r2", "r3", "r4"});
  b.columns.push_back(std::move(s));

  FilterRows(&b, {true, false, false, true, true});
  EXPECT_EQ(b.num_rows, 3);
  EXPECT_EQ(b.first_row_index, -1);
  EXPECT_EQ(b.columns[0].def_levels, (std::vector<int16_t>{1, 1, 0}));
  EXPECT_EQ(b.columns[0].num_levels, 3);
  EXPECT_EQ(Ints(b.columns[0].values), (std::vector<int32_t>{10, 40}));
  EXPECT_EQ(StringList(b.columns[1].values), (std::vector<std::string>{"r0", "r3", "r4"}));
  EXPECT_EQ(b.columns[1].num_levels, 3);
}

TEST(ColumnBatchTest, FilterRowsNested) {
  // optional list of optional int: rows [1, null, 2], null, [], [3], [4, 5]
  ColumnDescriptor d;
  d.max_def = 3;
  d.max_rep = 1;
  RowBatch b;
  b.num_rows = 5;
  ColumnData c;
  c.descr = &d;
  c.rep_levels = {0, 1, 1, 0, 0, 0, 0, 1};
  c.def_levels = {3, 2, 3, 0, 1, 3, 3, 3};
  c.num_levels = 8;
  c.values = Int32Values({1, 2, 3, 4, 5});
  b.columns.push_back(std::move(c));
  EXPECT_EQ(RowLevelStarts(b.columns[0], 5), (std::vector<int64_t>{0, 3, 4, 5, 6, 8}));

  FilterRows(&b, {false, true, true, false, true});
  ASSERT_EQ(b.num_rows, 3);
  const ColumnData& out = b.columns[0];
  EXPECT_EQ(out.rep_levels, (std::vector<int16_t>{0, 0, 0, 1}));
  EXPECT_EQ(out.def_levels, (std::vector<int16_t>{0, 1, 3, 3}));
  EXPECT_EQ(out.num_levels, 4);
  EXPECT_EQ(Ints(out.values), (std::vector<int32_t>{4, 5}));

  // Dropping everything leaves an empty but consistent column.
  FilterRows(&b, {false, false, false});
  EXPECT_EQ(b.num_rows, 0);
  EXPECT_EQ(b.columns[0].num_levels, 0);
  EXPECT_EQ(b.columns[0].values.count, 0);
}

TEST(ColumnBatchTest, FilterRowsKeepAllPreservesData) {
  RowBatch b;
  b.num_rows = 2;
  ColumnData c;
  c.num_levels = 2;
  c.values = Int32Values({7, 8});
  b.columns.push_back(std::move(c));
  FilterRows(&b, {true, true});
  EXPECT_EQ(b.num_rows, 2);
  EXPECT_EQ(Ints(b.columns[0].values), (std::vector<int32_t>{7, 8}));
}

}  // namespace
}  // namespace lithify::parquet
