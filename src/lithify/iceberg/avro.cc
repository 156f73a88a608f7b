#include "lithify/iceberg/avro.h"

#include <snappy.h>
#include <libdeflate.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <set>

#include "lithify/base/macros.h"
#include "lithify/iceberg/json.h"

namespace lithify::iceberg::avro {

namespace {

constexpr int kMaxDepth = 32;

// ---- binary primitives ----

Status Truncated(std::string_view what) { return Status::Corruption("truncated {}", what); }

Result<int64_t> ReadVarLong(ByteView* in) {
  uint64_t u = 0;
  if (in->size() >= 10) {
    // Room for the longest varint: no end check per byte (the common case, inside a block).
    const uint8_t* p = in->data();
    for (int i = 0; i < 10; ++i) {
      u |= static_cast<uint64_t>(p[i] & 0x7F) << (7 * i);
      if ((p[i] & 0x80) == 0) {
        *in = in->subspan(static_cast<size_t>(i) + 1);
        return wire::UnZigZag(u);
      }
    }
    return Status::Corruption("varint longer than 10 bytes");
  }
  for (int shift = 0; shift < 70; shift += 7) {
    if (in->empty()) return Truncated("varint");
    const uint8_t b = (*in)[0];
    *in = in->subspan(1);
    // Bits past the 64th are dropped, as Java's decoder does (some writers zigzag-encode
    // unsigned 64-bit ids into 65 bits).
    u |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return wire::UnZigZag(u);
  }
  return Status::Corruption("varint longer than 10 bytes");
}

Result<int32_t> ReadVarInt(ByteView* in) {
  LITHIFY_ASSIGN_OR_RETURN(int64_t v, ReadVarLong(in));
  if (v < INT32_MIN || v > INT32_MAX) return Status::Corruption("int {} out of the 32-bit range", v);
  return static_cast<int32_t>(v);
}

// Steps over a varint without building its value unless it must be range-checked (an int
// of 5 bytes): the same errors as ReadVarInt / ReadVarLong, for a fraction of the work.
Status SkipVarint(ByteView* in, bool is_int) {
  const size_t n = std::min<size_t>(in->size(), 10);
  for (size_t i = 0; i < n; ++i) {
    if (((*in)[i] & 0x80) != 0) continue;
    if (is_int && i >= 4) return ReadVarInt(in).status();
    *in = in->subspan(i + 1);
    return Status::OK();
  }
  return in->size() < 10 ? Truncated("varint") : Status::Corruption("varint longer than 10 bytes");
}

Result<ByteView> TakeBytes(ByteView* in, int64_t n) {
  if (n < 0) return Status::Corruption("negative length {}", n);
  if (static_cast<uint64_t>(n) > in->size()) {
    return Status::Corruption("length {} exceeds the {} bytes left", n, in->size());
  }
  ByteView out = in->first(static_cast<size_t>(n));
  *in = in->subspan(static_cast<size_t>(n));
  return out;
}

// ---- schema ----

const std::map<std::string, Kind, std::less<>>& PrimitiveNames() {
  static const std::map<std::string, Kind, std::less<>> m = {
      {"null", Kind::kNull},     {"boolean", Kind::kBoolean}, {"int", Kind::kInt},
      {"long", Kind::kLong},     {"float", Kind::kFloat},     {"double", Kind::kDouble},
      {"bytes", Kind::kBytes},   {"string", Kind::kString},
  };
  return m;
}

}  // namespace

class SchemaParser {
 public:
  Schema schema;
  std::map<std::string, int> named;

