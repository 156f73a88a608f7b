#include "lithify/iceberg/manifest.h"

#include <algorithm>
#include <charconv>
#include <type_traits>

#include "lithify/base/macros.h"
#include "lithify/iceberg/avro.h"
#include "lithify/iceberg/values.h"

namespace lithify::iceberg {

namespace {

using avro::Kind;

// Field accessors over a decoded record; a field of the wrong Avro kind is Corruption.
struct Rec {
  const avro::Schema& s;
  const avro::Value& v;

  const avro::Value* Get(int32_t id, std::string_view name) const { return v.Field(s, id, name); }

  Result<std::optional<int64_t>> Int(int32_t id, std::string_view name) const {
    const avro::Value* f = Get(id, name);
    if (f == nullptr) return std::optional<int64_t>();
    if (f->kind != Kind::kInt && f->kind != Kind::kLong) return Status::Corruption("field '{}' is not an integer", name);
    return std::optional<int64_t>(f->i);
  }
  Result<int64_t> ReqInt(int32_t id, std::string_view name) const {
    LITHIFY_ASSIGN_OR_RETURN(auto x, Int(id, name));
    if (!x) return Status::Corruption("missing field '{}'", name);
    return *x;
  }
  Result<std::optional<std::string>> Bytes(int32_t id, std::string_view name) const {
    const avro::Value* f = Get(id, name);
    if (f == nullptr) return std::optional<std::string>();
    if (f->kind != Kind::kString && f->kind != Kind::kBytes && f->kind != Kind::kFixed) {
      return Status::Corruption("field '{}' is not a string", name);
    }
    return std::optional<std::string>(f->s);
  }
  Result<std::string> ReqString(int32_t id, std::string_view name) const {
    LITHIFY_ASSIGN_OR_RETURN(auto x, Bytes(id, name));
    if (!x) return Status::Corruption("missing field '{}'", name);
    return *x;
  }
  Result<std::optional<bool>> Bool(int32_t id, std::string_view name) const {
    const avro::Value* f = Get(id, name);
    if (f == nullptr) return std::optional<bool>();
    if (f->kind != Kind::kBoolean) return Status::Corruption("field '{}' is not a boolean", name);
    return std::optional<bool>(f->b);
  }
};

std::optional<int32_t> Narrow(std::optional<int64_t> v) {
  if (!v) return std::nullopt;
  return static_cast<int32_t>(*v);
}

// An int-keyed map stored as an array of {key, value} records (or an Avro map).
template <typename V, typename F>
Status ReadIdMap(const Rec& r, int32_t id, std::string_view name, std::map<int32_t, V>* out, F value_of) {
  const avro::Value* f = r.Get(id, name);
  if (f == nullptr) return Status::OK();
  if (f->kind == Kind::kMap) {
    for (size_t i = 0; i < f->items.size(); ++i) {
      int32_t k = 0;
      const std::string& ks = f->keys[i];
      auto [p, ec] = std::from_chars(ks.data(), ks.data() + ks.size(), k);
      if (ec != std::errc() || p != ks.data() + ks.size()) return Status::Corruption("'{}' has key '{}'", name, ks);
      LITHIFY_ASSIGN_OR_RETURN((*out)[k], value_of(f->items[i]));
    }
    return Status::OK();
  }
  if (f->kind != Kind::kArray) return Status::Corruption("field '{}' is not a map", name);
  for (const avro::Value& e : f->items) {
    if (e.kind != Kind::kRecord || e.items.size() < 2 || e.items[0].kind != Kind::kInt) {
      return Status::Corruption("field '{}' holds an entry that is not a key/value record", name);
    }
    LITHIFY_ASSIGN_OR_RETURN((*out)[static_cast<int32_t>(e.items[0].i)], value_of(e.items[1]));
  }
  return Status::OK();
}

Result<int64_t> LongOf(const avro::Value& v) {
  if (v.kind != Kind::kLong && v.kind != Kind::kInt) return Status::Corruption("map value is not a long");
  return v.i;
}

Result<std::string> BytesOf(const avro::Value& v) {
  if (v.kind != Kind::kBytes && v.kind != Kind::kFixed && v.kind != Kind::kString) {
    return Status::Corruption("map value is not binary");
  }
  return v.s;
}

template <typename T>
Status ReadList(const Rec& r, int32_t id, std::string_view name, std::vector<T>* out) {
  const avro::Value* f = r.Get(id, name);
  if (f == nullptr) return Status::OK();
  if (f->kind != Kind::kArray) return Status::Corruption("field '{}' is not a list", name);
  for (const avro::Value& e : f->items) {
    if (e.kind != Kind::kInt && e.kind != Kind::kLong) return Status::Corruption("field '{}' holds a non-integer", name);
    out->push_back(static_cast<T>(e.i));
  }
  return Status::OK();
}

Result<ManifestFile> ParseManifestFile(const avro::Schema& s, const avro::Value& v, const LocationMap& map) {
  Rec r{s, v};
  ManifestFile m;
  LITHIFY_ASSIGN_OR_RETURN(m.recorded_path, r.ReqString(500, "manifest_path"));
  m.path = map.Apply(m.recorded_path);
  LITHIFY_ASSIGN_OR_RETURN(m.length, r.ReqInt(501, "manifest_length"));
  LITHIFY_ASSIGN_OR_RETURN(int64_t spec, r.ReqInt(502, "partition_spec_id"));
  m.spec_id = static_cast<int32_t>(spec);
  LITHIFY_ASSIGN_OR_RETURN(auto content, r.Int(517, "content"));
  m.content = static_cast<int32_t>(content.value_or(0));
  if (m.content != 0 && m.content != 1) return Status::Corruption("manifest content {}", m.content);
  LITHIFY_ASSIGN_OR_RETURN(auto seq, r.Int(515, "sequence_number"));
  m.sequence_number = seq.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(auto min_seq, r.Int(516, "min_sequence_number"));
  m.min_sequence_number = min_seq.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(auto added, r.Int(503, "added_snapshot_id"));
  m.added_snapshot_id = added.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(auto c1, r.Int(504, "added_files_count"));
  LITHIFY_ASSIGN_OR_RETURN(auto c2, r.Int(505, "existing_files_count"));
  LITHIFY_ASSIGN_OR_RETURN(auto c3, r.Int(506, "deleted_files_count"));
  m.added_files_count = Narrow(c1);
  m.existing_files_count = Narrow(c2);
  m.deleted_files_count = Narrow(c3);
  LITHIFY_ASSIGN_OR_RETURN(m.added_rows_count, r.Int(512, "added_rows_count"));
  LITHIFY_ASSIGN_OR_RETURN(m.existing_rows_count, r.Int(513, "existing_rows_count"));
  LITHIFY_ASSIGN_OR_RETURN(m.deleted_rows_count, r.Int(514, "deleted_rows_count"));
  LITHIFY_ASSIGN_OR_RETURN(m.first_row_id, r.Int(520, "first_row_id"));
  if (const avro::Value* parts = r.Get(507, "partitions")) {
    if (parts->kind != Kind::kArray) return Status::Corruption("field 'partitions' is not a list");
    for (const avro::Value& p : parts->items) {
      Rec pr{s, p};
      FieldSummary f;
      LITHIFY_ASSIGN_OR_RETURN(auto cn, pr.Bool(509, "contains_null"));
      f.contains_null = cn.value_or(true);
      LITHIFY_ASSIGN_OR_RETURN(f.contains_nan, pr.Bool(518, "contains_nan"));
      LITHIFY_ASSIGN_OR_RETURN(f.lower_bound, pr.Bytes(510, "lower_bound"));
      LITHIFY_ASSIGN_OR_RETURN(f.upper_bound, pr.Bytes(511, "upper_bound"));
      m.partitions.push_back(std::move(f));
    }
  }
  if (r.Get(519, "key_metadata") != nullptr) {
    return Status::NotSupported("encryption (manifest '{}' has key_metadata)", m.recorded_path);
  }
  return m;
}

// The spec a manifest was written with, and the types of its partition fields.
struct SpecTypes {
  PartitionSpec spec;
  std::vector<Type> types;
};

Result<SpecTypes> ManifestSpec(const TableMetadata& m, const ManifestFile& mf, const avro::ContainerReader& r) {
  SpecTypes st;
  if (const PartitionSpec* s = m.FindSpec(mf.spec_id)) {
    st.spec = *s;
  } else if (auto text = r.Meta("partition-spec")) {
    LITHIFY_ASSIGN_OR_RETURN(json::Json j, json::Parse(*text));
    LITHIFY_ASSIGN_OR_RETURN(st.spec, ParsePartitionFields(j, mf.spec_id, m.format_version));
  } else {
    return Status::Corruption("partition spec {} is neither in the table metadata nor in the manifest", mf.spec_id);
  }
  // Source types: the manifest's own schema first (a source column may have been dropped
  // since), then the table's schemas, newest first.
  std::optional<Schema> own;
  if (auto text = r.Meta("schema")) {
    Result<json::Json> j = json::Parse(*text);
    if (j.ok()) {
      Result<Schema> s = ParseSchema(*j);
      if (s.ok()) own = std::move(*s);
    }
  }
  std::optional<SchemaIndex> own_index;
  if (own) own_index.emplace(*own);
  for (const PartitionField& f : st.spec.fields) {
    if (f.source_ids.size() > 1) {
      return Status::NotSupported("multi-argument partition transform '{}' (field '{}')", f.transform.text, f.name);
    }
    Type type = Type::Primitive(TypeId::kUnknown);
    const NestedField* src = own_index ? own_index->Find(f.source_id) : nullptr;
    std::optional<SchemaIndex> idx;
    for (auto it = m.schemas.rbegin(); src == nullptr && it != m.schemas.rend(); ++it) {
      idx.emplace(*it);
      src = idx->Find(f.source_id);
    }
    if (src != nullptr) type = f.transform.ResultType(src->type).ValueOr(type);
    st.types.push_back(std::move(type));
  }
  return st;
}

Result<std::vector<table::Value>> ParsePartition(const avro::Schema& s, const avro::Value* part,
                                                 const SpecTypes& st) {
  std::vector<table::Value> out;
  out.reserve(st.spec.fields.size());
  for (size_t i = 0; i < st.spec.fields.size(); ++i) {
    const PartitionField& f = st.spec.fields[i];
    const avro::Value* v = part == nullptr ? nullptr : part->Field(s, f.field_id, f.name);
    if (v == nullptr || st.types[i].id == TypeId::kUnknown) {
      out.push_back(table::Value::Null());
      continue;
    }
    Result<table::Value> tv = FromAvroValue(st.types[i], *v);
    if (!tv.ok()) return tv.status().WithContextF("partition field '{}'", f.name);
    out.push_back(std::move(*tv));
  }
  return out;
}

// ASCII only (format names are ASCII; as toupper in the C locale, without its call per char).
std::string Upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

// A data file's fields whose checks do not depend on how it was decoded.
struct DataFileFields {
  std::optional<int64_t> content, record_count, file_size, sort_order_id;
  std::optional<std::string> path, format;
  bool key_metadata = false;
};

// An entry's own fields (before inheritance and checks).
struct EntryFields {
  std::optional<int64_t> status, snapshot_id, sequence, file_sequence;
  bool has_file = false;
};

// Checks `f` and completes `*d` with it, in place (both decoders end here; a DataFile is
// large, and planning finishes one per entry).
Status FinishDataFile(DataFileFields f, DataFile* out, const LocationMap& map) {
  DataFile& d = *out;
  const int64_t c = f.content.value_or(0);
  if (c < 0 || c > 2) return Status::Corruption("data file content {}", c);
  d.content = static_cast<FileContent>(c);
  if (!f.path) return Status::Corruption("missing field 'file_path'");
  d.recorded_path = std::move(*f.path);
  d.path = map.Apply(d.recorded_path);
  if (!f.format) return Status::Corruption("missing field 'file_format'");
  d.file_format = Upper(std::move(*f.format));
  if (!f.record_count) return Status::Corruption("missing field 'record_count'");
  if (!f.file_size) return Status::Corruption("missing field 'file_size_in_bytes'");
  d.record_count = *f.record_count;
  d.file_size_in_bytes = *f.file_size;
  if (d.record_count < 0 || d.file_size_in_bytes < 0) return Status::Corruption("negative record count or size");
  if (f.key_metadata) return Status::NotSupported("encryption (data file '{}' has key_metadata)", d.recorded_path);
  d.sort_order_id = Narrow(f.sort_order_id);
  if (d.content == FileContent::kEqualityDeletes && d.equality_ids.empty()) {
    return Status::Corruption("equality delete file '{}' without equality_ids", d.recorded_path);
  }
  return Status::OK();
}

// The Value path's data file, into `*out` (a fresh DataFile).
Status ParseDataFile(const avro::Schema& s, const avro::Value& v, const SpecTypes& st, const LocationMap& map,
                     DataFile* out) {
  Rec r{s, v};
  DataFile& d = *out;
  DataFileFields f;
  LITHIFY_ASSIGN_OR_RETURN(f.content, r.Int(134, "content"));
  LITHIFY_ASSIGN_OR_RETURN(f.path, r.Bytes(100, "file_path"));
  LITHIFY_ASSIGN_OR_RETURN(f.format, r.Bytes(101, "file_format"));
  LITHIFY_ASSIGN_OR_RETURN(d.partition, ParsePartition(s, r.Get(102, "partition"), st));
  LITHIFY_ASSIGN_OR_RETURN(f.record_count, r.Int(103, "record_count"));
  LITHIFY_ASSIGN_OR_RETURN(f.file_size, r.Int(104, "file_size_in_bytes"));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 108, "column_sizes", &d.column_sizes, LongOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 109, "value_counts", &d.value_counts, LongOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 110, "null_value_counts", &d.null_value_counts, LongOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 137, "nan_value_counts", &d.nan_value_counts, LongOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 125, "lower_bounds", &d.lower_bounds, BytesOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 128, "upper_bounds", &d.upper_bounds, BytesOf));
  f.key_metadata = r.Get(131, "key_metadata") != nullptr;
  LITHIFY_RETURN_NOT_OK(ReadList(r, 132, "split_offsets", &d.split_offsets));
  LITHIFY_RETURN_NOT_OK(ReadList(r, 135, "equality_ids", &d.equality_ids));
  LITHIFY_ASSIGN_OR_RETURN(f.sort_order_id, r.Int(140, "sort_order_id"));
  LITHIFY_ASSIGN_OR_RETURN(d.first_row_id, r.Int(142, "first_row_id"));
  LITHIFY_ASSIGN_OR_RETURN(d.referenced_data_file, r.Bytes(143, "referenced_data_file"));
  LITHIFY_ASSIGN_OR_RETURN(d.content_offset, r.Int(144, "content_offset"));
  LITHIFY_ASSIGN_OR_RETURN(d.content_size_in_bytes, r.Int(145, "content_size_in_bytes"));
  return FinishDataFile(std::move(f), out, map);
}

