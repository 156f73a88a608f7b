// Avro object container files, read side: the subset of Avro 1.11 that Iceberg manifest
// lists and manifests use, decoded by lithify itself (docs/iceberg.md says why Debian's
// libavro is not used: no zstd codec, no access to the `field-id` attributes, FILE*-only
// input).
//
// Schema::Parse reads the writer schema from the file header (avro.schema): primitives,
// records (with Iceberg's `field-id` per field), enums, arrays (`element-id`), maps
// (`key-id`/`value-id`), unions, fixed, named-type references and `logicalType`. Data is
// decoded by that writer schema into a generic Value tree; Iceberg's manifest code then
// picks fields by field id, which is how Iceberg resolves schemas (names and positions
// may differ between writers).
//
// ContainerReader streams the file block by block through ranged reads (memory bounded by
// one block, at most kMaxBlockBytes after decompression) with codecs null, deflate,
// snappy (CRC-32 checked) and zstd. Nothing read from the file is trusted: lengths,
// counts and varints are checked against the bytes that remain, nesting is limited, and
// the 16-byte sync marker must follow every block. Malformed input is Corruption naming
// the file (and block); an unknown codec is NotSupported naming it.
//
// A ContainerReader is used by one thread at a time; Schema and Value are plain values.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/macros.h"
#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"

namespace lithify::iceberg::avro {

enum class Kind : uint8_t {
  kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString, kFixed, kEnum,
  kArray, kMap, kRecord, kUnion,
};

struct Node {
  struct Field {
    std::string name;
    int node = -1;
    std::optional<int32_t> field_id;
  };
  Kind kind = Kind::kNull;
  std::string name;          // named types
  std::string logical_type;  // "date", "decimal", "map", ...
  int32_t size = 0;          // kFixed
  int32_t precision = 0, scale = 0;  // decimal logical type
  size_t num_symbols = 0;    // kEnum
  std::vector<Field> fields; // kRecord
  // kRecord: (field id, field index) sorted by id, for Value::Field's lookup (planning looks
  // up some 30 fields of every manifest entry).
  std::vector<std::pair<int32_t, int>> index_by_id;
  std::vector<int> index_by_name;  // kRecord: field indexes sorted by name (stable)
  // kRecord: the index of the field with Iceberg field id `id`, else (when `name` is given)
  // of the field with that name; -1 when neither.
  int FieldIndex(int32_t id, std::string_view name = {}) const;
  int items = -1;            // kArray items / kMap values
  std::vector<int> branches; // kUnion
  std::optional<int32_t> element_id, key_id, value_id;
};

class Schema {
 public:
  // Corruption for malformed schema JSON, unknown type names, unions inside unions,
  // duplicate field names, or nesting deeper than 32.
  static Result<Schema> Parse(std::string_view json_text);
  const Node& node(int i) const { return nodes_[i]; }
  int root() const { return root_; }
  size_t size() const { return nodes_.size(); }

 private:
  friend class SchemaParser;
  std::vector<Node> nodes_;
  int root_ = -1;
};

// A decoded datum. Unions decode to the chosen branch's value (kNull for the null branch).
struct Value {
  Kind kind = Kind::kNull;
  int node = -1;        // the schema node it was decoded with
  bool b = false;
  int64_t i = 0;        // int, long, enum index
  double d = 0;         // float, double
  std::string s;        // bytes, string, fixed
  std::vector<Value> items;       // record fields (schema order), array items, map values
  std::vector<std::string> keys;  // map keys

