#include "lithify/parquet/thrift_compact.h"

#include <bit>
#include <cstring>
#include <limits>

#include "lithify/base/macros.h"
#include "lithify/parquet/bit_util.h"

namespace lithify::parquet::thrift {
namespace {

static_assert(std::endian::native == std::endian::little,
              "doubles are copied as little-endian bytes");

constexpr uint8_t kMaxWireType = static_cast<uint8_t>(WireType::kUuid);

using bit_util::ZigzagEncode;
int64_t ZigzagDecode(uint64_t v) { return static_cast<int64_t>(bit_util::ZigzagDecode(v)); }

// The fewest bytes one encoded element of `t` can occupy; used to bound element counts
// by the bytes that remain before anything is allocated or looped over.
size_t MinEncodedSize(WireType t) {
  switch (t) {
    case WireType::kDouble: return 8;
    case WireType::kUuid: return 16;
    default: return 1;
  }
}

}  // namespace

const char* WireTypeName(WireType t) {
  switch (t) {
    case WireType::kStop: return "stop";
    case WireType::kBoolTrue:
    case WireType::kBoolFalse: return "bool";
    case WireType::kByte: return "i8";
    case WireType::kI16: return "i16";
    case WireType::kI32: return "i32";
    case WireType::kI64: return "i64";
    case WireType::kDouble: return "double";
    case WireType::kBinary: return "binary";
    case WireType::kList: return "list";
    case WireType::kSet: return "set";
    case WireType::kMap: return "map";
    case WireType::kStruct: return "struct";
    case WireType::kUuid: return "uuid";
  }
  return "invalid";
}

// ---------------------------------------------------------------------------------
// CompactReader

Status CompactReader::Truncated(const char* what) const {
  return Status::Corruption("thrift: truncated {} at byte {} of {}", what, pos_, size_);
}

Status CompactReader::CheckWireType(uint8_t code) const {
  if (code == 0 || code > kMaxWireType) {
    return Status::Corruption("thrift: invalid wire type {} at byte {}", code, pos_);
  }
  return Status::OK();
}

Status CompactReader::EnterNesting() {
  if (depth_ >= kMaxDepth) {
    return Status::Corruption("thrift: nesting deeper than {} at byte {}", kMaxDepth, pos_);
  }
  ++depth_;
  return Status::OK();
}

Status CompactReader::ReadVarint(uint64_t* v, int max_bytes) {
  uint64_t result = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (pos_ >= size_) return Truncated("varint");
    uint8_t b = data_[pos_++];
    result |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) {
      // The 10th byte of a 64-bit varint may only carry the top bit.
      if (i == 9 && b > 1) break;
      *v = result;
      return Status::OK();
    }
  }
  return Status::Corruption("thrift: malformed varint (over {} bytes) at byte {}", max_bytes, pos_);
}

Status CompactReader::ReadStructBegin() {
  LITHIFY_RETURN_NOT_OK(EnterNesting());
  last_field_id_[++struct_depth_] = 0;
  return Status::OK();
}

Status CompactReader::ReadStructEnd() {
  --struct_depth_;
  --depth_;
  return Status::OK();
}

Status CompactReader::ReadFieldHeader(FieldHeader* field) {
  if (pos_ >= size_) return Truncated("field header");
  uint8_t b = data_[pos_++];
  if (b == 0) {
    field->type = WireType::kStop;
    field->id = 0;
    return Status::OK();
  }
  uint8_t type = b & 0x0F;
  LITHIFY_RETURN_NOT_OK(CheckWireType(type));
  int32_t id;
  if (uint8_t delta = b >> 4; delta != 0) {
    id = int32_t{last_field_id_[struct_depth_]} + delta;
    if (id > std::numeric_limits<int16_t>::max()) {
      return Status::Corruption("thrift: field id overflow at byte {}", pos_);
    }
  } else {
    int16_t long_id;
    LITHIFY_RETURN_NOT_OK(ReadI16(&long_id));
    id = long_id;
  }
  field->type = static_cast<WireType>(type);
  field->id = static_cast<int16_t>(id);
  last_field_id_[struct_depth_] = field->id;
  return Status::OK();
}

Status CompactReader::ReadI8(int8_t* v) {
  if (pos_ >= size_) return Truncated("i8");
  *v = static_cast<int8_t>(data_[pos_++]);
  return Status::OK();
}

Status CompactReader::ReadI16(int16_t* v) {
  uint64_t raw;
  LITHIFY_RETURN_NOT_OK(ReadVarint(&raw, 3));
  if (raw > 0xFFFF) return Status::Corruption("thrift: i16 out of range at byte {}", pos_);
  *v = static_cast<int16_t>(ZigzagDecode(raw));
  return Status::OK();
}

Status CompactReader::ReadI32(int32_t* v) {
  uint64_t raw;
  LITHIFY_RETURN_NOT_OK(ReadVarint(&raw, 5));
  if (raw > 0xFFFFFFFFu) return Status::Corruption("thrift: i32 out of range at byte {}", pos_);
  *v = static_cast<int32_t>(ZigzagDecode(raw));
  return Status::OK();
}

