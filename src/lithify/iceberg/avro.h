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

// Decodes one datum of `node` from the front of `*in` (advancing it). Corruption on
// malformed bytes. Exposed for tests and fuzzing.
Status Decode(const Schema& schema, int node, ByteView* in, Value* out);

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
  // The next record, or false after the last one.
  Result<bool> Next(Value* out);

 private:
  struct Impl;
  explicit ContainerReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lithify::iceberg::avro