  Result<int> Add(const json::Json& j, int depth, const std::string& ns) {
    if (depth > kMaxDepth) return Status::Corruption("Avro schema nested deeper than {}", kMaxDepth);
    if (j.is_string()) {
      const std::string& s = j.get_ref<const std::string&>();
      if (auto it = PrimitiveNames().find(s); it != PrimitiveNames().end()) return Push(Node{it->second});
      if (auto it = named.find(s); it != named.end()) return it->second;
      if (auto it = named.find(ns.empty() ? s : ns + "." + s); it != named.end()) return it->second;
      return Status::Corruption("Avro schema: unknown type '{}'", s);
    }
    if (j.is_array()) {
      Node u{Kind::kUnion};
      for (const json::Json& b : j) {
        if (b.is_array()) return Status::Corruption("Avro schema: union inside a union");
        LITHIFY_ASSIGN_OR_RETURN(int n, Add(b, depth + 1, ns));
        u.branches.push_back(n);
      }
      if (u.branches.empty()) return Status::Corruption("Avro schema: empty union");
      return Push(std::move(u));
    }
    if (!j.is_object()) return Status::Corruption("Avro schema: a type must be a string, array or object");
    LITHIFY_ASSIGN_OR_RETURN(std::string type, json::ReqString(j, "type"));
    LITHIFY_ASSIGN_OR_RETURN(auto logical, json::OptString(j, "logicalType"));
    if (auto it = PrimitiveNames().find(type); it != PrimitiveNames().end()) {
      Node n{it->second};
      n.logical_type = logical.value_or("");
      return Push(std::move(n));
    }
    if (type == "record" || type == "error" || type == "enum" || type == "fixed") {
      return Named(j, type, logical.value_or(""), depth, ns);
    }
    if (type == "array") {
      const json::Json* items = json::Field(j, "items");
      if (items == nullptr) return Status::Corruption("Avro schema: array without 'items'");
      Node n{Kind::kArray};
      n.logical_type = logical.value_or("");
      LITHIFY_ASSIGN_OR_RETURN(n.element_id, json::OptInt32(j, "element-id"));
      LITHIFY_ASSIGN_OR_RETURN(n.items, Add(*items, depth + 1, ns));
      return Push(std::move(n));
    }
    if (type == "map") {
      const json::Json* values = json::Field(j, "values");
      if (values == nullptr) return Status::Corruption("Avro schema: map without 'values'");
      Node n{Kind::kMap};
      LITHIFY_ASSIGN_OR_RETURN(n.key_id, json::OptInt32(j, "key-id"));
      LITHIFY_ASSIGN_OR_RETURN(n.value_id, json::OptInt32(j, "value-id"));
      LITHIFY_ASSIGN_OR_RETURN(n.items, Add(*values, depth + 1, ns));
      return Push(std::move(n));
    }
    // {"type": {...}} wraps another type.
    if (const json::Json* inner = json::Field(j, "type"); inner != nullptr && !inner->is_string()) {
      return Add(*inner, depth + 1, ns);
    }
    if (auto it = named.find(type); it != named.end()) return it->second;
    return Status::Corruption("Avro schema: unknown type '{}'", type);
  }

 private:
  int Push(Node n) {
    schema.nodes_.push_back(std::move(n));
    return static_cast<int>(schema.nodes_.size() - 1);
  }