// The record node a field's schema node holds (through a [null, record] union), or -1.
int RecordOf(const avro::Schema& s, int node) {
  const avro::Node& n = s.node(node);
  if (n.kind == Kind::kRecord) return node;
  if (n.kind != Kind::kUnion) return -1;
  for (int b : n.branches) {
    if (s.node(b).kind == Kind::kRecord) return b;
  }
  return -1;
}

// The projection of a manifest entry that decodes only the statistics `stats` selects.
std::optional<avro::Projection> EntryProjection(const avro::Schema& s, const StatsSelection& stats) {
  if (stats.all || s.root() < 0 || s.node(s.root()).kind != Kind::kRecord) return std::nullopt;
  const int entry = s.root();
  const int df_field = s.node(entry).FieldIndex(2, "data_file");
  if (df_field < 0) return std::nullopt;
  const int df = RecordOf(s, s.node(entry).fields[df_field].node);
  if (df < 0) return std::nullopt;
  avro::Projection p(s);
  struct Map { int32_t id; const char* name; bool per_column; };
  static constexpr Map kMaps[] = {{108, "column_sizes", false},     {109, "value_counts", false},
                                  {137, "nan_value_counts", false}, {110, "null_value_counts", true},
                                  {125, "lower_bounds", true},      {128, "upper_bounds", true}};
  for (const Map& m : kMaps) {
    const int f = s.node(df).FieldIndex(m.id, m.name);
    if (f < 0) continue;
    if (!m.per_column || stats.field_ids.empty()) {
      p.SkipField(df, static_cast<size_t>(f));
      continue;
    }
    // The array of {key, value} records, directly or as a union branch.
    const int node = s.node(df).fields[f].node;
    std::vector<int> arrays;
    if (s.node(node).kind == Kind::kArray) arrays.push_back(node);
    if (s.node(node).kind == Kind::kUnion) {
      for (int b : s.node(node).branches) {
        if (s.node(b).kind == Kind::kArray) arrays.push_back(b);
      }
    }
    for (int a : arrays) p.KeepKeys(a, stats.field_ids);
  }
  return p;
}

