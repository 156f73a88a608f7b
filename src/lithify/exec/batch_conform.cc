#include "lithify/exec/batch_conform.h"

#include <algorithm>

namespace lithify::exec {

namespace {

// The schema nodes from the top-level field down to the leaf.
std::vector<const parquet::SchemaNode*> PathNodes(const parquet::Schema& s, int leaf) {
  std::vector<const parquet::SchemaNode*> nodes;
  for (int n = s.leaf(leaf).node; n > 0; n = s.node(n).parent) nodes.push_back(&s.node(n));
  std::reverse(nodes.begin(), nodes.end());
  return nodes;
}

bool IsOptional(const parquet::SchemaNode* n) { return n->repetition == parquet::Repetition::kOptional; }
bool IsRepeated(const parquet::SchemaNode* n) { return n->repetition == parquet::Repetition::kRepeated; }

}  // namespace

Result<BatchConformer> BatchConformer::Make(const parquet::Schema& source,
                                            const std::vector<int>& source_leaves,
                                            const parquet::Schema& target) {
  if (static_cast<int>(source_leaves.size()) != target.num_leaves()) {
    return Status::InvalidArgument("conforming batches: {} source leaves for {} target leaves",
                                   source_leaves.size(), target.num_leaves());
  }
  BatchConformer c;
  c.target_ = &target;
  for (int t = 0; t < target.num_leaves(); ++t) {
    const int s = source_leaves[t];
    if (s < 0 || s >= source.num_leaves()) {
      return Status::InvalidArgument("conforming batches: source leaf {} out of range", s);
    }
    const parquet::ColumnDescriptor& sd = source.leaf(s);
    const parquet::ColumnDescriptor& td = target.leaf(t);
    if (sd.physical_type != td.physical_type || sd.type_length != td.type_length) {
      return Status::NotSupported("column '{}': read as physical type {} but written as {}", td.dotted_path,
                                  static_cast<int>(sd.physical_type), static_cast<int>(td.physical_type));
    }
    std::vector<const parquet::SchemaNode*> sn = PathNodes(source, s);
    std::vector<const parquet::SchemaNode*> tn = PathNodes(target, t);
    if (sn.size() != tn.size()) {
      return Status::NotSupported("column '{}': its nesting differs between the read and write schemas",
                                  td.dotted_path);
    }
    LeafMap m;
    m.target_leaf = t;
    m.def_map.assign(static_cast<size_t>(sd.max_def) + 1, -1);
    // Walk both paths together: every optional/repeated step adds one definition level.
    // Source level `o` (reached after o defined steps) means "defined down to the step
    // before this one, this step absent"; it maps to the target's level at the same
    // step only if the target may be absent there too.
    int16_t o = 0;
    int16_t f = 0;
    for (size_t i = 0; i < sn.size(); ++i) {
      if (IsRepeated(sn[i]) != IsRepeated(tn[i])) {
        return Status::NotSupported("column '{}': its nesting differs between the read and write schemas",
                                    td.dotted_path);
      }
      const bool s_opt = IsOptional(sn[i]) || IsRepeated(sn[i]);
      const bool t_opt = IsOptional(tn[i]) || IsRepeated(tn[i]);
      if (s_opt) {
        if (t_opt) m.def_map[o] = f;
        ++o;
      }
      if (t_opt) ++f;
    }
    m.def_map[o] = f;
    m.identity = sd.max_def == td.max_def;
    for (size_t d = 0; d < m.def_map.size() && m.identity; ++d) {
      m.identity = m.def_map[d] == static_cast<int16_t>(d);
    }
    c.maps_.push_back(std::move(m));
  }
  return c;
}

Result<parquet::RowBatch> BatchConformer::Conform(parquet::RowBatch in) const {
  if (in.columns.size() != maps_.size()) {
    return Status::Internal("conforming batches: {} columns for {} leaves", in.columns.size(), maps_.size());
  }
  parquet::RowBatch out;
  out.num_rows = in.num_rows;
  out.first_row_index = in.first_row_index;
  out.columns.reserve(maps_.size());
  for (size_t i = 0; i < maps_.size(); ++i) {
    const LeafMap& m = maps_[i];
    parquet::ColumnData c = std::move(in.columns[i]);
    const parquet::ColumnDescriptor& td = target_->leaf(m.target_leaf);
    if (!m.identity && c.def_levels.empty() && td.max_def > 0) {
      // The source had no optional step at all: every level is the fully defined one.
      c.def_levels.assign(static_cast<size_t>(c.num_levels), m.def_map[0]);
    } else if (!m.identity) {
      for (int16_t& d : c.def_levels) {
        if (d < 0 || static_cast<size_t>(d) >= m.def_map.size() || m.def_map[d] < 0) {
          return Status::Corruption("column '{}' is NOT NULL in the table but holds a null", td.dotted_path);
        }
        d = m.def_map[d];
      }
      // A leaf whose every step is required carries no definition levels at all.
      if (td.max_def == 0) c.def_levels.clear();
    }
    c.leaf_index = m.target_leaf;
    c.descr = &td;
    out.columns.push_back(std::move(c));
  }
  return out;
}

}  // namespace lithify::exec