  Result<int> Named(const json::Json& j, const std::string& type, std::string logical, int depth,
                    const std::string& outer_ns) {
    LITHIFY_ASSIGN_OR_RETURN(std::string name, json::ReqString(j, "name"));
    LITHIFY_ASSIGN_OR_RETURN(auto ns_field, json::OptString(j, "namespace"));
    std::string ns = ns_field.value_or(outer_ns);
    std::string full = name.find('.') != std::string::npos || ns.empty() ? name : ns + "." + name;
    if (named.count(full)) return Status::Corruption("Avro schema: type '{}' is defined twice", full);
    Node n;
    n.name = full;
    n.logical_type = std::move(logical);
    if (type == "fixed") {
      n.kind = Kind::kFixed;
      LITHIFY_ASSIGN_OR_RETURN(int64_t size, json::ReqInt(j, "size"));
      if (size < 0 || size > (1 << 20)) return Status::Corruption("Avro schema: fixed size {}", size);
      n.size = static_cast<int32_t>(size);
      LITHIFY_ASSIGN_OR_RETURN(auto p, json::OptInt32(j, "precision"));
      LITHIFY_ASSIGN_OR_RETURN(auto s, json::OptInt32(j, "scale"));
      n.precision = p.value_or(0);
      n.scale = s.value_or(0);
    } else if (type == "enum") {
      n.kind = Kind::kEnum;
      LITHIFY_ASSIGN_OR_RETURN(const json::Json* symbols, json::ReqArray(j, "symbols"));
      n.num_symbols = symbols->size();
    } else {
      n.kind = Kind::kRecord;
    }
    const int index = Push(std::move(n));
    named[full] = index;
    if (type == "record" || type == "error") {
      LITHIFY_ASSIGN_OR_RETURN(const json::Json* fields, json::ReqArray(j, "fields"));
      std::set<std::string> names;
      std::vector<Node::Field> out;
      for (const json::Json& f : *fields) {
        Node::Field nf;
        LITHIFY_ASSIGN_OR_RETURN(nf.name, json::ReqString(f, "name"));
        if (!names.insert(nf.name).second) {
          return Status::Corruption("Avro schema: record '{}' has field '{}' twice", full, nf.name);
        }
        LITHIFY_ASSIGN_OR_RETURN(nf.field_id, json::OptInt32(f, "field-id"));
        const json::Json* t = json::Field(f, "type");
        if (t == nullptr) return Status::Corruption("Avro schema: field '{}' without a type", nf.name);
        LITHIFY_ASSIGN_OR_RETURN(nf.node, Add(*t, depth + 1, ns));
        out.push_back(std::move(nf));
      }
      schema.nodes_[index].fields = std::move(out);
    }
    return index;
  }
};

// The lookup tables of a record node: fields by id (the first of duplicates) and by name.
static void IndexFields(Node* n) {
  for (size_t i = 0; i < n->fields.size(); ++i) {
    if (n->fields[i].field_id) n->index_by_id.emplace_back(*n->fields[i].field_id, static_cast<int>(i));
    n->index_by_name.push_back(static_cast<int>(i));
  }
  std::stable_sort(n->index_by_id.begin(), n->index_by_id.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::stable_sort(n->index_by_name.begin(), n->index_by_name.end(),
                   [n](int a, int b) { return n->fields[a].name < n->fields[b].name; });
}

Result<Schema> Schema::Parse(std::string_view text) {
  LITHIFY_ASSIGN_OR_RETURN(json::Json j, json::Parse(text));
  SchemaParser p;
  LITHIFY_ASSIGN_OR_RETURN(int root, p.Add(j, 0, ""));
  p.schema.root_ = root;
  for (Node& n : p.schema.nodes_) IndexFields(&n);
  return std::move(p.schema);
}

int Node::FieldIndex(int32_t id, std::string_view name) const {
  auto it = std::lower_bound(index_by_id.begin(), index_by_id.end(), id,
                             [](const std::pair<int32_t, int>& e, int32_t want) { return e.first < want; });
  if (it != index_by_id.end() && it->first == id) return it->second;
  if (name.empty()) return -1;
  // No field has the id: the field of that name (writers without field ids).
  auto past = std::upper_bound(index_by_name.begin(), index_by_name.end(), name,
                               [this](std::string_view want, int i) { return want < fields[i].name; });
  if (past == index_by_name.begin() || fields[*(past - 1)].name != name) return -1;
  return *(past - 1);
}

const Value* Value::Field(const Schema& schema, int32_t field_id, std::string_view name) const {
  if (kind != Kind::kRecord || node < 0) return nullptr;
  const int i = schema.node(node).FieldIndex(field_id, name);
  if (i < 0 || static_cast<size_t>(i) >= items.size()) return nullptr;
  return items[i].is_null() ? nullptr : &items[i];
}

Projection::Projection(const Schema& schema) : skip_(schema.size()), keys_(schema.size()) {}

void Projection::SkipField(int record_node, size_t field) {
  if (record_node < 0 || record_node >= static_cast<int>(skip_.size())) return;
  std::vector<bool>& s = skip_[record_node];
  if (s.size() <= field) s.resize(field + 1);
  s[field] = true;
}

void Projection::KeepKeys(int array_node, std::vector<int32_t> keys) {
  if (array_node < 0 || array_node >= static_cast<int>(keys_.size())) return;
  std::sort(keys.begin(), keys.end());
  keys_[array_node] = std::move(keys);
}

namespace {

Status DecodeAt(const Schema& schema, int node, ByteView* in, Value* out, int depth, const Projection* proj);
Status SkipAt(const Schema& schema, int node, ByteView* in, int depth);

// The count of the next array or map block (negative counts carry the block's byte size,
// checked and dropped); 0 ends the array. Items must each take a byte unless the item type
// is empty-sized, so a count is bounded by the bytes left.
Result<int64_t> BlockCount(const Node& n, ByteView* in, size_t used) {
  const bool is_map = n.kind == Kind::kMap;
  LITHIFY_ASSIGN_OR_RETURN(int64_t count, ReadVarLong(in));
  if (count < 0) {
    if (count == INT64_MIN) return Status::Corruption("block count out of range");
    count = -count;
    LITHIFY_ASSIGN_OR_RETURN(int64_t bytes, ReadVarLong(in));
    if (bytes < 0 || static_cast<uint64_t>(bytes) > in->size()) {
      return Status::Corruption("block size {} exceeds the {} bytes left", bytes, in->size());
    }
  }
  if (static_cast<uint64_t>(count) > in->size() + 1 || used + count > (size_t{1} << 26)) {
    return Status::Corruption("{} count {} exceeds the {} bytes left", is_map ? "map" : "array", count, in->size());
  }
  return count;
}

// Whether the next item of a key-filtered array (records {int key, ...}) is kept: peeks at
// the key without consuming it.
Result<bool> KeyKept(const Schema& schema, const Node& item, ByteView in, const std::vector<int32_t>& keys) {
  if (item.kind != Kind::kRecord || item.fields.empty() || schema.node(item.fields[0].node).kind != Kind::kInt) {
    return true;  // not an id-keyed map: keep everything
  }
  LITHIFY_ASSIGN_OR_RETURN(int32_t key, ReadVarInt(&in));
  return std::binary_search(keys.begin(), keys.end(), key);
}

// Array and map blocks, until a zero count.
// `out` may hold an earlier datum (ContainerReader::Next reuses one Value per file): its
// items and keys are overwritten in place and cut to the new count, so their allocations
// are reused instead of freed and made again for every record.
Status DecodeBlocks(const Schema& schema, int node, ByteView* in, Value* out, int depth, const Projection* proj) {
  const Node& n = schema.node(node);
  const bool is_map = n.kind == Kind::kMap;
  const std::vector<int32_t>* keep = !is_map && proj != nullptr ? proj->kept_keys(node) : nullptr;
  size_t used = 0, seen = 0;
  for (;;) {
    LITHIFY_ASSIGN_OR_RETURN(int64_t count, BlockCount(n, in, seen));
    if (count == 0) {
      out->items.resize(used);
      out->keys.resize(is_map ? used : 0);
      return Status::OK();
    }
    for (int64_t k = 0; k < count; ++k, ++seen) {
      if (keep != nullptr) {
        LITHIFY_ASSIGN_OR_RETURN(bool kept, KeyKept(schema, schema.node(n.items), *in, *keep));
        if (!kept) {
          LITHIFY_RETURN_NOT_OK(SkipAt(schema, n.items, in, depth + 1));
          continue;
        }
      }
      if (is_map) {
        LITHIFY_ASSIGN_OR_RETURN(int64_t len, ReadVarLong(in));
        LITHIFY_ASSIGN_OR_RETURN(ByteView key, TakeBytes(in, len));
        if (used < out->keys.size()) {
          out->keys[used].assign(AsStringView(key));
        } else {
          out->keys.emplace_back(AsStringView(key));
        }
      }
      if (used == out->items.size()) out->items.emplace_back();
      LITHIFY_RETURN_NOT_OK(DecodeAt(schema, n.items, in, &out->items[used], depth + 1, proj));
      ++used;
    }
  }
}

// Steps over one datum of `node` with the checks DecodeAt makes, storing nothing.
Status SkipAt(const Schema& schema, int node, ByteView* in, int depth) {
  if (depth > kMaxDepth) return Status::Corruption("Avro datum nested deeper than {}", kMaxDepth);
  const Node& n = schema.node(node);
  switch (n.kind) {
    case Kind::kNull: return Status::OK();
    case Kind::kBoolean:
      if (in->empty()) return Truncated("boolean");
      if ((*in)[0] > 1) return Status::Corruption("boolean byte {}", (*in)[0]);
      *in = in->subspan(1);
      return Status::OK();
    case Kind::kInt:
    case Kind::kLong: return SkipVarint(in, n.kind == Kind::kInt);
    case Kind::kFloat:
    case Kind::kDouble: {
      const size_t w = n.kind == Kind::kFloat ? 4 : 8;
      if (in->size() < w) return Truncated(n.kind == Kind::kFloat ? "float" : "double");
      *in = in->subspan(w);
      return Status::OK();
    }
    case Kind::kBytes:
    case Kind::kString: {
      LITHIFY_ASSIGN_OR_RETURN(int64_t len, ReadVarLong(in));
      return TakeBytes(in, len).status();
    }
    case Kind::kFixed: return TakeBytes(in, n.size).status();
    case Kind::kEnum: {
      LITHIFY_ASSIGN_OR_RETURN(int32_t i, ReadVarInt(in));
      if (i < 0 || static_cast<size_t>(i) >= n.num_symbols) {
        return Status::Corruption("enum index {} of {} symbols", i, n.num_symbols);
      }
      return Status::OK();
    }
    case Kind::kUnion: {
      LITHIFY_ASSIGN_OR_RETURN(int64_t branch, ReadVarLong(in));
      if (branch < 0 || static_cast<size_t>(branch) >= n.branches.size()) {
        return Status::Corruption("union branch {} of {}", branch, n.branches.size());
      }
      return SkipAt(schema, n.branches[branch], in, depth + 1);
    }
    case Kind::kArray:
    case Kind::kMap: {
      size_t seen = 0;
      for (;;) {
        LITHIFY_ASSIGN_OR_RETURN(int64_t count, BlockCount(n, in, seen));
        if (count == 0) return Status::OK();
        for (int64_t k = 0; k < count; ++k, ++seen) {
          if (n.kind == Kind::kMap) {
            LITHIFY_ASSIGN_OR_RETURN(int64_t len, ReadVarLong(in));
            LITHIFY_RETURN_NOT_OK(TakeBytes(in, len).status());
          }
          LITHIFY_RETURN_NOT_OK(SkipAt(schema, n.items, in, depth + 1));
        }
      }
    }
    case Kind::kRecord:
      for (const Node::Field& f : n.fields) {
        Status st = SkipAt(schema, f.node, in, depth + 1);
        if (!st.ok()) return st.WithContextF("field '{}'", f.name);
      }
      return Status::OK();
  }
  return Status::Internal("unknown Avro kind");
}

Status DecodeAt(const Schema& schema, int node, ByteView* in, Value* out, int depth, const Projection* proj) {
  if (depth > kMaxDepth) return Status::Corruption("Avro datum nested deeper than {}", kMaxDepth);
  const Node& n = schema.node(node);
  out->node = node;
  out->kind = n.kind;
  switch (n.kind) {
    case Kind::kNull: return Status::OK();
    case Kind::kBoolean: {
      if (in->empty()) return Truncated("boolean");
      if ((*in)[0] > 1) return Status::Corruption("boolean byte {}", (*in)[0]);
      out->b = (*in)[0] == 1;
      *in = in->subspan(1);
      return Status::OK();
    }
    case Kind::kInt: {
      LITHIFY_ASSIGN_OR_RETURN(out->i, ReadVarInt(in));
      return Status::OK();
    }
    case Kind::kLong: {
      LITHIFY_ASSIGN_OR_RETURN(out->i, ReadVarLong(in));
      return Status::OK();
    }
    case Kind::kFloat: {
      if (in->size() < 4) return Truncated("float");
      float f;
      std::memcpy(&f, in->data(), 4);
      out->d = f;
      *in = in->subspan(4);
      return Status::OK();
    }
    case Kind::kDouble: {
      if (in->size() < 8) return Truncated("double");
      std::memcpy(&out->d, in->data(), 8);
      *in = in->subspan(8);
      return Status::OK();
    }
    case Kind::kBytes:
    case Kind::kString: {
      LITHIFY_ASSIGN_OR_RETURN(int64_t len, ReadVarLong(in));
      LITHIFY_ASSIGN_OR_RETURN(ByteView b, TakeBytes(in, len));
      out->s.assign(AsStringView(b));
      return Status::OK();
    }
    case Kind::kFixed: {
      LITHIFY_ASSIGN_OR_RETURN(ByteView b, TakeBytes(in, n.size));
      out->s.assign(AsStringView(b));
      return Status::OK();
    }
    case Kind::kEnum: {
      LITHIFY_ASSIGN_OR_RETURN(out->i, ReadVarInt(in));
      if (out->i < 0 || static_cast<size_t>(out->i) >= n.num_symbols) {
        return Status::Corruption("enum index {} of {} symbols", out->i, n.num_symbols);
      }
      return Status::OK();
    }
    case Kind::kUnion: {
      LITHIFY_ASSIGN_OR_RETURN(int64_t branch, ReadVarLong(in));
      if (branch < 0 || static_cast<size_t>(branch) >= n.branches.size()) {
        return Status::Corruption("union branch {} of {}", branch, n.branches.size());
      }
      return DecodeAt(schema, n.branches[branch], in, out, depth + 1, proj);
    }
    case Kind::kArray:
    case Kind::kMap: return DecodeBlocks(schema, node, in, out, depth, proj);
    case Kind::kRecord: {
      out->items.resize(n.fields.size());
      for (size_t f = 0; f < n.fields.size(); ++f) {
        Status st;
        if (proj != nullptr && proj->skips(node, f)) {
          st = SkipAt(schema, n.fields[f].node, in, depth + 1);
          out->items[f].kind = Kind::kNull;
          out->items[f].node = n.fields[f].node;
        } else {
          st = DecodeAt(schema, n.fields[f].node, in, &out->items[f], depth + 1, proj);
        }
        if (!st.ok()) return st.WithContextF("field '{}'", n.fields[f].name);
      }
      return Status::OK();
    }
  }
  return Status::Internal("unknown Avro kind");
}

// ---- codecs ----

// Raw deflate (Avro's "deflate" codec, RFC 1951 without a zlib header) by libdeflate's
// whole-buffer decompressor: about twice zlib's speed, and a manifest's blocks are whole
// buffers anyway. Its output size must be guessed, and a wrong guess costs a second
// decompression: the largest of `hint` (the previous block's size), the last size this
// thread inflated plus a quarter (a table's manifests are alike: the first block of the
// next manifest then fits at once) and 4x the input, doubled until it fits, up to
// kMaxBlockBytes. Bytes after the end of the deflate stream are ignored, as zlib's
// inflate ignores them.
Result<Buffer> Inflate(ByteView in, const std::string& what, size_t hint) {
  thread_local size_t last_inflated = 0;
  struct Free {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
  };
  std::unique_ptr<libdeflate_decompressor, Free> d(libdeflate_alloc_decompressor());
  if (d == nullptr) return Status::Internal("libdeflate: no memory for a decompressor");
  Buffer out;
  size_t capacity =
      std::min(std::max({hint, last_inflated + last_inflated / 4, in.size() * 4, size_t{1024}}),
               ContainerReader::kMaxBlockBytes);
  for (;;) {
    out.Resize(capacity);
    size_t used_in = 0, produced = 0;
    const libdeflate_result rc =
        libdeflate_deflate_decompress_ex(d.get(), in.data(), in.size(), out.data(), out.size(), &used_in, &produced);
    if (rc == LIBDEFLATE_SUCCESS) {
      out.Resize(produced);
      last_inflated = produced;
      return out;
    }
    if (rc != LIBDEFLATE_INSUFFICIENT_SPACE) return Status::Corruption("{}: broken or truncated deflate data", what);
    if (capacity >= ContainerReader::kMaxBlockBytes) {
      return Status::NotSupported("{}: block inflates past {} bytes", what, ContainerReader::kMaxBlockBytes);
    }
    capacity = std::min(capacity * 2, ContainerReader::kMaxBlockBytes);
  }
}

Result<Buffer> Unzstd(ByteView in, const std::string& what) {
  ZSTD_DStream* d = ZSTD_createDStream();
  if (d == nullptr) return Status::Internal("zstd init failed");
  Buffer out;
  out.Resize(std::max<size_t>(in.size() * 4, 1024));
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  size_t produced = 0;
  size_t rc = 1;
  while (ib.pos < ib.size || rc != 0) {
    if (produced == out.size()) {
      if (out.size() >= ContainerReader::kMaxBlockBytes) {
        ZSTD_freeDStream(d);
        return Status::NotSupported("{}: block decompresses past {} bytes", what, ContainerReader::kMaxBlockBytes);
      }
      out.Resize(std::min(out.size() * 2, ContainerReader::kMaxBlockBytes));
    }
    ZSTD_outBuffer ob{out.data() + produced, out.size() - produced, 0};
    const size_t before = ib.pos;
    rc = ZSTD_decompressStream(d, &ob, &ib);
    produced += ob.pos;
    if (ZSTD_isError(rc)) {
      ZSTD_freeDStream(d);
      return Status::Corruption("{}: broken zstd data ({})", what, ZSTD_getErrorName(rc));
    }
    if (ib.pos == ib.size && rc != 0 && ob.pos == 0 && before == ib.pos) {
      ZSTD_freeDStream(d);
      return Status::Corruption("{}: truncated zstd data", what);
    }
  }
  ZSTD_freeDStream(d);
  out.Resize(produced);
  return out;
}

Result<Buffer> Unsnappy(ByteView in, const std::string& what) {
  // Avro's snappy blocks end with the big-endian CRC-32 of the uncompressed bytes.
  if (in.size() < 4) return Status::Corruption("{}: snappy block without its CRC", what);
  ByteView body = in.first(in.size() - 4);
  const uint8_t* c = in.data() + in.size() - 4;
  const uint32_t want = uint32_t{c[0]} << 24 | uint32_t{c[1]} << 16 | uint32_t{c[2]} << 8 | c[3];
  size_t n = 0;
  const char* p = reinterpret_cast<const char*>(body.data());
  if (!snappy::GetUncompressedLength(p, body.size(), &n)) return Status::Corruption("{}: broken snappy data", what);
  if (n > ContainerReader::kMaxBlockBytes) {
    return Status::NotSupported("{}: block decompresses to {} bytes", what, n);
  }
  Buffer out;
  out.Resize(n);
  if (!snappy::RawUncompress(p, body.size(), reinterpret_cast<char*>(out.data()))) {
    return Status::Corruption("{}: broken snappy data", what);
  }
  const uint32_t got = libdeflate_crc32(0, out.data(), n);  // zlib's CRC-32 (IEEE)
  if (got != want) return Status::Corruption("{}: snappy block CRC mismatch", what);
  return out;
}

}  // namespace

namespace wire {
Result<int64_t> ReadLongSlow(ByteView* in) { return ReadVarLong(in); }
Result<int32_t> ReadIntSlow(ByteView* in) { return ReadVarInt(in); }
Result<ByteView> ReadBytes(ByteView* in) {
  LITHIFY_ASSIGN_OR_RETURN(int64_t len, ReadVarLong(in));
  return TakeBytes(in, len);
}
Result<int64_t> ReadBlockCount(const Node& n, ByteView* in, size_t seen) { return BlockCount(n, in, seen); }
Status Skip(const Schema& schema, int node, ByteView* in, int depth) { return SkipAt(schema, node, in, depth); }

namespace {
constexpr uint64_t kHighBits = 0x8080808080808080ull;
constexpr int kMaxShortVarint = 4;  // bytes

// One 8-byte word of SkipShortVarints: `cont` = the word's continuation bits, `used` the
// bytes of it that belong to the run. Updates `*run` (continuation bytes since the last
// varint end); false when a varint would be longer than kMaxShortVarint.
bool ShortVarintWord(uint64_t cont, size_t used, int* run) {
  const uint64_t mask = used < 8 ? (uint64_t{1} << (8 * used)) - 1 : ~uint64_t{0};
  cont &= mask;
  const uint64_t ends = ~cont & kHighBits & mask;
  // 4 continuation bytes in a row inside the word, or across the previous word's tail.
  if ((cont & (cont >> 8) & (cont >> 16) & (cont >> 24)) != 0) return false;
  if (ends == 0) {
    *run += static_cast<int>(used);
    return *run < kMaxShortVarint;
  }
  if (*run + std::countr_zero(ends) / 8 >= kMaxShortVarint) return false;
  const int last = (63 - std::countl_zero(ends)) / 8;  // the byte of the last end
  *run = static_cast<int>(used) - 1 - last;
  return true;
}
}  // namespace

bool SkipShortVarints(ByteView* in, uint64_t k) {
  const uint8_t* p = in->data();
  const uint8_t* const end = p + in->size();
  int run = 0;
  while (k > 0 && end - p >= 8) {
    uint64_t w = 0;
    std::memcpy(&w, p, 8);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    uint64_t ends = ~w & kHighBits;
    size_t used = 8;
    const uint64_t found = static_cast<uint64_t>(std::popcount(ends));
    if (found >= k) {  // the run ends in this word, at its k-th varint end
      for (uint64_t i = 1; i < k; ++i) ends &= ends - 1;
      used = static_cast<size_t>(std::countr_zero(ends)) / 8 + 1;
    }
    if (!ShortVarintWord(w & kHighBits, used, &run)) return false;
    k -= found >= k ? k : found;
    p += used;
  }
  for (; k > 0 && p < end; ++p) {  // the tail, fewer than 8 bytes
    if ((*p & 0x80) == 0) {
      run = 0;
      --k;
    } else if (++run >= kMaxShortVarint) {
      return false;
    }
  }
  if (k > 0) return false;
  *in = in->subspan(static_cast<size_t>(p - in->data()));
  return true;
}
}  // namespace wire

Status Decode(const Schema& schema, int node, ByteView* in, Value* out, const Projection* projection) {
  *out = Value();
  return DecodeOver(schema, node, in, out, projection);
}

Status DecodeOver(const Schema& schema, int node, ByteView* in, Value* out, const Projection* projection) {
  if (node < 0 || static_cast<size_t>(node) >= schema.size()) return Status::InvalidArgument("no such schema node");
  return DecodeAt(schema, node, in, out, 0, projection);
}

// ---- container ----

struct ContainerReader::Impl {
  std::unique_ptr<io::RandomAccessFile> file;
  std::optional<Projection> projection;
  std::string path;
  Schema schema;
  std::map<std::string, std::string> meta;
  enum class Codec { kNull, kDeflate, kSnappy, kZstd } codec = Codec::kNull;
  uint8_t sync[16] = {};
  uint64_t pos = 0;       // next block header offset
  int64_t block = -1;     // blocks read so far - 1
  Buffer raw;             // the current block as stored
  Buffer decoded;         // after the codec
  ByteView rest;          // undecoded records of the current block
  int64_t left = 0;       // records left in the current block

  Status Fail(Status st) const { return st.WithContext(path); }

  // Reads up to `n` bytes at `at` (fewer at the end of the file).
  Result<Buffer> ReadSome(uint64_t at, size_t n) {
    const uint64_t size = file->size();
    if (at >= size) return Buffer();
    return file->Read(at, static_cast<size_t>(std::min<uint64_t>(n, size - at)));
  }

  Status ReadHeader() {
    // The header is small but unbounded (metadata map): read 64 KiB, grow if needed.
    size_t want = 64 * 1024;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(Buffer head, ReadSome(0, want));
      Status st = ParseHeader(head.view());
      if (st.ok() || !st.IsCorruption() || head.size() < want || want >= (size_t{64} << 20)) return st;
      want *= 8;
    }
  }

  Status ParseHeader(ByteView b) {
    ByteView in = b;
    if (in.size() < 4 || std::memcmp(in.data(), "Obj\x01", 4) != 0) {
      return Status::Corruption("not an Avro object container file (bad magic)");
    }
    in = in.subspan(4);
    meta.clear();
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(int64_t count, ReadVarLong(&in));
      if (count == 0) break;
      if (count < 0) {
        // -INT64_MIN does not exist (the fuzzer found it: undefined behaviour).
        if (count == INT64_MIN) return Status::Corruption("header metadata count out of range");
        count = -count;
        LITHIFY_ASSIGN_OR_RETURN(int64_t ignored, ReadVarLong(&in));
        (void)ignored;
      }
      if (static_cast<uint64_t>(count) > in.size()) return Status::Corruption("header metadata count {}", count);
      for (int64_t k = 0; k < count; ++k) {
        LITHIFY_ASSIGN_OR_RETURN(int64_t klen, ReadVarLong(&in));
        LITHIFY_ASSIGN_OR_RETURN(ByteView key, TakeBytes(&in, klen));
        LITHIFY_ASSIGN_OR_RETURN(int64_t vlen, ReadVarLong(&in));
        LITHIFY_ASSIGN_OR_RETURN(ByteView val, TakeBytes(&in, vlen));
        meta[std::string(AsStringView(key))] = std::string(AsStringView(val));
      }
    }
    if (in.size() < 16) return Truncated("header sync marker");
    std::memcpy(sync, in.data(), 16);
    pos = b.size() - in.size() + 16;
    auto s = meta.find("avro.schema");
    if (s == meta.end()) return Status::Corruption("header has no avro.schema");
    Result<Schema> parsed = Schema::Parse(s->second);
    if (!parsed.ok()) return parsed.status().WithContext("avro.schema");
    schema = std::move(*parsed);
    auto c = meta.find("avro.codec");
    const std::string codec_name = c == meta.end() ? "null" : c->second;
    if (codec_name == "null") codec = Codec::kNull;
    else if (codec_name == "deflate") codec = Codec::kDeflate;
    else if (codec_name == "snappy") codec = Codec::kSnappy;
    else if (codec_name == "zstandard" || codec_name == "zstd") codec = Codec::kZstd;
    else return Status::NotSupported("Avro codec '{}' (lithify reads null, deflate, snappy, zstandard)", codec_name);
    return Status::OK();
  }