// The Value path's EntryFields, and the entry's data_file (null when absent).
Status ParseEntryFields(const Rec& r, EntryFields* f, const avro::Value** file) {
  LITHIFY_ASSIGN_OR_RETURN(f->status, r.Int(0, "status"));
  LITHIFY_ASSIGN_OR_RETURN(f->snapshot_id, r.Int(1, "snapshot_id"));
  LITHIFY_ASSIGN_OR_RETURN(f->sequence, r.Int(3, "sequence_number"));
  LITHIFY_ASSIGN_OR_RETURN(f->file_sequence, r.Int(4, "file_sequence_number"));
  *file = r.Get(2, "data_file");
  f->has_file = *file != nullptr;
  return Status::OK();
}

// Sets `*out`'s status, snapshot and sequence numbers after inheritance, checked; its file
// is finished by the caller. Fails when data_file is missing.
Status FinishEntry(const EntryFields& f, const ManifestFile& mf, ManifestEntry* out) {
  ManifestEntry& e = *out;
  e.spec_id = mf.spec_id;
  if (!f.status) return Status::Corruption("missing field 'status'");
  if (*f.status < 0 || *f.status > 2) return Status::Corruption("entry status {}", *f.status);
  e.status = static_cast<int32_t>(*f.status);
  e.snapshot_id = f.snapshot_id ? f.snapshot_id : std::optional<int64_t>(mf.added_snapshot_id);
  // Inheritance: a null sequence number takes the manifest's (which is 0 for v1).
  e.sequence_number = f.sequence.value_or(mf.sequence_number);
  e.file_sequence_number = f.file_sequence.value_or(mf.sequence_number);
  if (mf.sequence_number > 0 && e.sequence_number > mf.sequence_number) {
    return Status::Corruption("data sequence number {} is above its manifest's {}", e.sequence_number,
                              mf.sequence_number);
  }
  if (!f.has_file) return Status::Corruption("missing field 'data_file'");
  return Status::OK();
}