  bool is_null() const { return kind == Kind::kNull; }
  // Record field by Iceberg field id (then by name when `name` is given and no field has
  // the id); nullptr when absent or null.
  const Value* Field(const Schema& schema, int32_t field_id, std::string_view name = {}) const;
};

// What of a record to materialize. Planning reads a few fields of every manifest entry
// (most of an entry's bytes are column statistics it does not need); a projection lets
// the decoder step over the rest without building Values for them. Skipped bytes are still
// checked (lengths, counts, union branches, depth), so a projection never lets malformed
// input through that a full decode would refuse.
//   * SkipField(record, f): field f of record node `record` is stepped over and decodes as
//     null (Value::Field then returns nullptr, as for an absent field).
//   * KeepKeys(array, keys): an array of records whose first field is an int key (Iceberg's
//     id-keyed maps: column statistics) keeps only the items whose key is in `keys`; the
//     others are stepped over.
// A Projection belongs to one Schema (node numbers are that schema's).
class Projection {
 public:
  Projection() = default;
  explicit Projection(const Schema& schema);
  void SkipField(int record_node, size_t field);
  void KeepKeys(int array_node, std::vector<int32_t> keys);
  bool skips(int record_node, size_t field) const {
    return record_node < static_cast<int>(skip_.size()) && field < skip_[record_node].size() &&
           skip_[record_node][field];
  }
  // nullptr: every item kept.
  const std::vector<int32_t>* kept_keys(int array_node) const {
    return array_node < static_cast<int>(keys_.size()) && keys_[array_node] ? &*keys_[array_node] : nullptr;
  }

 private:
  std::vector<std::vector<bool>> skip_;                  // by record node, by field
  std::vector<std::optional<std::vector<int32_t>>> keys_;  // by array node, sorted
};

// Decodes one datum of `node` from the front of `*in` (advancing it), materializing what
// `projection` keeps (everything when null). Corruption on malformed bytes. Exposed for
// tests and fuzzing.
Status Decode(const Schema& schema, int node, ByteView* in, Value* out, const Projection* projection = nullptr);
// As Decode, over `*out` in place (as ContainerReader::Next decodes): the fields of the
// decoded kind are set and containers reuse their storage, so a Value decoded once per
// manifest entry allocates nothing in the common case. Fields of other kinds keep stale
// contents; read a Value by its kind.
Status DecodeOver(const Schema& schema, int node, ByteView* in, Value* out, const Projection* projection = nullptr);

// Binary primitives for decoders written against a known writer schema (manifest.cc's
// entry decoder, which fills Iceberg's structs without a Value tree), with the checks
// Decode makes: truncation, varint length, int range, lengths against the bytes left.
namespace wire {
// The signed value of a zigzag-encoded varint's bits (Avro's int and long encoding).
constexpr int64_t UnZigZag(uint64_t u) { return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1)); }
// Varints of more than one byte (and every error): ReadLong's and ReadInt's out-of-line half.
Result<int64_t> ReadLongSlow(ByteView* in);
Result<int32_t> ReadIntSlow(ByteView* in);
// One-byte varints (|value| < 64: field ids, map keys, small counts, union branches) are
// most of a manifest's integers, so they are decoded inline.
inline Result<int64_t> ReadLong(ByteView* in) {
  if (!in->empty() && ((*in)[0] & 0x80) == 0) {
    const uint64_t u = (*in)[0];
    *in = in->subspan(1);
    return UnZigZag(u);
  }
  return ReadLongSlow(in);
}
inline Result<int32_t> ReadInt(ByteView* in) {
  if (!in->empty() && ((*in)[0] & 0x80) == 0) {
    const uint64_t u = (*in)[0];
    *in = in->subspan(1);
    return static_cast<int32_t>(UnZigZag(u));  // one byte: |value| < 64
  }
  return ReadIntSlow(in);
}
// A length-prefixed bytes/string datum.
Result<ByteView> ReadBytes(ByteView* in);