  // Loads the next block; false at the end of the file.
  Result<bool> NextBlock() {
    const uint64_t size = file->size();
    if (pos == size) return false;
    LITHIFY_ASSIGN_OR_RETURN(Buffer head, ReadSome(pos, 20));
    ByteView in = head.view();
    LITHIFY_ASSIGN_OR_RETURN(int64_t count, ReadVarLong(&in));
    LITHIFY_ASSIGN_OR_RETURN(int64_t bytes, ReadVarLong(&in));
    ++block;
    if (count < 0 || bytes < 0) return Status::Corruption("block {}: negative count or size", block);
    const uint64_t body_at = pos + (head.size() - in.size());
    if (static_cast<uint64_t>(bytes) > kMaxBlockBytes) {
      return Status::NotSupported("block {}: {} bytes is above {}", block, bytes, kMaxBlockBytes);
    }
    if (body_at + bytes + 16 > size) {
      return Status::Corruption("block {}: {} bytes and its sync marker run past the end of the file", block, bytes);
    }
    LITHIFY_ASSIGN_OR_RETURN(raw, file->Read(body_at, static_cast<size_t>(bytes) + 16));
    if (std::memcmp(raw.data() + bytes, sync, 16) != 0) {
      return Status::Corruption("block {}: sync marker mismatch", block);
    }
    ByteView body = raw.view().first(static_cast<size_t>(bytes));
    const std::string what = fmt::format("block {}", block);
    switch (codec) {
      case Codec::kNull: rest = body; break;
      case Codec::kDeflate: {
        LITHIFY_ASSIGN_OR_RETURN(decoded, Inflate(body, what, decoded.size()));
        rest = decoded.view();
        break;
      }
      case Codec::kSnappy: { LITHIFY_ASSIGN_OR_RETURN(decoded, Unsnappy(body, what)); rest = decoded.view(); break; }
      case Codec::kZstd: { LITHIFY_ASSIGN_OR_RETURN(decoded, Unzstd(body, what)); rest = decoded.view(); break; }
    }
    if (static_cast<uint64_t>(count) > rest.size() + 1) {
      return Status::Corruption("block {}: {} records in {} bytes", block, count, rest.size());
    }
    left = count;
    pos = body_at + bytes + 16;
    return true;
  }
};