// ---- the direct entry decoder ----
//
// Planning decodes every entry of every data manifest, so the entry is decoded straight
// from the bytes into ManifestEntry: the writer schema is compiled once per manifest into
// one action per field (found by field id, then name, as Value::Field finds them), with no
// Value tree and no field lookup per entry. Only the shapes the spec gives are compiled:
// integers (int or long), strings, id-keyed maps as arrays of {int key, value} records,
// integer lists, each optionally in a [null, X] union; the partition tuple goes through
// Decode (it is small and typed by the spec). Any other shape makes Compile return
// nullopt and the manifest is read through the Value path, which gives the same entries
// (IcebergCorpus.DirectDecoderEqualsValuePath and the Avro fuzz target compare them).

enum class Op : uint8_t {
  kSkip, kStatus, kSnapshotId, kSequence, kFileSequence, kDataFile,
  kContent, kPath, kFormat, kPartition, kRecordCount, kFileSize, kColumnSizes, kValueCounts,
  kNullCounts, kNanCounts, kLowerBounds, kUpperBounds, kKeyMetadata, kSplitOffsets,
  kEqualityIds, kSortOrderId, kFirstRowId, kReferencedDataFile, kContentOffset, kContentSize,
};

enum class Shape : uint8_t { kAny, kInteger, kString, kLongMap, kBytesMap, kIntList, kRecord };

struct OpSpec {
  int32_t id;
  const char* name;
  Op op;
  Shape shape;
};

constexpr OpSpec kEntryOps[] = {
    {0, "status", Op::kStatus, Shape::kInteger},
    {1, "snapshot_id", Op::kSnapshotId, Shape::kInteger},
    {3, "sequence_number", Op::kSequence, Shape::kInteger},
    {4, "file_sequence_number", Op::kFileSequence, Shape::kInteger},
    {2, "data_file", Op::kDataFile, Shape::kRecord},
};

constexpr OpSpec kFileOps[] = {
    {134, "content", Op::kContent, Shape::kInteger},
    {100, "file_path", Op::kPath, Shape::kString},
    {101, "file_format", Op::kFormat, Shape::kString},
    {102, "partition", Op::kPartition, Shape::kAny},
    {103, "record_count", Op::kRecordCount, Shape::kInteger},
    {104, "file_size_in_bytes", Op::kFileSize, Shape::kInteger},
    {108, "column_sizes", Op::kColumnSizes, Shape::kLongMap},
    {109, "value_counts", Op::kValueCounts, Shape::kLongMap},
    {110, "null_value_counts", Op::kNullCounts, Shape::kLongMap},
    {137, "nan_value_counts", Op::kNanCounts, Shape::kLongMap},
    {125, "lower_bounds", Op::kLowerBounds, Shape::kBytesMap},
    {128, "upper_bounds", Op::kUpperBounds, Shape::kBytesMap},
    {131, "key_metadata", Op::kKeyMetadata, Shape::kAny},
    {132, "split_offsets", Op::kSplitOffsets, Shape::kIntList},
    {135, "equality_ids", Op::kEqualityIds, Shape::kIntList},
    {140, "sort_order_id", Op::kSortOrderId, Shape::kInteger},
    {142, "first_row_id", Op::kFirstRowId, Shape::kInteger},
    {143, "referenced_data_file", Op::kReferencedDataFile, Shape::kString},
    {144, "content_offset", Op::kContentOffset, Shape::kInteger},
    {145, "content_size_in_bytes", Op::kContentSize, Shape::kInteger},
};