Status CompactReader::ReadI64(int64_t* v) {
  uint64_t raw;
  LITHIFY_RETURN_NOT_OK(ReadVarint(&raw, 10));
  *v = ZigzagDecode(raw);
  return Status::OK();
}

Status CompactReader::ReadDouble(double* v) {
  if (remaining() < sizeof(double)) return Truncated("double");
  std::memcpy(v, data_ + pos_, sizeof(double));
  pos_ += sizeof(double);
  return Status::OK();
}

Status CompactReader::ReadBoolElement(bool* v) {
  if (pos_ >= size_) return Truncated("bool");
  uint8_t b = data_[pos_++];
  if (b > 2) return Status::Corruption("thrift: invalid bool byte {} at byte {}", b, pos_ - 1);
  *v = b == 1;
  return Status::OK();
}

Status CompactReader::ReadBinary(std::string_view* v) {
  uint64_t len;
  LITHIFY_RETURN_NOT_OK(ReadVarint(&len, 5));
  if (len > remaining()) {
    return Status::Corruption("thrift: binary of {} bytes exceeds the {} remaining at byte {}", len,
                              remaining(), pos_);
  }
  *v = std::string_view(reinterpret_cast<const char*>(data_ + pos_), len);
  pos_ += len;
  return Status::OK();
}

Status CompactReader::ReadBinary(std::string* v) {
  std::string_view view;
  LITHIFY_RETURN_NOT_OK(ReadBinary(&view));
  v->assign(view);
  return Status::OK();
}

Status CompactReader::ReadListHeader(ListHeader* list) {
  if (pos_ >= size_) return Truncated("list header");
  uint8_t b = data_[pos_++];
  uint8_t type = b & 0x0F;
  uint64_t size = b >> 4;
  if (size == 15) {
    LITHIFY_RETURN_NOT_OK(ReadVarint(&size, 5));
    if (size > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Status::Corruption("thrift: negative list size at byte {}", pos_);
    }
  }
  // An empty list's element type is never interpreted, so writers' choice there is moot.
  if (size > 0) LITHIFY_RETURN_NOT_OK(CheckWireType(type));
  auto element_type = static_cast<WireType>(type);
  if (size > remaining() / MinEncodedSize(element_type)) {
    return Status::Corruption("thrift: list of {} elements exceeds the {} remaining bytes", size,
                              remaining());
  }
  LITHIFY_RETURN_NOT_OK(EnterNesting());
  list->element_type = element_type;
  list->size = static_cast<uint32_t>(size);
  return Status::OK();
}

Status CompactReader::ReadMapHeader(MapHeader* map) {
  uint64_t size;
  LITHIFY_RETURN_NOT_OK(ReadVarint(&size, 5));
  if (size > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return Status::Corruption("thrift: negative map size at byte {}", pos_);
  }
  map->size = static_cast<uint32_t>(size);
  map->key_type = map->value_type = WireType::kStop;
  if (size > 0) {
    if (pos_ >= size_) return Truncated("map header");
    uint8_t b = data_[pos_++];
    LITHIFY_RETURN_NOT_OK(CheckWireType(b >> 4));
    LITHIFY_RETURN_NOT_OK(CheckWireType(b & 0x0F));
    map->key_type = static_cast<WireType>(b >> 4);
    map->value_type = static_cast<WireType>(b & 0x0F);
    size_t entry = MinEncodedSize(map->key_type) + MinEncodedSize(map->value_type);
    if (size > remaining() / entry) {
      return Status::Corruption("thrift: map of {} entries exceeds the {} remaining bytes", size,
                                remaining());
    }
  }
  return EnterNesting();
}

Status CompactReader::Skip(WireType type) {
  switch (type) {
    case WireType::kBoolTrue:
    case WireType::kBoolFalse:
      // Only reached for container elements, which are one byte: a bool *field*
      // carries its value in the header (see the kStruct case).
    case WireType::kByte:
      if (pos_ >= size_) return Truncated("i8");
      ++pos_;
      return Status::OK();
    case WireType::kI16:
    case WireType::kI32:
    case WireType::kI64: {
      uint64_t ignored;
      return ReadVarint(&ignored, 10);
    }
    case WireType::kDouble:
      if (remaining() < 8) return Truncated("double");
      pos_ += 8;
      return Status::OK();
    case WireType::kUuid:
      if (remaining() < 16) return Truncated("uuid");
      pos_ += 16;
      return Status::OK();
    case WireType::kBinary: {
      std::string_view ignored;
      return ReadBinary(&ignored);
    }
    case WireType::kList:
    case WireType::kSet: {
      ListHeader list;
      LITHIFY_RETURN_NOT_OK(ReadListHeader(&list));
      for (uint32_t i = 0; i < list.size; ++i) LITHIFY_RETURN_NOT_OK(Skip(list.element_type));
      ReadContainerEnd();
      return Status::OK();
    }
    case WireType::kMap: {
      MapHeader map;
      LITHIFY_RETURN_NOT_OK(ReadMapHeader(&map));
      for (uint32_t i = 0; i < map.size; ++i) {
        LITHIFY_RETURN_NOT_OK(Skip(map.key_type));
        LITHIFY_RETURN_NOT_OK(Skip(map.value_type));
      }
      ReadContainerEnd();
      return Status::OK();
    }
    case WireType::kStruct: {
      LITHIFY_RETURN_NOT_OK(ReadStructBegin());
      FieldHeader field;
      while (true) {
        LITHIFY_RETURN_NOT_OK(ReadFieldHeader(&field));
        if (field.type == WireType::kStop) break;
        if (field.is_bool()) continue;  // value is in the header
        LITHIFY_RETURN_NOT_OK(Skip(field.type));
      }
      return ReadStructEnd();
    }
    case WireType::kStop: break;
  }
  return Status::Corruption("thrift: cannot skip wire type {} at byte {}", static_cast<int>(type),
                            pos_);
}

