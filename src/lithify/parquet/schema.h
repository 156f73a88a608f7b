// Schema: the Parquet schema tree with per-leaf level information.
//
// Built from the flattened, depth-first SchemaElement list of a footer (or constructed
// by a writer) and validated once; afterwards immutable and safe to share across
// threads. Nodes are addressed by index into nodes(); node 0 is the root. Leaves
// (primitive columns) are also numbered 0..num_leaves()-1 in schema order; that number
// is the column-chunk index in every row group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/metadata.h"

namespace lithify::parquet {

// How a node reads logically, after applying the format's LIST/MAP backward-
// compatibility rules (LogicalTypes.md "Nested Types").
enum class NodeKind {
  kPrimitive,  // a leaf value
  kStruct,     // a group whose children are fields
  kList,       // a LIST: element_node is the element (its repeated ancestor handled)
  kMap,        // a MAP: key_node / value_node (value_node may be -1 for key-only)
};

struct SchemaNode {
  SchemaElement element;        // as in the footer
  std::string name;             // == element.name
  Repetition repetition = Repetition::kRequired;  // root: kRequired
  int parent = -1;
  std::vector<int> children;
  // Levels of this node itself (a value here is defined when def level >= max_def).
  int16_t max_def = 0;
  int16_t max_rep = 0;
  int leaf_index = -1;          // >= 0 for primitive leaves
  // Logical interpretation (see NodeKind). For kList: element_node is the node holding
  // each element and repeated_node the repeated group/field that marks entries. For
  // kMap: repeated_node is the repeated key_value group.
  // A bare repeated field (not the middle level of a LIST/MAP; LogicalTypes.md: "a
  // required list of required elements") is kList with repeated_node == element_node ==
  // the node itself: its element reads as the node taken once (a primitive for a leaf,
  // a struct of its children for a group). A non-root element without repetition_type
  // reads as kRequired; a LIST/MAP annotation whose shape fits no compatibility rule is
  // ignored (the group reads as kStruct).
  NodeKind kind = NodeKind::kPrimitive;
  int repeated_node = -1;
  int element_node = -1;
  int key_node = -1;
  int value_node = -1;
  bool is_leaf() const { return leaf_index >= 0; }
};

struct ColumnDescriptor {
  int node = 0;                  // index into Schema::nodes()
  std::vector<std::string> path; // names from the root's child down to the leaf
  std::string dotted_path;       // path joined with '.'
  PhysicalType physical_type = PhysicalType::kInt32;
  int32_t type_length = 0;       // FIXED_LEN_BYTE_ARRAY width, else 0
  int16_t max_def = 0;
  int16_t max_rep = 0;
  // The highest def level at which the repeated ancestor chain is defined (levels
  // above repeated ancestors); used by record assembly.
  const SchemaElement* element = nullptr;  // points into the owning Schema
};

class Schema {
 public:
  // Validates and builds. Corruption for an inconsistent tree (num_children past the
  // end, a leaf without type, a group with a type, FIXED_LEN_BYTE_ARRAY without a
  // positive type_length, depth above 64, ...).
  static Result<Schema> FromElements(std::vector<SchemaElement> elements);

  Schema() = default;
  Schema(const Schema&);
  Schema& operator=(const Schema&);
  Schema(Schema&&) noexcept = default;
  Schema& operator=(Schema&&) noexcept = default;

  const std::vector<SchemaNode>& nodes() const { return nodes_; }
  const SchemaNode& node(int i) const { return nodes_[i]; }
  const SchemaNode& root() const { return nodes_[0]; }
  int num_leaves() const { return static_cast<int>(leaves_.size()); }
  const ColumnDescriptor& leaf(int i) const { return leaves_[i]; }
  // Leaves under node `n` (inclusive), in order.
  std::vector<int> LeavesUnder(int n) const;
  // The root's direct children: the top-level fields.
  const std::vector<int>& top_level_fields() const { return nodes_[0].children; }

  // Footer form (depth-first, root first).
  std::vector<SchemaElement> ToElements() const;

  // Resolves "a", "a.b.c" to a node: first an exact dotted leaf path, then a top-level
  // field, then a nested field path. NotFound naming the column otherwise.
  Result<int> FindNode(std::string_view dotted) const;

 private:
  void RebuildPointers();
  std::vector<SchemaNode> nodes_;
  std::vector<ColumnDescriptor> leaves_;
};

}  // namespace lithify::parquet