struct FieldPlan {
  Op op = Op::kSkip;
  int node = -1;         // the field's schema node
  int value = -1;        // the node a present value has (the union's other branch)
  int null_branch = -1;  // the union's null branch; -1 when the field is no union
  int item_key = -1, item_value = -1;  // maps: the key and value nodes of an item
  bool skip = false;     // stats maps the selection does not want
  bool filter = false;   // maps: only the keys in the selection's field_ids
  std::string_view name;
};

bool IsInteger(Kind k) { return k == Kind::kInt || k == Kind::kLong; }
bool IsString(Kind k) { return k == Kind::kString || k == Kind::kBytes; }

class EntryDecoder {
 public:
  // nullopt when a field has a shape the decoder does not handle.
  static std::optional<EntryDecoder> Compile(const avro::Schema& s, const StatsSelection& stats) {
    if (s.root() < 0 || s.node(s.root()).kind != Kind::kRecord) return std::nullopt;
    EntryDecoder d(s, stats);
    if (!d.Plan(s.root(), kEntryOps, &d.entry_)) return std::nullopt;
    for (const FieldPlan& f : d.entry_) {
      if (f.op == Op::kDataFile && !d.Plan(f.value, kFileOps, &d.file_)) return std::nullopt;
    }
    return d;
  }

  // Decodes one entry: `e` and `f` receive what FinishEntry and FinishDataFile check,
  // `d` the data file's other fields.
  Status Decode(ByteView* in, const SpecTypes& st, EntryFields* e, DataFileFields* f, DataFile* d) {
    return EachField(entry_, [&](const FieldPlan& p) { return EntryField(p, in, st, e, f, d); });
  }

 private:
  EntryDecoder(const avro::Schema& s, const StatsSelection& stats) : s_(&s), stats_(stats) {
    std::sort(stats_.field_ids.begin(), stats_.field_ids.end());
  }

  // Calls field(p) for every plan of a record, in writer order; an error names the field.
  template <typename F>
  static Status EachField(const std::vector<FieldPlan>& plans, F&& field) {
    for (const FieldPlan& p : plans) {
      Status status = field(p);
      if (!status.ok()) return status.WithContextF("field '{}'", p.name);
    }
    return Status::OK();
  }

  template <size_t N>
  bool Plan(int record, const OpSpec (&ops)[N], std::vector<FieldPlan>* out) {
    const avro::Node& r = s_->node(record);
    out->assign(r.fields.size(), FieldPlan());
    for (size_t i = 0; i < r.fields.size(); ++i) {
      (*out)[i].node = r.fields[i].node;
      (*out)[i].name = r.fields[i].name;
    }
    for (const OpSpec& o : ops) {
      const int i = r.FieldIndex(o.id, o.name);
      if (i < 0) continue;
      FieldPlan& p = (*out)[i];
      // Two of Iceberg's fields resolving to one writer field (ids and names that collide):
      // the Value path reads that field for both; leave such schemas to it.
      if (p.op != Op::kSkip) return false;
      p.op = o.op;
      if (!Shaped(o.shape, &p)) return false;
    }
    return true;
  }

  // Resolves [null, X] and checks X against `shape`.
  bool Shaped(Shape shape, FieldPlan* p) {
    const avro::Schema& s = *s_;
    p->value = p->node;
    if (shape == Shape::kAny) return true;
    const avro::Node& n = s.node(p->node);
    if (n.kind == Kind::kUnion) {
      if (n.branches.size() != 2) return false;
      for (int b = 0; b < 2; ++b) {
        if (s.node(n.branches[b]).kind == Kind::kNull) p->null_branch = b;
      }
      if (p->null_branch < 0) return false;
      p->value = n.branches[1 - p->null_branch];
    }
    const avro::Node& v = s.node(p->value);
    switch (shape) {
      case Shape::kInteger: return IsInteger(v.kind);
      case Shape::kString: return IsString(v.kind);
      case Shape::kRecord: return v.kind == Kind::kRecord;
      case Shape::kIntList: return v.kind == Kind::kArray && IsInteger(s.node(v.items).kind);
      case Shape::kLongMap:
      case Shape::kBytesMap: {
        if (v.kind != Kind::kArray) return false;
        const avro::Node& item = s.node(v.items);
        if (item.kind != Kind::kRecord || item.fields.size() != 2) return false;
        p->item_key = item.fields[0].node;
        p->item_value = item.fields[1].node;
        if (s.node(p->item_key).kind != Kind::kInt) return false;
        const Kind vk = s.node(p->item_value).kind;
        if (shape == Shape::kLongMap ? !IsInteger(vk) : !IsString(vk)) return false;
        SelectKeys(p);
        return true;
      }
      case Shape::kAny: return true;
    }
    return false;
  }

  // What StatsSelection keeps of a statistics map (as EntryProjection does).
  void SelectKeys(FieldPlan* p) const {
    if (stats_.all) return;
    const bool per_column = p->op == Op::kNullCounts || p->op == Op::kLowerBounds || p->op == Op::kUpperBounds;
    if (!per_column || stats_.field_ids.empty()) {
      p->skip = true;
      return;
    }
    p->filter = true;
  }

