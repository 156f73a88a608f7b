// A small hand-written Thrift compact-protocol reader and writer (no libthrift).
//
// Only the subset Parquet needs: structs, fields, the scalar types, binary/string,
// lists/sets and maps, plus generic skipping of any value so fields added by newer
// writers are ignored. Messages (RPC envelopes) are not supported.
//
// CompactReader never reads outside the bytes it was given and never throws. It bounds
// nesting depth (kMaxDepth), bounds every length and element count by the bytes that
// remain (every encoded element occupies at least one byte), and keeps an allocation
// budget that callers charge before reserving container storage, so hostile input
// cannot make it exhaust the stack or memory. Malformed or truncated input yields
// Status::Corruption; callers add which struct/field it was via WithContext.
//
// CompactWriter appends to a Buffer and cannot fail.
//
// Both are single-use, single-threaded cursor objects; they hold no global state, so
// distinct instances may be used concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/status.h"

namespace lithify::parquet::thrift {

// Compact-protocol wire type codes (the low nibble of a field header).
enum class WireType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,  // i8
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
  kUuid = 13,
};

// Human-readable name of a wire type, for error messages ("i32", "struct", ...).
const char* WireTypeName(WireType t);

// Deep enough for every Parquet structure (the deepest is ~5) with a wide margin for
// unknown nested fields; shallow enough that recursion cannot overflow the stack.
inline constexpr int kMaxDepth = 64;

struct FieldHeader {
  WireType type = WireType::kStop;
  int16_t id = 0;
  // For bool fields the value lives in the header itself.
  bool bool_value() const { return type == WireType::kBoolTrue; }
  bool is_bool() const { return type == WireType::kBoolTrue || type == WireType::kBoolFalse; }
};

struct ListHeader {
  WireType element_type = WireType::kStop;
  uint32_t size = 0;
};

struct MapHeader {
  WireType key_type = WireType::kStop;
  WireType value_type = WireType::kStop;
  uint32_t size = 0;
};

class CompactReader {
 public:
  // `memory_budget` bounds the bytes callers may Charge() for container storage.
  explicit CompactReader(ByteView bytes, size_t memory_budget = SIZE_MAX)
      : data_(bytes.data()), size_(bytes.size()), budget_(memory_budget) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }

  // Struct framing. ReadStructBegin enters a new field-id scope (and counts depth);
  // ReadFieldHeader returns type kStop at the struct's end; ReadStructEnd leaves it.
  Status ReadStructBegin();
  Status ReadFieldHeader(FieldHeader* field);
  Status ReadStructEnd();

  // Raw values (list elements, or field values after their header was read).
  Status ReadI8(int8_t* v);
  Status ReadI16(int16_t* v);
  Status ReadI32(int32_t* v);
  Status ReadI64(int64_t* v);
  Status ReadDouble(double* v);
  // A bool list/set/map element: one byte, 1 = true; 0 or 2 = false (the Thrift spec
  // documents 0, its reference implementations write 2).
  Status ReadBoolElement(bool* v);
  // Length-prefixed bytes. The view points into the input and is valid as long as it.
  Status ReadBinary(std::string_view* v);
  Status ReadBinary(std::string* v);

  // Container headers; sizes are already checked against the remaining bytes. Each
  // successful header read enters one nesting level; call ReadContainerEnd afterwards.
  Status ReadListHeader(ListHeader* list);  // lists and sets share the encoding
  Status ReadMapHeader(MapHeader* map);
  void ReadContainerEnd() { --depth_; }

  // Skips one value of the given wire type, recursing into containers and structs.
  Status Skip(WireType type);

  // Accounts `bytes` of memory about to be allocated on behalf of the input; Corruption
  // once the budget is exhausted (input claiming far more structure than it can hold).
  Status Charge(size_t bytes);

 private:
  Status ReadVarint(uint64_t* v, int max_bytes);
  Status Truncated(const char* what) const;
  Status EnterNesting();
  Status CheckWireType(uint8_t code) const;

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t budget_;
  int depth_ = 0;
  // Last field id per open struct, for delta-encoded field headers.
  int16_t last_field_id_[kMaxDepth + 1] = {};
  int struct_depth_ = 0;
};

class CompactWriter {
 public:
  explicit CompactWriter(Buffer* out) : out_(out) {}

  void WriteStructBegin();
  void WriteStructEnd();  // writes the STOP byte
  // Field header for a non-bool field.
  void WriteFieldHeader(WireType type, int16_t id);

  // Whole fields (header + value).
  void WriteBoolField(int16_t id, bool v);
  void WriteI8Field(int16_t id, int8_t v);
  void WriteI16Field(int16_t id, int16_t v);
  void WriteI32Field(int16_t id, int32_t v);
  void WriteI64Field(int16_t id, int64_t v);
  void WriteDoubleField(int16_t id, double v);
  void WriteBinaryField(int16_t id, std::string_view v);
  // Header for a struct field followed by WriteStructBegin.
  void WriteStructFieldBegin(int16_t id);
  // An empty struct as a field value (union members with no payload).
  void WriteEmptyStructField(int16_t id);

  // Raw values (list elements).
  void WriteI8(int8_t v);
  void WriteI16(int16_t v);
  void WriteI32(int32_t v);
  void WriteI64(int64_t v);
  void WriteDouble(double v);
  void WriteBoolElement(bool v);
  void WriteBinary(std::string_view v);
  void WriteListHeader(WireType element_type, uint32_t size);
  void WriteMapHeader(WireType key_type, WireType value_type, uint32_t size);

 private:
  void WriteVarint(uint64_t v);

  Buffer* out_;
  // Last field id per open struct. A vector, not a fixed array: the writer serializes
  // trusted in-memory values, so it has no depth limit to enforce.
  std::vector<int16_t> last_field_id_;
};

}  // namespace lithify::parquet::thrift
