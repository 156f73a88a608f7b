// Checkpoint rows -> actions without JSON (see checkpoint_extract.h).
#include "lithify/delta/checkpoint_extract.h"

#include <algorithm>
#include <span>
#include <string_view>

#include "lithify/base/macros.h"
#include "lithify/delta/action_fields.h"
#include "lithify/delta/json_util.h"
#include "lithify/parquet/rows_json.h"

namespace lithify::delta {

namespace {

using parquet::ColumnData;
using parquet::NodeKind;
using parquet::PhysicalType;
using parquet::RowBatch;
using parquet::Schema;
using StringMap = std::map<std::string, std::string>;
using PartitionMap = std::map<std::string, std::optional<std::string>>;

// Walks one leaf column row by row. `lvl` is the first level of row `row` and `val` the
// number of values before it; Seek only moves forward, so a batch is walked once per
// leaf whatever the order of accesses within a row.
//
// Per batch, Reset also classifies the column so that the common shapes skip the walk:
// `flat` when row r is exactly level r (as many levels as the batch has rows, no
// repetition: every non-repeated column, and a map or list with at most one entry per
// row); then `no_values` when no level reaches max_def (every value of the batch is
// null: the row's value is absent without looking further) and `dense` when every level
// does (row r's value is value r). The classification counts the levels itself and
// trusts neither values.count nor the footer: a column whose counts disagree stays on
// the walking path, which reports the inconsistency where it always did.
struct Cursor {
  const ColumnData* col = nullptr;
  int16_t max_def = 0;
  int16_t max_rep = 0;
  int64_t row = 0, lvl = 0, val = 0;
  int64_t batch_rows = 0;
  bool classified = false;
  bool flat = false;
  bool no_values = false;
  bool dense = false;

  // Classification is lazy: a batch of adds never touches the other actions' columns.
  void Reset(const ColumnData* c, int64_t rows) {
    col = c;
    row = lvl = val = 0;
    batch_rows = rows;
    classified = false;
  }
  bool Flat() {
    if (!classified) Classify();
    return flat;
  }
  void Classify() {
    classified = true;
    flat = no_values = dense = false;
    const ColumnData* c = col;
    const int64_t n = c->num_levels;
    if (n != batch_rows) return;
    if (!c->rep_levels.empty()) {
      if (static_cast<int64_t>(c->rep_levels.size()) < n) return;
      int16_t any = 0;
      for (int64_t i = 0; i < n; ++i) any |= c->rep_levels[i];
      if (any != 0) return;
    }
    int64_t at_max = n;
    if (!c->def_levels.empty()) {
      if (static_cast<int64_t>(c->def_levels.size()) < n) return;
      const int16_t* d = c->def_levels.data();
      const int16_t m = max_def;
      int64_t count = 0;
      for (int64_t i = 0; i < n; ++i) count += d[i] == m;
      at_max = count;
    }
    if (at_max != c->values.count) return;  // inconsistent: the walk reports it
    flat = true;
    no_values = at_max == 0;
    dense = at_max == n;
  }
  // Flat columns only (Flat() was true): the definition level of row r, and the value
  // index of row r or -1 when it is null. Cannot fail: row r is level r, and the value
  // count was checked against the levels.
  int16_t flat_def(int64_t r) const { return col->def_levels.empty() ? max_def : col->def_levels[r]; }
  int64_t FlatValue(int64_t r) {
    if (no_values) return -1;
    if (dense) return r;
    if (flat_def(r) != max_def) return -1;
    const int16_t* d = col->def_levels.data();
    for (; row < r; ++row, ++lvl) val += d[lvl] == max_def;
    return val;
  }
  int16_t def(int64_t l) const { return col->def_levels.empty() ? max_def : col->def_levels[l]; }
  int16_t rep(int64_t l) const { return col->rep_levels.empty() ? 0 : col->rep_levels[l]; }
  Status Seek(int64_t r) {
    const int64_t n = col->num_levels;
    while (row < r) {
      if (lvl >= n) return Status::Corruption("column '{}' has fewer rows than the batch", Name());
      do {
        if (def(lvl) == max_def) ++val;
        ++lvl;
      } while (lvl < n && rep(lvl) > 0);
      ++row;
    }
    if (lvl >= n) return Status::Corruption("column '{}' has fewer rows than the batch", Name());
    return Status::OK();
  }
  // End of the current row's levels.
  int64_t RowEnd() const {
    int64_t e = lvl + 1;
    while (e < col->num_levels && rep(e) > 0) ++e;
    return e;
  }
  Status CheckValue(int64_t v) const {
    if (v >= col->values.count) return Status::Corruption("column '{}' has fewer values than its levels", Name());
    return Status::OK();
  }
  std::string_view Name() const { return col->descr ? std::string_view(col->descr->dotted_path) : "?"; }
};

enum class Want { kString, kInt, kBool, kStringMap, kStringList };

// How a file action's field (action_fields.h) is read; a deletion vector is a struct whose
// own fields are bound one by one, never as a whole.
constexpr Want WantOf(action_fields::Kind kind) {
  switch (kind) {
    case action_fields::Kind::kString: return Want::kString;
    case action_fields::Kind::kInt32:
    case action_fields::Kind::kInt64: return Want::kInt;
    case action_fields::Kind::kBool: return Want::kBool;
    case action_fields::Kind::kPartitionMap:
    case action_fields::Kind::kTagMap: return Want::kStringMap;
    case action_fields::Kind::kStringList: return Want::kStringList;
    case action_fields::Kind::kDeletionVector:
    case action_fields::Kind::kFormat: break;  // structs: bound field by field (Bind)
  }
  return Want::kString;
}

// A field of an action struct bound to its cursor(s); absent fields have a < 0.
struct Field {
  std::string_view name;  // a literal (the field tables or the binding code)
  int a = -1;   // primitive / map key / list element cursor
  int b = -1;   // map value cursor
  int node = -1;
  int16_t map_def = 0;    // maps: definition level of a present map
  int16_t entry_def = 0;  // maps: definition level of a present entry
  bool present() const { return a >= 0; }
};

// A (possibly nested) struct bound to a presence cursor: the struct is non-null in a
// row when that leaf's first level reaches the struct's definition level.
struct StructRef {
  int node = -1;
  int presence = -1;  // cursor
  int16_t def = 0;
  bool present() const { return node >= 0; }
};

class Impl final : public CheckpointExtractor {
 public:
  Impl(const Schema& schema, bool read_stats) : schema_(schema), read_stats_(read_stats) {}