ContainerReader::ContainerReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ContainerReader::~ContainerReader() = default;

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(io::FileSystem* fs, const std::string& path) {
  LITHIFY_ASSIGN_OR_RETURN(auto file, fs->OpenForRead(path));
  return Open(std::move(file));
}

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(std::unique_ptr<io::RandomAccessFile> file) {
  auto impl = std::make_unique<Impl>();
  impl->path = file->path();
  impl->file = std::move(file);
  Status st = impl->ReadHeader();
  if (!st.ok()) return impl->Fail(st);
  return std::unique_ptr<ContainerReader>(new ContainerReader(std::move(impl)));
}

const Schema& ContainerReader::schema() const { return impl_->schema; }
const std::map<std::string, std::string>& ContainerReader::metadata() const { return impl_->meta; }
const std::string& ContainerReader::path() const { return impl_->path; }

std::optional<std::string> ContainerReader::Meta(const std::string& key) const {
  auto it = impl_->meta.find(key);
  if (it == impl_->meta.end()) return std::nullopt;
  return it->second;
}

void ContainerReader::SetProjection(std::optional<Projection> projection) {
  impl_->projection = std::move(projection);
}

Result<ByteView*> ContainerReader::NextRecordBytes() {
  Impl& m = *impl_;
  while (m.left == 0) {
    if (!m.rest.empty() && m.block >= 0) {
      return m.Fail(Status::Corruption("block {}: {} bytes left after its records", m.block, m.rest.size()));
    }
    Result<bool> more = m.NextBlock();
    if (!more.ok()) return m.Fail(more.status());
    if (!*more) return nullptr;
  }
  --m.left;
  return &m.rest;
}

Status ContainerReader::RecordFailed(Status st) const {
  return impl_->Fail(st.WithContextF("block {}", impl_->block));
}

Result<bool> ContainerReader::Next(Value* out) {
  const Impl& m = *impl_;
  // `out` is decoded over in place (DecodeAt sets kind and the fields of that kind;
  // containers reuse their element storage), which saves most allocations per record.
  return NextWith([&](ByteView* in) {
    return DecodeAt(m.schema, m.schema.root(), in, out, 0, m.projection ? &*m.projection : nullptr);
  });
}

}  // namespace lithify::iceberg::avro