  // Reads the union branch of an optional field: false when null.
  Result<bool> Present(const FieldPlan& p, ByteView* in) const {
    if (p.null_branch < 0) return true;
    LITHIFY_ASSIGN_OR_RETURN(int64_t b, avro::wire::ReadBranch(s_->node(p.node), in));
    return b != p.null_branch;
  }
  Result<int64_t> Integer(int node, ByteView* in) const {
    if (s_->node(node).kind == Kind::kInt) {
      LITHIFY_ASSIGN_OR_RETURN(int32_t v, avro::wire::ReadInt(in));
      return int64_t{v};
    }
    return avro::wire::ReadLong(in);
  }
  // The fast path first (most of an entry's fields are optional integers); what it refuses
  // is read again by the checked functions, which name the error.
  Result<std::optional<int64_t>> OptInteger(const FieldPlan& p, ByteView* in) const {
    ByteView at = *in;
    int64_t branch = 1 - p.null_branch, fast = 0;
    if (p.null_branch < 0 || (avro::wire::TryLong(&at, &branch) && (branch == 0 || branch == 1))) {
      if (branch == p.null_branch) {
        *in = at;
        return std::optional<int64_t>();
      }
      const bool is_int = s_->node(p.value).kind == Kind::kInt;
      if (avro::wire::TryLong(&at, &fast) && (!is_int || (fast >= INT32_MIN && fast <= INT32_MAX))) {
        *in = at;
        return std::optional<int64_t>(fast);
      }
    }
    LITHIFY_ASSIGN_OR_RETURN(bool present, Present(p, in));
    if (!present) return std::optional<int64_t>();
    LITHIFY_ASSIGN_OR_RETURN(int64_t v, Integer(p.value, in));
    return std::optional<int64_t>(v);
  }
  Result<std::optional<std::string>> OptString(const FieldPlan& p, ByteView* in) const {
    LITHIFY_ASSIGN_OR_RETURN(bool present, Present(p, in));
    if (!present) return std::optional<std::string>();
    LITHIFY_ASSIGN_OR_RETURN(ByteView b, avro::wire::ReadBytes(in));
    return std::optional<std::string>(std::string(AsStringView(b)));
  }