// Fast paths for hot loops (a manifest entry's statistics maps): each decodes one datum
// from the front of `*in` and returns true, or returns false with `*in` unchanged when
// anything is off (truncated, longer than 10 bytes, out of range), so that the caller can
// run the checked function above for its error. They accept exactly what ReadLong,
// ReadInt and ReadBytes accept.
inline bool TryLong(ByteView* in, int64_t* v) {
  const uint8_t* p = in->data();
  const size_t n = in->size() < 10 ? in->size() : 10;
  uint64_t u = 0;
  for (size_t i = 0; i < n; ++i) {
    u |= static_cast<uint64_t>(p[i] & 0x7F) << (7 * i);  // bits past the 64th dropped
    if ((p[i] & 0x80) == 0) {
      *in = in->subspan(i + 1);
      *v = UnZigZag(u);
      return true;
    }
  }
  return false;
}
inline bool TryInt(ByteView* in, int32_t* v) {
  ByteView at = *in;
  int64_t w = 0;
  if (!TryLong(&at, &w) || w < INT32_MIN || w > INT32_MAX) return false;
  *in = at;
  *v = static_cast<int32_t>(w);
  return true;
}
inline bool TryBytes(ByteView* in, ByteView* out) {
  ByteView at = *in;
  int64_t n = 0;
  if (!TryLong(&at, &n) || n < 0 || static_cast<uint64_t>(n) > at.size()) return false;
  *out = at.first(static_cast<size_t>(n));
  *in = at.subspan(static_cast<size_t>(n));
  return true;
}
// Steps over `k` consecutive varints of at most 4 bytes each (|value| < 2^27 after zigzag,
// so each is a valid int and long) and returns true; returns false with `*in` unchanged
// when fewer remain or one is longer, for the caller's per-datum path to decide. A varint
// ends at a byte with the high bit clear, so 8 bytes are counted at a time by a mask and a
// popcount instead of decoding each (statistics maps planning does not read are runs of
// such varints: map<int, long> items).
bool SkipShortVarints(ByteView* in, uint64_t k);
// The branch of union node `n` (checked against its branch count).
inline Result<int64_t> ReadBranch(const Node& n, ByteView* in) {
  LITHIFY_ASSIGN_OR_RETURN(int64_t branch, ReadLong(in));
  if (branch < 0 || static_cast<size_t>(branch) >= n.branches.size()) {
    return Status::Corruption("union branch {} of {}", branch, n.branches.size());
  }
  return branch;
}
// The next block count of array or map node `n` (0 ends it; negative counts' byte sizes are
// checked and dropped); `seen` = items read so far, for the total-count bound.
Result<int64_t> ReadBlockCount(const Node& n, ByteView* in, size_t seen);
// Steps over one datum of `node` (depth: the nesting of `node`, for the depth limit).
Status Skip(const Schema& schema, int node, ByteView* in, int depth = 0);
}  // namespace wire

class ContainerReader {
 public:
  static constexpr size_t kMaxBlockBytes = size_t{256} << 20;
  // Reads and checks the header (magic "Obj\x01", metadata map, sync marker, schema,
  // codec). NotFound for a missing file, Corruption for a malformed header,
  // NotSupported for an unknown codec.
  static Result<std::unique_ptr<ContainerReader>> Open(io::FileSystem* fs, const std::string& path);
  static Result<std::unique_ptr<ContainerReader>> Open(std::unique_ptr<io::RandomAccessFile> file);
  ~ContainerReader();

  const Schema& schema() const;
  // File metadata (avro.schema, avro.codec and, for Iceberg, schema, partition-spec, ...).
  const std::map<std::string, std::string>& metadata() const;
  std::optional<std::string> Meta(const std::string& key) const;
  const std::string& path() const;
  // Records decode through `projection` from now on (it must be made for schema(); null
  // restores full decoding). The reader keeps a copy.
  void SetProjection(std::optional<Projection> projection);
  // The next record, or false after the last one.
  Result<bool> Next(Value* out);
  // The next record decoded by `decode`, which must consume exactly one datum of the
  // schema's root from the front of `*in` (the rest of the current block); false after
  // the last record. Errors get the block and the file as context, as Next's do.
  template <typename F>
  Result<bool> NextWith(F&& decode) {
    LITHIFY_ASSIGN_OR_RETURN(ByteView* in, NextRecordBytes());
    if (in == nullptr) return false;
    Status st = decode(in);
    if (!st.ok()) return RecordFailed(std::move(st));
    return true;
  }

 private:
  struct Impl;
  explicit ContainerReader(std::unique_ptr<Impl> impl);
  // NextWith's halves: the current block's undecoded bytes with one record counted as
  // consumed (nullptr after the last record), and a decode error with its context.
  Result<ByteView*> NextRecordBytes();
  Status RecordFailed(Status st) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lithify::iceberg::avro
