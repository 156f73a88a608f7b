#include "lithify/iceberg/manifest.h"

#include <charconv>

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

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

Result<DataFile> ParseDataFile(const avro::Schema& s, const avro::Value& v, const SpecTypes& st,
                               const LocationMap& map) {
  Rec r{s, v};
  DataFile d;
  LITHIFY_ASSIGN_OR_RETURN(auto content, r.Int(134, "content"));
  const int64_t c = content.value_or(0);
  if (c < 0 || c > 2) return Status::Corruption("data file content {}", c);
  d.content = static_cast<FileContent>(c);
  LITHIFY_ASSIGN_OR_RETURN(d.recorded_path, r.ReqString(100, "file_path"));
  d.path = map.Apply(d.recorded_path);
  LITHIFY_ASSIGN_OR_RETURN(std::string format, r.ReqString(101, "file_format"));
  d.file_format = Upper(format);
  LITHIFY_ASSIGN_OR_RETURN(d.partition, ParsePartition(s, r.Get(102, "partition"), st));
  LITHIFY_ASSIGN_OR_RETURN(d.record_count, r.ReqInt(103, "record_count"));
  LITHIFY_ASSIGN_OR_RETURN(d.file_size_in_bytes, r.ReqInt(104, "file_size_in_bytes"));
  if (d.record_count < 0 || d.file_size_in_bytes < 0) return Status::Corruption("negative record count or size");
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 108, "column_sizes", &d.column_sizes, LongOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 109, "value_counts", &d.value_counts, LongOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 110, "null_value_counts", &d.null_value_counts, LongOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 137, "nan_value_counts", &d.nan_value_counts, LongOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 125, "lower_bounds", &d.lower_bounds, BytesOf));
  LITHIFY_RETURN_NOT_OK(ReadIdMap(r, 128, "upper_bounds", &d.upper_bounds, BytesOf));
  if (r.Get(131, "key_metadata") != nullptr) {
    return Status::NotSupported("encryption (data file '{}' has key_metadata)", d.recorded_path);
  }
  LITHIFY_RETURN_NOT_OK(ReadList(r, 132, "split_offsets", &d.split_offsets));
  LITHIFY_RETURN_NOT_OK(ReadList(r, 135, "equality_ids", &d.equality_ids));
  LITHIFY_ASSIGN_OR_RETURN(auto sort, r.Int(140, "sort_order_id"));
  d.sort_order_id = Narrow(sort);
  LITHIFY_ASSIGN_OR_RETURN(d.first_row_id, r.Int(142, "first_row_id"));
  LITHIFY_ASSIGN_OR_RETURN(d.referenced_data_file, r.Bytes(143, "referenced_data_file"));
  LITHIFY_ASSIGN_OR_RETURN(d.content_offset, r.Int(144, "content_offset"));
  LITHIFY_ASSIGN_OR_RETURN(d.content_size_in_bytes, r.Int(145, "content_size_in_bytes"));
  if (d.content == FileContent::kEqualityDeletes && d.equality_ids.empty()) {
    return Status::Corruption("equality delete file '{}' without equality_ids", d.recorded_path);
  }
  return d;
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
                    const std::function<Status(ManifestEntry&&)>& sink, const StatsSelection& stats) {
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
  reader.SetProjection(EntryProjection(s, stats));
  avro::Value v;
  int64_t next_row_id = mf.first_row_id.value_or(0);
  for (int64_t index = 0;; ++index) {
    LITHIFY_ASSIGN_OR_RETURN(bool more, reader.Next(&v));
    if (!more) return Status::OK();
    auto fail = [&](const Status& e) { return e.WithContextF("{}: entry {}", path, index); };
    Rec r{s, v};
    ManifestEntry e;
    e.spec_id = mf.spec_id;
    Result<int64_t> status = r.ReqInt(0, "status");
    if (!status.ok()) return fail(status.status());
    if (*status < 0 || *status > 2) return fail(Status::Corruption("entry status {}", *status));
    e.status = static_cast<int32_t>(*status);
    Result<std::optional<int64_t>> snap = r.Int(1, "snapshot_id");
    Result<std::optional<int64_t>> seq = r.Int(3, "sequence_number");
    Result<std::optional<int64_t>> fseq = r.Int(4, "file_sequence_number");
    if (!snap.ok() || !seq.ok() || !fseq.ok()) {
      return fail(!snap.ok() ? snap.status() : !seq.ok() ? seq.status() : fseq.status());
    }
    e.snapshot_id = snap->has_value() ? *snap : std::optional<int64_t>(mf.added_snapshot_id);
    // Inheritance: a null sequence number takes the manifest's (which is 0 for v1).
    e.sequence_number = seq->value_or(mf.sequence_number);
    e.file_sequence_number = fseq->value_or(mf.sequence_number);
    if (mf.sequence_number > 0 && e.sequence_number > mf.sequence_number) {
      return fail(Status::Corruption("data sequence number {} is above its manifest's {}", e.sequence_number,
                                     mf.sequence_number));
    }
    const avro::Value* file = r.Get(2, "data_file");
    if (file == nullptr) return fail(Status::Corruption("missing field 'data_file'"));
    Result<DataFile> d = ParseDataFile(s, *file, *st, map);
    if (!d.ok()) return fail(d.status());
    e.file = std::move(*d);
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
