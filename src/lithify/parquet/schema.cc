// Schema construction and the LIST/MAP backward-compatibility classification.
//
// Decisions worth knowing (also summarised in schema.h):
//  * A non-root element without repetition_type is read as REQUIRED. Some old writers
//    omit it; every mainstream reader treats it that way rather than rejecting the file.
//  * A LIST/MAP annotation on a group whose shape does not fit any rule (no single
//    repeated child, a key_value group with more than two fields, ...) is ignored and
//    the group reads as a plain struct; its repeated children then become bare lists.
//    Readers disagree here; degrading keeps the data readable.
//  * A repeated field that is not the middle level of a LIST/MAP is a "bare" list:
//    kind == kList with repeated_node == element_node == the field itself.
#include "lithify/parquet/schema.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"

namespace lithify::parquet {
namespace {

bool IsGroupElement(const SchemaElement& e) {
  // A leaf that carries num_children == 0 (some writers emit it) is still a leaf.
  return e.num_children.has_value() && (*e.num_children > 0 || !e.type.has_value());
}

bool HasListAnnotation(const SchemaElement& e) {
  return e.converted_type == ConvertedType::kList ||
         e.logical_type.kind == LogicalType::Kind::kList;
}
bool HasMapAnnotation(const SchemaElement& e) {
  return e.converted_type == ConvertedType::kMap ||
         e.logical_type.kind == LogicalType::Kind::kMap;
}
bool HasMapKeyValueAnnotation(const SchemaElement& e) {
  return e.converted_type == ConvertedType::kMapKeyValue;
}

Status ValidateElement(const SchemaElement& e, size_t index, bool is_root) {
  if (e.repetition_type.has_value()) {
    auto r = static_cast<int32_t>(*e.repetition_type);
    if (r < 0 || r > 2) {
      return Status::Corruption("schema element {} ('{}'): invalid repetition {}", index,
                                e.name, r);
    }
  }
  if (e.num_children.has_value() && *e.num_children < 0) {
    return Status::Corruption("schema element {} ('{}'): negative num_children {}", index,
                              e.name, *e.num_children);
  }
  if (IsGroupElement(e)) {
    if (e.type.has_value() && !is_root) {
      return Status::Corruption("schema element {} ('{}'): a group with a physical type",
                                index, e.name);
    }
    return Status::OK();
  }
  if (is_root) {
    return Status::Corruption("schema root '{}' is not a group", e.name);
  }
  if (!e.type.has_value()) {
    return Status::Corruption("schema element {} ('{}'): a leaf without a physical type",
                              index, e.name);
  }
  auto t = static_cast<int32_t>(*e.type);
  if (t < 0 || t > static_cast<int32_t>(PhysicalType::kFixedLenByteArray)) {
    return Status::Corruption("schema element {} ('{}'): invalid physical type {}", index,
                              e.name, t);
  }
  if (*e.type == PhysicalType::kFixedLenByteArray &&
      (!e.type_length.has_value() || *e.type_length <= 0)) {
    return Status::Corruption(
        "schema element {} ('{}'): FIXED_LEN_BYTE_ARRAY without a positive type_length",
        index, e.name);
  }
  return Status::OK();
}

// Classifies a LIST-annotated group (LogicalTypes.md "Lists", incl. the backward-
// compatibility rules). Returns false when the shape fits no rule.
bool ClassifyList(std::vector<SchemaNode>& nodes, int n) {
  SchemaNode& list = nodes[n];
  if (list.children.size() != 1) return false;
  int rep = list.children[0];
  const SchemaNode& repeated = nodes[rep];
  if (repeated.repetition != Repetition::kRepeated) return false;
  int element = rep;  // 2-level unless rule 5 below says 3-level
  if (!repeated.is_leaf() && repeated.children.size() == 1) {
    const SchemaNode& only = nodes[repeated.children[0]];
    bool rule3 = only.repetition == Repetition::kRepeated;
    bool rule4 = repeated.name == "array" || repeated.name == list.name + "_tuple";
    if (!rule3 && !rule4) element = repeated.children[0];  // rule 5: 3-level
  }
  // Rules 1 (primitive) and 2 (several fields) keep element == rep.
  list.kind = NodeKind::kList;
  list.repeated_node = rep;
  list.element_node = element;
  return true;
}

// Classifies a MAP (or stray MAP_KEY_VALUE) group. Returns false when the shape fits
// no rule.
bool ClassifyMap(std::vector<SchemaNode>& nodes, int n) {
  SchemaNode& map = nodes[n];
  if (map.children.size() != 1) return false;
  int kv = map.children[0];
  const SchemaNode& key_value = nodes[kv];
  if (key_value.repetition != Repetition::kRepeated || key_value.is_leaf()) return false;
  if (key_value.children.empty() || key_value.children.size() > 2) return false;
  for (int c : key_value.children) {
    if (nodes[c].repetition == Repetition::kRepeated) return false;
  }
  map.kind = NodeKind::kMap;
  map.repeated_node = kv;
  map.key_node = key_value.children[0];
  map.value_node = key_value.children.size() == 2 ? key_value.children[1] : -1;
  return true;
}

// Nodes are in depth-first order, so parents are classified before their children and
// a child can see whether it is the middle level of its parent's LIST/MAP.
void ClassifyNodes(std::vector<SchemaNode>& nodes) {
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    SchemaNode& node = nodes[n];
    node.kind = node.is_leaf() ? NodeKind::kPrimitive : NodeKind::kStruct;
    if (n == 0) continue;
    const SchemaNode& parent = nodes[node.parent];
    bool middle_level = (parent.kind == NodeKind::kList || parent.kind == NodeKind::kMap) &&
                        parent.repeated_node == n;
    bool classified = false;
    if (!node.is_leaf()) {
      if (HasListAnnotation(node.element)) {
        classified = ClassifyList(nodes, n);
      } else if (HasMapAnnotation(node.element) ||
                 (HasMapKeyValueAnnotation(node.element) && !HasMapAnnotation(parent.element))) {
        classified = ClassifyMap(nodes, n);
      }
    }
    SchemaNode& self = nodes[n];  // ClassifyList/Map may not reallocate, but be explicit
    if (!classified && !middle_level && self.repetition == Repetition::kRepeated) {
      // A bare repeated field: a required list whose elements are this field itself.
      self.kind = NodeKind::kList;
      self.repeated_node = n;
      self.element_node = n;
    }
  }
}

struct Frame {
  int node;
  int remaining_children;
};

}  // namespace