  bool Bind();
  const std::vector<int>& leaves() const override { return leaves_; }
  Status Extract(RowBatch* batch, const std::string& file, const Sink& sink, const AddSink* on_add,
                 const uint32_t* hints) override;
  bool AddPaths(const RowBatch& batch, std::vector<std::string_view>* paths) const override;

 private:
  // ---- binding
  int CursorFor(int leaf) {
    for (size_t i = 0; i < leaves_.size(); ++i) {
      if (leaves_[i] == leaf) return static_cast<int>(i);
    }
    leaves_.push_back(leaf);
    Cursor c;
    c.max_def = schema_.leaf(leaf).max_def;
    c.max_rep = schema_.leaf(leaf).max_rep;
    cursors_.push_back(c);
    return static_cast<int>(leaves_.size() - 1);
  }
  int Child(int node, std::string_view name) const {
    if (node < 0) return -1;
    for (int c : schema_.node(node).children) {
      if (schema_.node(c).name == name) return c;
    }
    return -1;
  }
  bool IsPrimitiveLeaf(int node, PhysicalType t1, PhysicalType t2) const {
    const auto& n = schema_.node(node);
    if (!n.is_leaf() || n.kind != NodeKind::kPrimitive || n.repetition == parquet::Repetition::kRepeated) return false;
    auto t = schema_.leaf(n.leaf_index).physical_type;
    return t == t1 || t == t2;
  }
  bool BindField(int parent, std::string_view name, Want want, Field* f);
  // A field of a file action's table (action_fields.h), by its enum value.
  bool BindActionField(int parent, std::span<const action_fields::Field> fields, int field, Field* f) {
    return BindField(parent, fields[field].name, WantOf(fields[field].kind), f);
  }
  bool BindStruct(int node, StructRef* s);

  // ---- extraction helpers (row r of the batch)
  Cursor& C(int i) { return cursors_[i]; }
  Status At(int cursor, int64_t r) { return cursors_[cursor].Seek(r); }
  Result<bool> StructPresent(const StructRef& s, int64_t r) {
    if (!s.present()) return false;
    if (C(s.presence).Flat()) return C(s.presence).flat_def(r) >= s.def;
    LITHIFY_RETURN_NOT_OK(At(s.presence, r));
    const Cursor& c = C(s.presence);
    return c.def(c.lvl) >= s.def;
  }
  Result<std::optional<std::string_view>> Str(const Field& f, int64_t r);
  Result<std::optional<int64_t>> Int(const Field& f, int64_t r);
  Result<std::optional<bool>> Bool(const Field& f, int64_t r);
  // nullopt when the map is null.
  Result<std::optional<PartitionMap>> Map(const Field& f, int64_t r);
  // The map's entries in stored order into `out`; false when the map is null.
  Result<bool> MapView(const Field& f, int64_t r, std::vector<MapEntryView>* out);
  // MapView when both of the map's columns are flat (at most one entry per row).
  Result<bool> FlatMapView(const Field& f, int64_t r, std::vector<MapEntryView>* out);

  // ---- the flat path: adds in a batch where every add column is flat (the usual
  // checkpoint), read without walking and without Result for the fields that cannot fail.
  bool AddColumnsFlat();
  int64_t FlatIndex(const Field& f, int64_t r) { return f.present() ? C(f.a).FlatValue(r) : -1; }
  std::optional<std::string_view> FlatStr(const Field& f, int64_t r) {
    const int64_t i = FlatIndex(f, r);
    if (i < 0) return std::nullopt;
    return C(f.a).col->values.binary(i);
  }
  std::optional<int64_t> FlatInt(const Field& f, int64_t r) {
    const int64_t i = FlatIndex(f, r);
    if (i < 0) return std::nullopt;
    const auto& v = C(f.a).col->values;
    if (v.type == PhysicalType::kInt32) return v.value<int32_t>(i);
    return v.value<int64_t>(i);
  }
  std::optional<bool> FlatBool(const Field& f, int64_t r) {
    const int64_t i = FlatIndex(f, r);
    if (i < 0) return std::nullopt;
    return C(f.a).col->values.fixed_at(i)[0] != 0;
  }
  Status FlatAddView(int64_t r, AddFileView* a);
  Result<std::optional<std::vector<std::string>>> List(const Field& f, int64_t r);

  Result<std::string> ReqString(const Field& f, int64_t r) {
    LITHIFY_ASSIGN_OR_RETURN(auto v, Str(f, r));
    if (!v) return Status::Corruption("missing field '{}'", f.name);
    return std::string(*v);
  }
  Result<std::optional<std::string>> OptString(const Field& f, int64_t r) {
    LITHIFY_ASSIGN_OR_RETURN(auto v, Str(f, r));
    if (!v) return std::optional<std::string>();
    return std::optional<std::string>(std::string(*v));
  }
  Result<int64_t> ReqInt(const Field& f, int64_t r) {
    LITHIFY_ASSIGN_OR_RETURN(auto v, Int(f, r));
    if (!v) return Status::Corruption("missing field '{}'", f.name);
    return *v;
  }
  Result<StringMap> MapNoNulls(const Field& f, int64_t r) {
    LITHIFY_ASSIGN_OR_RETURN(auto m, Map(f, r));
    StringMap out;
    if (m) {
      for (auto& [k, v] : *m) {
        if (v) out.emplace_hint(out.end(), k, std::move(*v));
      }
    }
    return out;
  }

  // Views into the batch and into the scratch members below (valid until the next row).
  Result<AddFileView> AddView(int64_t r);
  Result<AddFile> Add(int64_t r) {
    LITHIFY_ASSIGN_OR_RETURN(AddFileView v, AddView(r));
    return ToAddFile(v);
  }
  Result<RemoveFile> Remove(int64_t r);
  Result<Metadata> Meta(int64_t r);
  Result<Protocol> Proto(int64_t r);
  Result<Txn> TxnAt(int64_t r);
  Result<DomainMetadata> Domain(int64_t r);
  Result<CheckpointMetadata> CkptMeta(int64_t r);
  Result<Sidecar> SidecarAt(int64_t r);
  Result<std::optional<DeletionVectorDescriptor>> Dv(const StructRef& s, const Field* f, int64_t r);
  Status RenderStatsParsed(RowBatch* batch);