  // Calls item(in) for every item of the optional array field `p` (blocks and counts
  // checked as Decode checks them).
  template <typename F>
  Status ForEachItem(const FieldPlan& p, ByteView* in, F&& item) const {
    LITHIFY_ASSIGN_OR_RETURN(bool present, Present(p, in));
    if (!present) return Status::OK();
    const avro::Node& array = s_->node(p.value);
    size_t seen = 0;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(int64_t count, avro::wire::ReadBlockCount(array, in, seen));
      if (count == 0) return Status::OK();
      for (int64_t k = 0; k < count; ++k, ++seen) LITHIFY_RETURN_NOT_OK(item(in));
    }
  }

  // A map not selected is stepped over here rather than by wire::Skip: the same checks
  // (key range, value varint or length), without the generic walk per item. The whole map
  // first goes through FastIdMap (no Status per datum: stepping over these maps was a
  // quarter of planning); a map it refuses is decoded again from its start by the checked
  // functions, which name the error.
  template <typename V>
  Status IdMap(const FieldPlan& p, ByteView* in, std::map<int32_t, V>* out) const {
    if (FastIdMap(p, in, out)) return Status::OK();
    // Errors name the item's field, as the Value path's do.
    const avro::Node& item = s_->node(s_->node(p.value).items);
    auto in_field = [&](const Status& st, int f) { return st.WithContextF("field '{}'", item.fields[f].name); };
    return ForEachItem(p, in, [&](ByteView* at) -> Status {
      Result<int32_t> key = avro::wire::ReadInt(at);
      if (!key.ok()) return in_field(key.status(), 0);
      const bool kept = Kept(p, *key);
      if constexpr (std::is_same_v<V, int64_t>) {
        Result<int64_t> v = Integer(p.item_value, at);
        if (!v.ok()) return in_field(v.status(), 1);
        if (kept) (*out)[*key] = *v;
      } else {
        Result<ByteView> b = avro::wire::ReadBytes(at);
        if (!b.ok()) return in_field(b.status(), 1);
        if (kept) (*out)[*key].assign(AsStringView(*b));
      }
      return Status::OK();
    });
  }

  bool Kept(const FieldPlan& p, int32_t key) const {
    return !p.skip && (!p.filter || std::binary_search(stats_.field_ids.begin(), stats_.field_ids.end(), key));
  }

  // The optional map field `p` by the wire::Try* fast path; false, with `*in` unchanged,
  // when anything is off or unusual (sized blocks), for the checked path to decode again
  // (keys it stored by then are stored again with the same values).
  template <typename V>
  bool FastIdMap(const FieldPlan& p, ByteView* in, std::map<int32_t, V>* out) const {
    ByteView at = *in;
    if (p.null_branch >= 0) {
      int64_t branch = 0;
      if (!avro::wire::TryLong(&at, &branch) || (branch != 0 && branch != 1)) return false;  // [null, X]
      if (branch == p.null_branch) {
        *in = at;
        return true;
      }
    }
    const bool int_values = s_->node(p.item_value).kind == Kind::kInt;
    size_t seen = 0;
    for (;;) {
      int64_t count = 0;
      if (!avro::wire::TryLong(&at, &count) || count < 0) return false;
      if (count == 0) break;
      // The bounds ReadBlockCount checks: at least a byte per item, 2^26 items in all.
      if (static_cast<uint64_t>(count) > at.size() + 1 || seen + count > (size_t{1} << 26)) return false;
      seen += static_cast<size_t>(count);
      if (SkippedLongBlock(p, count, &at) || SkippedBytesBlock(p, count, &at)) continue;
      for (int64_t k = 0; k < count; ++k) {
        int32_t key = 0;
        if (!avro::wire::TryInt(&at, &key)) return false;
        if constexpr (std::is_same_v<V, int64_t>) {
          int64_t v = 0;
          if (!avro::wire::TryLong(&at, &v) || (int_values && (v < INT32_MIN || v > INT32_MAX))) return false;
          if (Kept(p, key)) (*out)[key] = v;
        } else {
          ByteView b;
          if (!avro::wire::TryBytes(&at, &b)) return false;
          if (Kept(p, key)) (*out)[key].assign(AsStringView(b));
        }
      }
    }
    *in = at;
    return true;
  }

  // A block of a map<int, long> planning does not read: its 2 * count varints (key, value)
  // stepped over without decoding them when each is short enough to be a valid int, which
  // is all TryInt/TryLong would check; false (nothing consumed) leaves the block to them.
  bool SkippedLongBlock(const FieldPlan& p, int64_t count, ByteView* at) const {
    if (!p.skip || IsString(s_->node(p.item_value).kind)) return false;
    return avro::wire::SkipShortVarints(at, 2 * static_cast<uint64_t>(count));
  }

  // A block of a map<int, bytes> planning does not read (bounds): each item's key and
  // length in one byte each (ids below 64, values shorter than 64 bytes: what Iceberg's
  // single-value bounds of ordinary columns are) stepped over by a jump, without the
  // per-datum readers; false (nothing consumed) leaves the block to them. It accepts only
  // what TryInt and TryBytes accept: a one-byte varint is a valid int, an even one a
  // length >= 0, checked against what is left.
  bool SkippedBytesBlock(const FieldPlan& p, int64_t count, ByteView* at) const {
    if (!p.skip || !IsString(s_->node(p.item_value).kind)) return false;
    ByteView b = *at;
    for (int64_t k = 0; k < count; ++k) {
      if (b.size() < 2 || ((b[0] | b[1]) & 0x80) != 0 || (b[1] & 1) != 0) return false;
      const size_t len = b[1] >> 1;
      if (len > b.size() - 2) return false;
      b = b.subspan(2 + len);
    }
    *at = b;
    return true;
  }

  template <typename T>
  Status List(const FieldPlan& p, ByteView* in, std::vector<T>* out) const {
    const int items = s_->node(p.value).items;
    return ForEachItem(p, in, [&](ByteView* at) -> Status {
      LITHIFY_ASSIGN_OR_RETURN(int64_t v, Integer(items, at));
      out->push_back(static_cast<T>(v));
      return Status::OK();
    });
  }

  Status EntryField(const FieldPlan& p, ByteView* in, const SpecTypes& st, EntryFields* e,
                    DataFileFields* f, DataFile* d) {
    switch (p.op) {
      case Op::kStatus: return Assign(OptInteger(p, in), &e->status);
      case Op::kSnapshotId: return Assign(OptInteger(p, in), &e->snapshot_id);
      case Op::kSequence: return Assign(OptInteger(p, in), &e->sequence);
      case Op::kFileSequence: return Assign(OptInteger(p, in), &e->file_sequence);
      case Op::kDataFile: {
        LITHIFY_ASSIGN_OR_RETURN(bool present, Present(p, in));
        if (!present) return Status::OK();
        e->has_file = true;
        return EachField(file_, [&](const FieldPlan& q) { return FileField(q, in, st, f, d); });
      }
      default: return avro::wire::Skip(*s_, p.node, in, 1);
    }
  }

  Status FileField(const FieldPlan& p, ByteView* in, const SpecTypes& st, DataFileFields* f, DataFile* d) {
    switch (p.op) {
      case Op::kContent: return Assign(OptInteger(p, in), &f->content);
      case Op::kPath: return Assign(OptString(p, in), &f->path);
      case Op::kFormat: return Assign(OptString(p, in), &f->format);
      case Op::kPartition: {
        LITHIFY_RETURN_NOT_OK(avro::DecodeOver(*s_, p.node, in, &partition_));
        LITHIFY_ASSIGN_OR_RETURN(d->partition,
                                 ParsePartition(*s_, partition_.is_null() ? nullptr : &partition_, st));
        return Status::OK();
      }
      case Op::kRecordCount: return Assign(OptInteger(p, in), &f->record_count);
      case Op::kFileSize: return Assign(OptInteger(p, in), &f->file_size);
      case Op::kColumnSizes: return IdMap(p, in, &d->column_sizes);
      case Op::kValueCounts: return IdMap(p, in, &d->value_counts);
      case Op::kNullCounts: return IdMap(p, in, &d->null_value_counts);
      case Op::kNanCounts: return IdMap(p, in, &d->nan_value_counts);
      case Op::kLowerBounds: return IdMap(p, in, &d->lower_bounds);
      case Op::kUpperBounds: return IdMap(p, in, &d->upper_bounds);
      case Op::kKeyMetadata: {
        const avro::Node& n = s_->node(p.node);
        if (n.kind == Kind::kNull) return Status::OK();
        if (n.kind == Kind::kUnion) {
          ByteView peek = *in;
          LITHIFY_ASSIGN_OR_RETURN(int64_t b, avro::wire::ReadBranch(n, &peek));
          if (s_->node(n.branches[b]).kind == Kind::kNull) {
            *in = peek;
            return Status::OK();
          }
        }
        f->key_metadata = true;
        return avro::wire::Skip(*s_, p.node, in, 2);
      }
      case Op::kSplitOffsets: return List(p, in, &d->split_offsets);
      case Op::kEqualityIds: return List(p, in, &d->equality_ids);
      case Op::kSortOrderId: return Assign(OptInteger(p, in), &f->sort_order_id);
      case Op::kFirstRowId: return Assign(OptInteger(p, in), &d->first_row_id);
      case Op::kReferencedDataFile: return Assign(OptString(p, in), &d->referenced_data_file);
      case Op::kContentOffset: return Assign(OptInteger(p, in), &d->content_offset);
      case Op::kContentSize: return Assign(OptInteger(p, in), &d->content_size_in_bytes);
      default: return avro::wire::Skip(*s_, p.node, in, 2);
    }
  }

  template <typename T>
  static Status Assign(Result<T> r, T* out) {
    if (!r.ok()) return r.status();
    *out = std::move(*r);
    return Status::OK();
  }

  const avro::Schema* s_;
  StatsSelection stats_;
  std::vector<FieldPlan> entry_, file_;
  avro::Value partition_;  // reused between entries
};

}  // namespace