Result<Schema> Schema::FromElements(std::vector<SchemaElement> elements) {
  if (elements.empty()) return Status::Corruption("empty schema");
  Schema schema;
  std::vector<SchemaNode>& nodes = schema.nodes_;
  nodes.reserve(elements.size());
  std::vector<Frame> stack;
  std::vector<int> depth;  // per node; the stack alone does not track it (a parent is
                           // popped as soon as its last child is seen)
  depth.reserve(elements.size());
  for (size_t i = 0; i < elements.size(); ++i) {
    bool is_root = i == 0;
    if (!is_root && stack.empty()) {
      return Status::Corruption("schema has {} elements but the root's tree ends after {}",
                                elements.size(), i);
    }
    LITHIFY_RETURN_NOT_OK(ValidateElement(elements[i], i, is_root));
    SchemaNode node;
    node.element = std::move(elements[i]);
    node.name = node.element.name;
    int idx = static_cast<int>(nodes.size());
    int node_depth = 0;
    if (!is_root) {
      node.repetition = node.element.repetition_type.value_or(Repetition::kRequired);
      Frame& top = stack.back();
      node.parent = top.node;
      node_depth = depth[top.node] + 1;
      if (node_depth > kMaxParquetSchemaNesting) {
        return Status::Corruption("schema nested deeper than {} levels", kMaxParquetSchemaNesting);
      }
      const SchemaNode& parent = nodes[top.node];
      bool repeated = node.repetition == Repetition::kRepeated;
      bool nullable = node.repetition != Repetition::kRequired;
      node.max_def = static_cast<int16_t>(parent.max_def + (nullable ? 1 : 0));
      node.max_rep = static_cast<int16_t>(parent.max_rep + (repeated ? 1 : 0));
      nodes[top.node].children.push_back(idx);
      if (--top.remaining_children == 0) stack.pop_back();
    }
    bool is_group = IsGroupElement(node.element);
    int num_children = is_group ? *node.element.num_children : 0;
    if (num_children > static_cast<int64_t>(elements.size() - i - 1)) {
      return Status::Corruption(
          "schema element {} ('{}'): num_children {} exceeds the {} remaining elements", i,
          node.name, num_children, elements.size() - i - 1);
    }
    if (!is_group) node.leaf_index = static_cast<int>(schema.leaves_.size());
    nodes.push_back(std::move(node));
    depth.push_back(node_depth);
    if (!is_group) {
      schema.leaves_.emplace_back();
      schema.leaves_.back().node = idx;
    }
    if (num_children > 0) stack.push_back({idx, num_children});
  }
  if (!stack.empty()) {
    return Status::Corruption("schema ended before group '{}' had all its children",
                              nodes[stack.back().node].name);
  }
  for (ColumnDescriptor& d : schema.leaves_) {
    const SchemaNode& leaf = nodes[d.node];
    for (int n = d.node; n > 0; n = nodes[n].parent) d.path.push_back(nodes[n].name);
    std::reverse(d.path.begin(), d.path.end());
    for (size_t k = 0; k < d.path.size(); ++k) {
      if (k) d.dotted_path += '.';
      d.dotted_path += d.path[k];
    }
    d.physical_type = *leaf.element.type;
    d.type_length =
        d.physical_type == PhysicalType::kFixedLenByteArray ? *leaf.element.type_length : 0;
    d.max_def = leaf.max_def;
    d.max_rep = leaf.max_rep;
  }
  ClassifyNodes(nodes);
  schema.RebuildPointers();
  return schema;
}