Status CompactReader::Charge(size_t bytes) {
  if (bytes > budget_) {
    return Status::Corruption("thrift: metadata claims more structure than its {} bytes can hold",
                              size_);
  }
  budget_ -= bytes;
  return Status::OK();
}

// ---------------------------------------------------------------------------------
// CompactWriter

void CompactWriter::WriteVarint(uint64_t v) { bit_util::AppendUleb128(v, out_); }

void CompactWriter::WriteStructBegin() { last_field_id_.push_back(0); }

void CompactWriter::WriteStructEnd() {
  out_->PushBack(0);
  last_field_id_.pop_back();
}

void CompactWriter::WriteFieldHeader(WireType type, int16_t id) {
  int16_t& last = last_field_id_.back();
  auto code = static_cast<uint8_t>(type);
  if (id > last && id - last <= 15) {
    out_->PushBack(static_cast<uint8_t>((id - last) << 4 | code));
  } else {
    out_->PushBack(code);
    WriteI16(id);
  }
  last = id;
}

void CompactWriter::WriteBoolField(int16_t id, bool v) {
  WriteFieldHeader(v ? WireType::kBoolTrue : WireType::kBoolFalse, id);
}
void CompactWriter::WriteI8Field(int16_t id, int8_t v) {
  WriteFieldHeader(WireType::kByte, id);
  WriteI8(v);
}
void CompactWriter::WriteI16Field(int16_t id, int16_t v) {
  WriteFieldHeader(WireType::kI16, id);
  WriteI16(v);
}
void CompactWriter::WriteI32Field(int16_t id, int32_t v) {
  WriteFieldHeader(WireType::kI32, id);
  WriteI32(v);
}
void CompactWriter::WriteI64Field(int16_t id, int64_t v) {
  WriteFieldHeader(WireType::kI64, id);
  WriteI64(v);
}
void CompactWriter::WriteDoubleField(int16_t id, double v) {
  WriteFieldHeader(WireType::kDouble, id);
  WriteDouble(v);
}
void CompactWriter::WriteBinaryField(int16_t id, std::string_view v) {
  WriteFieldHeader(WireType::kBinary, id);
  WriteBinary(v);
}
void CompactWriter::WriteStructFieldBegin(int16_t id) {
  WriteFieldHeader(WireType::kStruct, id);
  WriteStructBegin();
}
void CompactWriter::WriteEmptyStructField(int16_t id) {
  WriteStructFieldBegin(id);
  WriteStructEnd();
}

void CompactWriter::WriteI8(int8_t v) { out_->PushBack(static_cast<uint8_t>(v)); }
void CompactWriter::WriteI16(int16_t v) { WriteVarint(ZigzagEncode(v) & 0xFFFF); }
void CompactWriter::WriteI32(int32_t v) { WriteVarint(ZigzagEncode(v) & 0xFFFFFFFFu); }
void CompactWriter::WriteI64(int64_t v) { WriteVarint(ZigzagEncode(v)); }
void CompactWriter::WriteDouble(double v) { out_->AppendValue(v); }
// 1/2 as the reference implementations write (the reader also accepts 0 for false).
void CompactWriter::WriteBoolElement(bool v) { out_->PushBack(v ? 1 : 2); }

void CompactWriter::WriteBinary(std::string_view v) {
  WriteVarint(v.size());
  out_->Append(v);
}

void CompactWriter::WriteListHeader(WireType element_type, uint32_t size) {
  auto code = static_cast<uint8_t>(element_type);
  if (size < 15) {
    out_->PushBack(static_cast<uint8_t>(size << 4 | code));
  } else {
    out_->PushBack(static_cast<uint8_t>(0xF0 | code));
    WriteVarint(size);
  }
}

void CompactWriter::WriteMapHeader(WireType key_type, WireType value_type, uint32_t size) {
  WriteVarint(size);
  if (size > 0) {
    out_->PushBack(static_cast<uint8_t>(static_cast<uint8_t>(key_type) << 4 |
                                        static_cast<uint8_t>(value_type)));
  }
}

}  // namespace lithify::parquet::thrift