std::string_view FileContentName(FileContent c) {
  switch (c) {
    case FileContent::kData: return "data";
    case FileContent::kPositionDeletes: return "position deletes";
    case FileContent::kEqualityDeletes: return "equality deletes";
  }
  return "?";
}

Result<std::vector<ManifestFile>> ReadManifests(io::FileSystem* fs, const TableMetadata& m,
                                                const Snapshot& snapshot, const LocationMap& map) {
  std::vector<ManifestFile> out;
  if (snapshot.key_id) return Status::NotSupported("encryption (snapshot {} has key-id)", snapshot.snapshot_id);
  if (snapshot.manifest_list.empty()) {
    // v1 snapshots may list manifests inline: data manifests at sequence number 0.
    for (const std::string& p : snapshot.manifests) {
      ManifestFile mf;
      mf.recorded_path = p;
      mf.path = map.Apply(p);
      mf.spec_id = m.default_spec_id;
      out.push_back(std::move(mf));
    }
    return out;
  }
  const std::string path = map.Apply(snapshot.manifest_list);
  auto reader = avro::ContainerReader::Open(fs, path);
  if (!reader.ok()) {
    return reader.status().WithContextF("manifest list of snapshot {}", snapshot.snapshot_id);
  }
  avro::Value v;
  for (;;) {
    LITHIFY_ASSIGN_OR_RETURN(bool more, (*reader)->Next(&v));
    if (!more) break;
    Result<ManifestFile> mf = ParseManifestFile((*reader)->schema(), v, map);
    if (!mf.ok()) return mf.status().WithContextF("{}: entry {}", path, out.size());
    if (mf->sequence_number > snapshot.sequence_number) {
      return Status::Corruption("{}: manifest '{}' has sequence number {}, above its snapshot {}'s {}", path,
                                mf->recorded_path, mf->sequence_number, snapshot.snapshot_id,
                                snapshot.sequence_number);
    }
    out.push_back(std::move(*mf));
  }
  return out;
}

Status ReadManifest(io::FileSystem* fs, const TableMetadata& m, const Snapshot& snapshot,
                    const ManifestFile& mf, const LocationMap& map,
                    const std::function<Status(ManifestEntry&&)>& sink, const StatsSelection& stats,
                    ManifestDecoding decoding) {
  auto reader_r = avro::ContainerReader::Open(fs, mf.path);
  if (!reader_r.ok()) return reader_r.status().WithContextF("manifest of snapshot {}", snapshot.snapshot_id);
  avro::ContainerReader& reader = **reader_r;
  const std::string& path = mf.path;
  if (auto content = reader.Meta("content"); content && *content != "data" && *content != "deletes") {
    return Status::NotSupported("{}: manifest content '{}'", path, *content);
  }
  Result<SpecTypes> st = ManifestSpec(m, mf, reader);
  if (!st.ok()) return st.status().WithContext(path);
  const avro::Schema& s = reader.schema();
  std::optional<EntryDecoder> direct;
  if (decoding == ManifestDecoding::kDirect) direct = EntryDecoder::Compile(s, stats);
  if (!direct) reader.SetProjection(EntryProjection(s, stats));
  avro::Value v;
  int64_t next_row_id = mf.first_row_id.value_or(0);
  for (int64_t index = 0;; ++index) {
    EntryFields ef;
    DataFileFields ff;
    ManifestEntry e;  // filled in place (the direct decoder writes e.file's other fields)
    Result<bool> more =
        direct ? reader.NextWith([&](ByteView* in) { return direct->Decode(in, *st, &ef, &ff, &e.file); })
               : reader.Next(&v);
    if (!more.ok()) return more.status();
    if (!*more) return Status::OK();
    auto fail = [&](const Status& e) { return e.WithContextF("{}: entry {}", path, index); };
    const avro::Value* file_value = nullptr;
    if (!direct) {
      Status read = ParseEntryFields(Rec{s, v}, &ef, &file_value);
      if (!read.ok()) return fail(read);
    }
    Status finished = FinishEntry(ef, mf, &e);
    if (finished.ok()) {
      finished = direct ? FinishDataFile(std::move(ff), &e.file, map) : ParseDataFile(s, *file_value, *st, map, &e.file);
    }
    if (!finished.ok()) return fail(finished);
    if ((mf.content == 0) != (e.file.content == FileContent::kData)) {
      return fail(Status::Corruption("a {} file in a {} manifest", FileContentName(e.file.content),
                                     mf.content == 0 ? "data" : "delete"));
    }
    if (e.file.content == FileContent::kData && mf.first_row_id && !e.file.first_row_id) {
      e.file.first_row_id = next_row_id;
      next_row_id += e.file.record_count;
    }
    LITHIFY_RETURN_NOT_OK(sink(std::move(e)));
  }
}

}  // namespace lithify::iceberg