Schema::Schema(const Schema& o) : nodes_(o.nodes_), leaves_(o.leaves_) { RebuildPointers(); }

Schema& Schema::operator=(const Schema& o) {
  if (this != &o) {
    nodes_ = o.nodes_;
    leaves_ = o.leaves_;
    RebuildPointers();
  }
  return *this;
}

void Schema::RebuildPointers() {
  for (ColumnDescriptor& d : leaves_) d.element = &nodes_[d.node].element;
}

std::vector<int> Schema::LeavesUnder(int n) const {
  std::vector<int> out;
  if (n < 0 || n >= static_cast<int>(nodes_.size())) return out;
  // Depth-first numbering makes a subtree a contiguous node range: walk it with a stack
  // (no recursion: depth is bounded anyway, but this is simpler to reason about).
  std::vector<int> stack{n};
  while (!stack.empty()) {
    int cur = stack.back();
    stack.pop_back();
    const SchemaNode& node = nodes_[cur];
    if (node.is_leaf()) out.push_back(node.leaf_index);
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) {
      stack.push_back(*it);
    }
  }
  return out;
}

std::vector<SchemaElement> Schema::ToElements() const {
  std::vector<SchemaElement> out;
  out.reserve(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    SchemaElement e = nodes_[i].element;
    // Normalise what the reader inferred so the written footer is explicit.
    if (i > 0) e.repetition_type = nodes_[i].repetition;
    if (!nodes_[i].is_leaf()) e.num_children = static_cast<int32_t>(nodes_[i].children.size());
    out.push_back(std::move(e));
  }
  return out;
}

Result<int> Schema::FindNode(std::string_view dotted) const {
  if (nodes_.empty()) return Status::NotFound("no column '{}' (empty schema)", dotted);
  for (const ColumnDescriptor& d : leaves_) {
    if (d.dotted_path == dotted) return d.node;
  }
  for (int c : nodes_[0].children) {
    if (nodes_[c].name == dotted) return c;
  }
  int cur = 0;
  size_t pos = 0;
  while (pos <= dotted.size()) {
    size_t dot = dotted.find('.', pos);
    std::string_view part =
        dotted.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    int next = -1;
    for (int c : nodes_[cur].children) {
      if (nodes_[c].name == part) {
        next = c;
        break;
      }
    }
    if (next < 0) return Status::NotFound("no column '{}'", dotted);
    cur = next;
    if (dot == std::string_view::npos) return cur;
    pos = dot + 1;
  }
  return Status::NotFound("no column '{}'", dotted);
}

}  // namespace lithify::parquet