  const Schema& schema_;
  const bool read_stats_;
  std::vector<int> leaves_;
  std::vector<Cursor> cursors_;

  // Action structs in dispatch order (alphabetical, as the JSON object's keys).
  enum ActionKind { kAdd, kCheckpointMetadata, kDomainMetadata, kMetaData, kProtocol, kRemove, kSidecar, kTxn, kNumKinds };
  StructRef action_[kNumKinds];

  // add
  Field a_path_, a_pv_, a_size_, a_mtime_, a_dc_, a_stats_, a_tags_, a_brid_, a_drcv_, a_cp_;
  StructRef a_dv_;
  Field a_dv_f_[action_fields::kNumDvFields];
  std::vector<MapEntryView> a_pv_entries_, a_tag_entries_;
  const uint32_t* hints_ = nullptr;  // of the batch being extracted (Extract's argument)
  std::vector<int> add_cursors_;     // every cursor AddView reads
  AddFileView flat_add_;             // FlatAddView's output (views valid until the next row)
  int add_flat_state_ = -1;          // this batch: all of them are flat (1), not (0), unknown (-1)
  std::optional<DeletionVectorDescriptor> a_dv_value_;
  // stats_parsed: rendered separately, one JSON text per row (empty: null).
  int stats_parsed_node_ = -1;
  std::vector<int> stats_parsed_leaves_;  // schema leaves; projected after the others
  size_t first_stats_parsed_column_ = 0;
  std::vector<std::string> stats_parsed_json_;
  std::vector<bool> stats_parsed_valid_;
  // remove
  Field r_path_, r_dts_, r_dc_, r_efm_, r_pv_, r_size_, r_stats_, r_tags_, r_brid_, r_drcv_;
  StructRef r_dv_;
  Field r_dv_f_[action_fields::kNumDvFields];
  // metaData
  Field m_id_, m_name_, m_desc_, m_provider_, m_options_, m_schema_, m_pcols_, m_created_, m_conf_;
  StructRef m_format_;
  // protocol
  Field p_minr_, p_minw_, p_rf_, p_wf_;
  // txn
  Field t_app_, t_ver_, t_lu_;
  // domainMetadata
  Field d_domain_, d_conf_, d_removed_;
  // checkpointMetadata
  Field c_ver_, c_tags_;
  // sidecar
  Field s_path_, s_size_, s_mtime_, s_tags_;
};

bool Impl::BindField(int parent, std::string_view name, Want want, Field* f) {
  f->name = name;
  int node = Child(parent, name);
  if (node < 0) return true;  // absent column: the field reads as null
  f->node = node;
  const auto& n = schema_.node(node);
  switch (want) {
    case Want::kString:
      if (!IsPrimitiveLeaf(node, PhysicalType::kByteArray, PhysicalType::kByteArray)) return false;
      f->a = CursorFor(n.leaf_index);
      return true;
    case Want::kInt:
      if (!IsPrimitiveLeaf(node, PhysicalType::kInt32, PhysicalType::kInt64)) return false;
      f->a = CursorFor(n.leaf_index);
      return true;
    case Want::kBool:
      if (!IsPrimitiveLeaf(node, PhysicalType::kBoolean, PhysicalType::kBoolean)) return false;
      f->a = CursorFor(n.leaf_index);
      return true;
    case Want::kStringMap: {
      if (n.kind != NodeKind::kMap || n.repetition == parquet::Repetition::kRepeated ||
          n.repeated_node == node || n.key_node < 0 || n.value_node < 0) {
        return false;
      }
      const auto& k = schema_.node(n.key_node);
      const auto& v = schema_.node(n.value_node);
      if (!k.is_leaf() || !v.is_leaf() ||
          schema_.leaf(k.leaf_index).physical_type != PhysicalType::kByteArray ||
          schema_.leaf(v.leaf_index).physical_type != PhysicalType::kByteArray ||
          schema_.leaf(k.leaf_index).max_rep != 1 || schema_.leaf(v.leaf_index).max_rep != 1 ||
          k.repetition == parquet::Repetition::kRepeated || v.repetition == parquet::Repetition::kRepeated) {
        return false;
      }
      f->a = CursorFor(k.leaf_index);
      f->b = CursorFor(v.leaf_index);
      f->map_def = n.max_def;
      f->entry_def = schema_.node(n.repeated_node).max_def;
      return true;
    }
    case Want::kStringList: {
      if (n.kind != NodeKind::kList || n.repetition == parquet::Repetition::kRepeated ||
          n.repeated_node == node || n.element_node < 0) {
        return false;
      }
      const auto& e = schema_.node(n.element_node);
      if (!e.is_leaf() || schema_.leaf(e.leaf_index).physical_type != PhysicalType::kByteArray ||
          schema_.leaf(e.leaf_index).max_rep != 1) {
        return false;
      }
      f->a = CursorFor(e.leaf_index);
      return true;
    }
  }
  return false;
}

// A struct field (top-level action or nested) with a presence leaf. The presence leaf
// is the first leaf under it outside add.stats_parsed / partitionValues_parsed, so that
// it is projected anyway in the common case.
bool Impl::BindStruct(int node, StructRef* s) {
  if (node < 0) return true;
  const auto& n = schema_.node(node);
  if (n.kind != NodeKind::kStruct || n.repetition == parquet::Repetition::kRepeated || n.max_rep != 0) return false;
  for (int leaf : schema_.LeavesUnder(node)) {
    const auto& path = schema_.leaf(leaf).path;
    if (path.size() >= 2 && (path[1] == "stats_parsed" || path[1] == "partitionValues_parsed")) continue;
    s->node = node;
    s->def = n.max_def;
    s->presence = CursorFor(leaf);
    return true;
  }
  // Only skipped leaves: a present-but-empty struct cannot be told from null by them;
  // let the rendering path handle such a file.
  return false;
}

bool Impl::Bind() {
  // In Kind order.
  static constexpr std::string_view kNames[kNumKinds] = {
      action_fields::kAddAction,      action_fields::kCheckpointMetadataAction, action_fields::kDomainMetadataAction,
      action_fields::kMetadataAction, action_fields::kProtocolAction,           action_fields::kRemoveAction,
      action_fields::kSidecarAction,  action_fields::kTxnAction};
  int root = 0;
  bool any = false;
  for (int k = 0; k < kNumKinds; ++k) {
    int node = Child(root, kNames[k]);
    if (node < 0) continue;
    any = true;
    if (!BindStruct(node, &action_[k])) return false;
  }
  if (!any) return false;
  int add = action_[kAdd].node, rem = action_[kRemove].node;
  bool ok = true;
  using namespace action_fields;  // NOLINT
  // f[i] binds the descriptor's field i (DvField order).
  auto dv_fields = [&](int parent, std::string_view name, StructRef* s, Field* f) {
    int dv = Child(parent, name);
    ok = ok && BindStruct(dv, s);
    for (int i = 0; i < kNumDvFields; ++i) ok = ok && BindActionField(dv, kDeletionVectorFields, i, &f[i]);
  };
  auto add_field = [&](AddField field, Field* f) { ok = ok && BindActionField(add, kAddFields, field, f); };
  add_field(kAddPath, &a_path_);
  add_field(kAddPartitionValues, &a_pv_);
  add_field(kAddSize, &a_size_);
  add_field(kAddModificationTime, &a_mtime_);
  add_field(kAddDataChange, &a_dc_);
  if (read_stats_) add_field(kAddStats, &a_stats_);
  add_field(kAddTags, &a_tags_);
  add_field(kAddBaseRowId, &a_brid_);
  add_field(kAddDefaultRowCommitVersion, &a_drcv_);
  add_field(kAddClusteringProvider, &a_cp_);
  dv_fields(add, Name(kAddDeletionVector), &a_dv_, a_dv_f_);
  for (const Field* f : {&a_path_, &a_pv_, &a_size_, &a_mtime_, &a_dc_, &a_stats_, &a_tags_, &a_brid_, &a_drcv_, &a_cp_}) {
    if (f->a >= 0) add_cursors_.push_back(f->a);
    if (f->b >= 0) add_cursors_.push_back(f->b);
  }
  if (a_dv_.present()) add_cursors_.push_back(a_dv_.presence);

  auto remove_field = [&](RemoveField field, Field* f) { ok = ok && BindActionField(rem, kRemoveFields, field, f); };
  remove_field(kRemovePath, &r_path_);
  remove_field(kRemoveDeletionTimestamp, &r_dts_);
  remove_field(kRemoveDataChange, &r_dc_);
  remove_field(kRemoveExtendedFileMetadata, &r_efm_);
  remove_field(kRemovePartitionValues, &r_pv_);
  remove_field(kRemoveSize, &r_size_);
  if (read_stats_) remove_field(kRemoveStats, &r_stats_);
  remove_field(kRemoveTags, &r_tags_);
  remove_field(kRemoveBaseRowId, &r_brid_);
  remove_field(kRemoveDefaultRowCommitVersion, &r_drcv_);
  dv_fields(rem, Name(kRemoveDeletionVector), &r_dv_, r_dv_f_);

  const int meta = action_[kMetaData].node;
  auto meta_field = [&](MetadataField field, Field* f) { ok = ok && BindActionField(meta, kMetadataFields, field, f); };
  meta_field(kMetadataId, &m_id_);
  meta_field(kMetadataName, &m_name_);
  meta_field(kMetadataDescription, &m_desc_);
  const int format = Child(meta, Name(kMetadataFormat));
  ok = ok && BindStruct(format, &m_format_);
  ok = ok && BindActionField(format, kFormatFields, kFormatProvider, &m_provider_);
  ok = ok && BindActionField(format, kFormatFields, kFormatOptions, &m_options_);
  meta_field(kMetadataSchemaString, &m_schema_);
  meta_field(kMetadataPartitionColumns, &m_pcols_);
  meta_field(kMetadataCreatedTime, &m_created_);
  meta_field(kMetadataConfiguration, &m_conf_);

  const int proto = action_[kProtocol].node;
  auto proto_field = [&](ProtocolField field, Field* f) { ok = ok && BindActionField(proto, kProtocolFields, field, f); };
  proto_field(kProtocolMinReaderVersion, &p_minr_);
  proto_field(kProtocolMinWriterVersion, &p_minw_);
  proto_field(kProtocolReaderFeatures, &p_rf_);
  proto_field(kProtocolWriterFeatures, &p_wf_);

  const int txn = action_[kTxn].node;
  ok = ok && BindActionField(txn, kTxnFields, kTxnAppId, &t_app_);
  ok = ok && BindActionField(txn, kTxnFields, kTxnVersion, &t_ver_);
  ok = ok && BindActionField(txn, kTxnFields, kTxnLastUpdated, &t_lu_);

  const int dom = action_[kDomainMetadata].node;
  ok = ok && BindActionField(dom, kDomainMetadataFields, kDomainDomain, &d_domain_);
  ok = ok && BindActionField(dom, kDomainMetadataFields, kDomainConfiguration, &d_conf_);
  ok = ok && BindActionField(dom, kDomainMetadataFields, kDomainRemoved, &d_removed_);

  const int cm = action_[kCheckpointMetadata].node;
  ok = ok && BindActionField(cm, kCheckpointMetadataFields, kCheckpointMetadataVersion, &c_ver_);
  ok = ok && BindActionField(cm, kCheckpointMetadataFields, kCheckpointMetadataTags, &c_tags_);

  const int sc = action_[kSidecar].node;
  ok = ok && BindActionField(sc, kSidecarFields, kSidecarPath, &s_path_);
  ok = ok && BindActionField(sc, kSidecarFields, kSidecarSizeInBytes, &s_size_);
  ok = ok && BindActionField(sc, kSidecarFields, kSidecarModificationTime, &s_mtime_);
  ok = ok && BindActionField(sc, kSidecarFields, kSidecarTags, &s_tags_);
  if (!ok) return false;

  stats_parsed_node_ = read_stats_ ? Child(add, "stats_parsed") : -1;
  if (stats_parsed_node_ >= 0) {
    first_stats_parsed_column_ = leaves_.size();
    for (int leaf : schema_.LeavesUnder(stats_parsed_node_)) {
      stats_parsed_leaves_.push_back(leaf);
      leaves_.push_back(leaf);  // no cursor: rendered, not walked
    }
  }
  return true;
}

Result<std::optional<std::string_view>> Impl::Str(const Field& f, int64_t r) {
  if (!f.present()) return std::optional<std::string_view>();
  Cursor& fc = C(f.a);
  if (fc.Flat()) {
    const int64_t v = fc.FlatValue(r);
    if (v < 0) return std::optional<std::string_view>();
    return std::optional<std::string_view>(fc.col->values.binary(v));
  }
  LITHIFY_RETURN_NOT_OK(At(f.a, r));
  const Cursor& c = C(f.a);
  if (c.def(c.lvl) != c.max_def) return std::optional<std::string_view>();
  LITHIFY_RETURN_NOT_OK(c.CheckValue(c.val));
  return std::optional<std::string_view>(c.col->values.binary(c.val));
}

Result<std::optional<int64_t>> Impl::Int(const Field& f, int64_t r) {
  if (!f.present()) return std::optional<int64_t>();
  Cursor& fc = C(f.a);
  int64_t index;
  if (fc.Flat()) {
    index = fc.FlatValue(r);
    if (index < 0) return std::optional<int64_t>();
  } else {
    LITHIFY_RETURN_NOT_OK(At(f.a, r));
    if (fc.def(fc.lvl) != fc.max_def) return std::optional<int64_t>();
    LITHIFY_RETURN_NOT_OK(fc.CheckValue(fc.val));
    index = fc.val;
  }
  const auto& v = fc.col->values;
  if (v.type == PhysicalType::kInt32) return std::optional<int64_t>(v.value<int32_t>(index));
  return std::optional<int64_t>(v.value<int64_t>(index));
}

Result<std::optional<bool>> Impl::Bool(const Field& f, int64_t r) {
  if (!f.present()) return std::optional<bool>();
  Cursor& fc = C(f.a);
  if (fc.Flat()) {
    const int64_t v = fc.FlatValue(r);
    if (v < 0) return std::optional<bool>();
    return std::optional<bool>(fc.col->values.fixed_at(v)[0] != 0);
  }
  LITHIFY_RETURN_NOT_OK(At(f.a, r));
  const Cursor& c = C(f.a);
  if (c.def(c.lvl) != c.max_def) return std::optional<bool>();
  LITHIFY_RETURN_NOT_OK(c.CheckValue(c.val));
  return std::optional<bool>(c.col->values.fixed_at(c.val)[0] != 0);
}

Result<bool> Impl::FlatMapView(const Field& f, int64_t r, std::vector<MapEntryView>* out) {
  out->clear();
  Cursor& k = C(f.a);
  Cursor& v = C(f.b);
  const int16_t entry_def = f.entry_def;
  const int16_t d0 = k.flat_def(r);
  if (d0 < f.map_def) return false;
  if (d0 < entry_def) return true;  // empty map
  if (d0 != k.max_def) return Status::Corruption("map '{}' has an entry without a string key", f.name);
  MapEntryView e{k.col->values.binary(k.FlatValue(r)), std::nullopt};
  const int16_t vd = v.flat_def(r);
  if (vd < entry_def) return Status::Corruption("map '{}': key and value columns disagree on the entries", f.name);
  if (vd == v.max_def) e.value = v.col->values.binary(v.FlatValue(r));
  out->push_back(e);
  return true;
}

Result<bool> Impl::MapView(const Field& f, int64_t r, std::vector<MapEntryView>* out) {
  out->clear();
  if (!f.present()) return false;
  {
    // At most one entry per row in both columns (the usual single partition column,
    // or no tags at all): row r is level r.
    Cursor& k = C(f.a);
    Cursor& v = C(f.b);
    if (k.Flat() && v.Flat()) return FlatMapView(f, r, out);
  }
  LITHIFY_RETURN_NOT_OK(At(f.a, r));
  LITHIFY_RETURN_NOT_OK(At(f.b, r));
  const Cursor& k = C(f.a);
  const Cursor& v = C(f.b);
  const auto& node = schema_.node(f.node);
  const int16_t entry_def = schema_.node(node.repeated_node).max_def;
  int16_t d0 = k.def(k.lvl);
  if (d0 < node.max_def) return false;
  if (d0 < entry_def) return true;  // empty map
  const int64_t end = k.RowEnd();
  if (v.RowEnd() - v.lvl != end - k.lvl) {
    return Status::Corruption("map '{}': key and value columns disagree on the entries", f.name);
  }
  int64_t kv = k.val, vv = v.val;
  for (int64_t i = 0; i < end - k.lvl; ++i) {
    int16_t kd = k.def(k.lvl + i);
    if (kd < entry_def) return Status::Corruption("map '{}': null entry in a repeated row", f.name);
    if (kd != k.max_def) return Status::Corruption("map '{}' has an entry without a string key", f.name);
    LITHIFY_RETURN_NOT_OK(k.CheckValue(kv));
    MapEntryView e{k.col->values.binary(kv++), std::nullopt};
    int16_t vd = v.def(v.lvl + i);
    if (vd < entry_def) return Status::Corruption("map '{}': key and value columns disagree on the entries", f.name);
    if (vd == v.max_def) {
      LITHIFY_RETURN_NOT_OK(v.CheckValue(vv));
      e.value = v.col->values.binary(vv++);
    }
    out->push_back(e);  // duplicates kept: consumers take the last, as in JSON
  }
  return true;
}

Result<std::optional<PartitionMap>> Impl::Map(const Field& f, int64_t r) {
  std::vector<MapEntryView> entries;
  LITHIFY_ASSIGN_OR_RETURN(bool present, MapView(f, r, &entries));
  if (!present) return std::optional<PartitionMap>();
  PartitionMap out;
  for (const MapEntryView& e : entries) {
    out.insert_or_assign(std::string(e.key), e.value ? std::optional<std::string>(std::string(*e.value))
                                                     : std::nullopt);  // last wins, as in JSON
  }
  return std::optional<PartitionMap>(std::move(out));
}

Result<std::optional<std::vector<std::string>>> Impl::List(const Field& f, int64_t r) {
  if (!f.present()) return std::optional<std::vector<std::string>>();
  LITHIFY_RETURN_NOT_OK(At(f.a, r));
  const Cursor& e = C(f.a);
  const auto& node = schema_.node(f.node);
  const int16_t entry_def = schema_.node(node.repeated_node).max_def;
  int16_t d0 = e.def(e.lvl);
  if (d0 < node.max_def) return std::optional<std::vector<std::string>>();
  std::vector<std::string> out;
  if (d0 < entry_def) return std::optional<std::vector<std::string>>(std::move(out));
  const int64_t end = e.RowEnd();
  int64_t ev = e.val;
  for (int64_t l = e.lvl; l < end; ++l) {
    int16_t d = e.def(l);
    if (d < entry_def) return Status::Corruption("list '{}': null entry in a repeated row", f.name);
    if (d != e.max_def) return Status::Corruption("field '{}' has a non-string element", f.name);
    LITHIFY_RETURN_NOT_OK(e.CheckValue(ev));
    out.emplace_back(e.col->values.binary(ev++));
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<std::optional<DeletionVectorDescriptor>> Impl::Dv(const StructRef& s, const Field* f, int64_t r) {
  LITHIFY_ASSIGN_OR_RETURN(bool present, StructPresent(s, r));
  if (!present) return std::optional<DeletionVectorDescriptor>();
  using namespace action_fields;  // NOLINT
  LITHIFY_ASSIGN_OR_RETURN(std::string st, ReqString(f[kDvStorageType], r));
  LITHIFY_ASSIGN_OR_RETURN(std::string location, ReqString(f[kDvPathOrInlineDv], r));
  LITHIFY_ASSIGN_OR_RETURN(auto offset, Int(f[kDvOffset], r));
  LITHIFY_ASSIGN_OR_RETURN(int64_t size, ReqInt(f[kDvSizeInBytes], r));
  LITHIFY_ASSIGN_OR_RETURN(int64_t cardinality, ReqInt(f[kDvCardinality], r));
  LITHIFY_ASSIGN_OR_RETURN(auto max_row_index, Int(f[kDvMaxRowIndex], r));
  LITHIFY_ASSIGN_OR_RETURN(DeletionVectorDescriptor dv,
                           MakeDescriptor(st, std::move(location), offset, size, cardinality,
                                          max_row_index));
  return std::optional<DeletionVectorDescriptor>(std::move(dv));
}

bool Impl::AddColumnsFlat() {
  for (int c : add_cursors_) {
    if (!C(c).Flat()) return false;
  }
  return true;
}

// AddView's fields, in its order (so the first error is the same), for a batch whose
// add columns are all flat.
Status Impl::FlatAddView(int64_t r, AddFileView* out) {
  AddFileView& a = *out;
  a = AddFileView();
  std::optional<std::string_view> path = FlatStr(a_path_, r);
  if (!path) return Status::Corruption("missing field '{}'", a_path_.name);
  a.path = *path;
  a_pv_entries_.clear();
  if (a_pv_.present()) LITHIFY_RETURN_NOT_OK(FlatMapView(a_pv_, r, &a_pv_entries_).status());
  a.partition_values = a_pv_entries_;
  std::optional<int64_t> size = FlatInt(a_size_, r);
  if (!size) return Status::Corruption("missing field '{}'", a_size_.name);
  a.size = *size;
  a.modification_time = FlatInt(a_mtime_, r).value_or(0);
  a.data_change = FlatBool(a_dc_, r).value_or(true);
  a.stats = FlatStr(a_stats_, r);
  if (stats_parsed_node_ >= 0 && stats_parsed_valid_[r]) a.stats_parsed = stats_parsed_json_[r];
  a_tag_entries_.clear();
  if (a_tags_.present()) LITHIFY_RETURN_NOT_OK(FlatMapView(a_tags_, r, &a_tag_entries_).status());
  a.tags = a_tag_entries_;
  if (a_dv_.present() && C(a_dv_.presence).flat_def(r) >= a_dv_.def) {
    LITHIFY_ASSIGN_OR_RETURN(a_dv_value_, Dv(a_dv_, a_dv_f_, r));
  } else {
    a_dv_value_.reset();
  }
  a.deletion_vector = a_dv_value_ ? &*a_dv_value_ : nullptr;
  a.base_row_id = FlatInt(a_brid_, r);
  a.default_row_commit_version = FlatInt(a_drcv_, r);
  a.clustering_provider = FlatStr(a_cp_, r);
  if (a.size < 0) return Status::Corruption("add.size {} is negative", a.size);
  if (hints_ != nullptr) a.path_hint = hints_[r];
  return Status::OK();
}

Result<AddFileView> Impl::AddView(int64_t r) {
  AddFileView a;
  LITHIFY_ASSIGN_OR_RETURN(auto path, Str(a_path_, r));
  if (!path) return Status::Corruption("missing field '{}'", a_path_.name);
  a.path = *path;
  LITHIFY_ASSIGN_OR_RETURN(bool has_pv, MapView(a_pv_, r, &a_pv_entries_));
  (void)has_pv;  // a null map reads as empty
  a.partition_values = a_pv_entries_;
  LITHIFY_ASSIGN_OR_RETURN(a.size, ReqInt(a_size_, r));
  LITHIFY_ASSIGN_OR_RETURN(auto mtime, Int(a_mtime_, r));
  a.modification_time = mtime.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(auto dc, Bool(a_dc_, r));
  a.data_change = dc.value_or(true);
  LITHIFY_ASSIGN_OR_RETURN(a.stats, Str(a_stats_, r));
  if (stats_parsed_node_ >= 0 && stats_parsed_valid_[r]) a.stats_parsed = stats_parsed_json_[r];
  LITHIFY_ASSIGN_OR_RETURN(bool has_tags, MapView(a_tags_, r, &a_tag_entries_));
  (void)has_tags;
  a.tags = a_tag_entries_;
  LITHIFY_ASSIGN_OR_RETURN(a_dv_value_, Dv(a_dv_, a_dv_f_, r));
  a.deletion_vector = a_dv_value_ ? &*a_dv_value_ : nullptr;
  LITHIFY_ASSIGN_OR_RETURN(a.base_row_id, Int(a_brid_, r));
  LITHIFY_ASSIGN_OR_RETURN(a.default_row_commit_version, Int(a_drcv_, r));
  LITHIFY_ASSIGN_OR_RETURN(a.clustering_provider, Str(a_cp_, r));
  if (a.size < 0) return Status::Corruption("add.size {} is negative", a.size);
  if (hints_ != nullptr) a.path_hint = hints_[r];
  return a;
}

bool Impl::AddPaths(const RowBatch& batch, std::vector<std::string_view>* paths) const {
  paths->clear();
  const int64_t rows = batch.num_rows;
  if (!a_path_.present() || static_cast<size_t>(a_path_.a) >= batch.columns.size()) return false;
  const ColumnData& col = batch.columns[a_path_.a];
  const int16_t max_def = cursors_[a_path_.a].max_def;
  if (rows < 0 || col.num_levels != rows || !col.rep_levels.empty() || !col.values.is_byte_array()) return false;
  if (!col.def_levels.empty() && static_cast<int64_t>(col.def_levels.size()) < rows) return false;
  int64_t present = rows;
  if (!col.def_levels.empty()) {
    present = 0;
    for (int64_t r = 0; r < rows; ++r) present += col.def_levels[r] == max_def;
  }
  if (present != col.values.count) return false;
  paths->resize(static_cast<size_t>(rows));
  int64_t v = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const bool has = col.def_levels.empty() || col.def_levels[r] == max_def;
    (*paths)[r] = has ? col.values.binary(v++) : std::string_view();
  }
  return true;
}

Result<RemoveFile> Impl::Remove(int64_t r) {
  RemoveFile x;
  LITHIFY_ASSIGN_OR_RETURN(x.path, ReqString(r_path_, r));
  LITHIFY_ASSIGN_OR_RETURN(x.deletion_timestamp, Int(r_dts_, r));
  LITHIFY_ASSIGN_OR_RETURN(auto dc, Bool(r_dc_, r));
  x.data_change = dc.value_or(true);
  LITHIFY_ASSIGN_OR_RETURN(x.extended_file_metadata, Bool(r_efm_, r));
  LITHIFY_ASSIGN_OR_RETURN(x.partition_values, Map(r_pv_, r));
  LITHIFY_ASSIGN_OR_RETURN(x.size, Int(r_size_, r));
  LITHIFY_ASSIGN_OR_RETURN(x.stats, OptString(r_stats_, r));
  LITHIFY_ASSIGN_OR_RETURN(x.tags, MapNoNulls(r_tags_, r));
  LITHIFY_ASSIGN_OR_RETURN(x.deletion_vector, Dv(r_dv_, r_dv_f_, r));
  LITHIFY_ASSIGN_OR_RETURN(x.base_row_id, Int(r_brid_, r));
  LITHIFY_ASSIGN_OR_RETURN(x.default_row_commit_version, Int(r_drcv_, r));
  return x;
}

Result<Metadata> Impl::Meta(int64_t r) {
  Metadata m;
  LITHIFY_ASSIGN_OR_RETURN(m.id, ReqString(m_id_, r));
  LITHIFY_ASSIGN_OR_RETURN(m.name, OptString(m_name_, r));
  LITHIFY_ASSIGN_OR_RETURN(m.description, OptString(m_desc_, r));
  LITHIFY_ASSIGN_OR_RETURN(bool has_format, StructPresent(m_format_, r));
  if (has_format) {
    LITHIFY_ASSIGN_OR_RETURN(auto provider, OptString(m_provider_, r));
    if (provider) m.format.provider = std::move(*provider);
    LITHIFY_ASSIGN_OR_RETURN(m.format.options, MapNoNulls(m_options_, r));
  }
  LITHIFY_ASSIGN_OR_RETURN(auto schema, OptString(m_schema_, r));
  m.schema_string = schema.value_or("");
  LITHIFY_ASSIGN_OR_RETURN(auto pcols, List(m_pcols_, r));
  if (pcols) m.partition_columns = std::move(*pcols);
  LITHIFY_ASSIGN_OR_RETURN(m.created_time, Int(m_created_, r));
  LITHIFY_ASSIGN_OR_RETURN(m.configuration, MapNoNulls(m_conf_, r));
  return m;
}

Result<Protocol> Impl::Proto(int64_t r) {
  Protocol p;
  auto req32 = [&](const Field& f) -> Result<int32_t> {
    LITHIFY_ASSIGN_OR_RETURN(int64_t v, ReqInt(f, r));
    if (v < INT32_MIN || v > INT32_MAX) return Status::Corruption("field '{}' out of range", f.name);
    return static_cast<int32_t>(v);
  };
  LITHIFY_ASSIGN_OR_RETURN(p.min_reader_version, req32(p_minr_));
  LITHIFY_ASSIGN_OR_RETURN(p.min_writer_version, req32(p_minw_));
  LITHIFY_ASSIGN_OR_RETURN(p.reader_features, List(p_rf_, r));
  LITHIFY_ASSIGN_OR_RETURN(p.writer_features, List(p_wf_, r));
  return p;
}

Result<Txn> Impl::TxnAt(int64_t r) {
  Txn t;
  LITHIFY_ASSIGN_OR_RETURN(t.app_id, ReqString(t_app_, r));
  LITHIFY_ASSIGN_OR_RETURN(t.version, ReqInt(t_ver_, r));
  LITHIFY_ASSIGN_OR_RETURN(t.last_updated, Int(t_lu_, r));
  return t;
}

Result<DomainMetadata> Impl::Domain(int64_t r) {
  DomainMetadata d;
  LITHIFY_ASSIGN_OR_RETURN(d.domain, ReqString(d_domain_, r));
  LITHIFY_ASSIGN_OR_RETURN(auto conf, OptString(d_conf_, r));
  d.configuration = conf.value_or("");
  LITHIFY_ASSIGN_OR_RETURN(auto removed, Bool(d_removed_, r));
  d.removed = removed.value_or(false);
  return d;
}

Result<CheckpointMetadata> Impl::CkptMeta(int64_t r) {
  CheckpointMetadata c;
  LITHIFY_ASSIGN_OR_RETURN(c.version, ReqInt(c_ver_, r));
  LITHIFY_ASSIGN_OR_RETURN(c.tags, MapNoNulls(c_tags_, r));
  return c;
}

Result<Sidecar> Impl::SidecarAt(int64_t r) {
  Sidecar s;
  LITHIFY_ASSIGN_OR_RETURN(s.path, ReqString(s_path_, r));
  LITHIFY_ASSIGN_OR_RETURN(s.size_in_bytes, ReqInt(s_size_, r));
  LITHIFY_ASSIGN_OR_RETURN(auto mtime, Int(s_mtime_, r));
  s.modification_time = mtime.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(s.tags, MapNoNulls(s_tags_, r));
  return s;
}

// Renders add.stats_parsed of every row through the canonical JSON of a batch holding
// only its leaves ({"add":{"stats_parsed":...}} per row) and keeps the struct's text,
// normalized by the same JSON library as the rendering path.
Status Impl::RenderStatsParsed(RowBatch* batch) {
  RowBatch sub;
  sub.num_rows = batch->num_rows;
  sub.first_row_index = batch->first_row_index;
  for (size_t i = first_stats_parsed_column_; i < batch->columns.size(); ++i) {
    sub.columns.push_back(std::move(batch->columns[i]));
  }
  batch->columns.resize(first_stats_parsed_column_);
  std::string rendered;
  LITHIFY_RETURN_NOT_OK(parquet::RenderRows(schema_, {action_[kAdd].node}, sub,
                                            parquet::RowFormat::kJsonLines, -1, &rendered));
  stats_parsed_json_.assign(batch->num_rows, std::string());
  stats_parsed_valid_.assign(batch->num_rows, false);
  size_t pos = 0;
  for (int64_t r = 0; r < batch->num_rows && pos < rendered.size(); ++r) {
    size_t end = rendered.find('\n', pos);
    if (end == std::string::npos) end = rendered.size();
    std::string_view line(rendered.data() + pos, end - pos);
    pos = end + 1;
    LITHIFY_ASSIGN_OR_RETURN_CTX(json::Json j, json::Parse(line), "row {}", batch->first_row_index + r);
    const json::Json* add = json::Field(j, "add");
    const json::Json* sp = add ? json::Field(*add, "stats_parsed") : nullptr;
    if (sp == nullptr) continue;
    if (!sp->is_object()) return Status::Corruption("row {}: field 'stats_parsed' is not a struct", batch->first_row_index + r);
    stats_parsed_json_[r] = json::Dump(*sp);
    stats_parsed_valid_[r] = true;
  }
  return Status::OK();
}

template <typename T>
Status Emit(Result<T> r, const char* kind, int64_t row, const std::string& file,
            const CheckpointExtractor::Sink& sink) {
  if (!r.ok()) return r.status().WithContextF("'{}' action", kind).WithContextF("{} row {}", file, row);
  return sink(Action(std::move(r).value()));
}

Status Impl::Extract(RowBatch* batch, const std::string& file, const Sink& sink, const AddSink* on_add,
                     const uint32_t* hints) {
  if (batch->columns.size() != leaves_.size()) {
    return Status::Corruption("{}: batch has {} columns, expected {}", file, batch->columns.size(), leaves_.size());
  }
  hints_ = hints;
  add_flat_state_ = -1;
  if (stats_parsed_node_ >= 0) {
    LITHIFY_RETURN_NOT_OK_CTX(RenderStatsParsed(batch), "{}", file);
  }
  for (size_t i = 0; i < cursors_.size(); ++i) cursors_[i].Reset(&batch->columns[i], batch->num_rows);
  const int64_t base = batch->first_row_index;
  for (int64_t r = 0; r < batch->num_rows; ++r) {
    int kind = -1;
    for (int k = 0; k < kNumKinds; ++k) {
      const StructRef& sr = action_[k];
      if (!sr.present()) continue;
      bool present;
      if (C(sr.presence).Flat()) {
        present = C(sr.presence).flat_def(r) >= sr.def;
      } else {
        auto p = StructPresent(sr, r);
        if (!p.ok()) return p.status().WithContextF("{} row {}", file, base + r);
        present = *p;
      }
      if (present) {
        kind = k;
        break;
      }
    }
    Status st;
    switch (kind) {
      case kAdd:
        if (on_add != nullptr) {
          if (add_flat_state_ < 0) add_flat_state_ = AddColumnsFlat() ? 1 : 0;
          if (add_flat_state_ == 1) {
            st = FlatAddView(r, &flat_add_);
            st = st.ok() ? (*on_add)(flat_add_) : st.WithContextF("'add' action").WithContextF("{} row {}", file, base + r);
            break;
          }
          auto v = AddView(r);
          st = v.ok() ? (*on_add)(*v) : v.status().WithContextF("'add' action").WithContextF("{} row {}", file, base + r);
        } else {
          st = Emit(Add(r), "add", base + r, file, sink);
        }
        break;
      case kRemove: st = Emit(Remove(r), "remove", base + r, file, sink); break;
      case kMetaData: st = Emit(Meta(r), "metaData", base + r, file, sink); break;
      case kProtocol: st = Emit(Proto(r), "protocol", base + r, file, sink); break;
      case kTxn: st = Emit(TxnAt(r), "txn", base + r, file, sink); break;
      case kDomainMetadata: st = Emit(Domain(r), "domainMetadata", base + r, file, sink); break;
      case kCheckpointMetadata: st = Emit(CkptMeta(r), "checkpointMetadata", base + r, file, sink); break;
      case kSidecar: st = Emit(SidecarAt(r), "sidecar", base + r, file, sink); break;
      default: break;  // no action in this row (e.g. only commitInfo/cdc columns)
    }
    LITHIFY_RETURN_NOT_OK(st);
  }
  return Status::OK();
}

}  // namespace

std::unique_ptr<CheckpointExtractor> CheckpointExtractor::Make(const Schema& schema, bool read_stats) {
  auto impl = std::make_unique<Impl>(schema, read_stats);
  if (!impl->Bind()) return nullptr;
  return impl;
}

}  // namespace lithify::delta
