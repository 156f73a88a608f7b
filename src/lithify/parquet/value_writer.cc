#include "lithify/parquet/value_writer.h"

namespace lithify::parquet {

ValueWriter::ValueWriter(const ColumnDescriptor& out, int64_t reserve) {
  v_.type = out.physical_type;
  v_.type_length = out.type_length;
  if (v_.is_byte_array()) {
    v_.offsets.reserve(reserve + 1);
    v_.offsets.push_back(0);
  } else {
    v_.fixed.Reserve(reserve * v_.width());
  }
}

void ValueWriter::Bytes(std::string_view s) {
  if (v_.is_byte_array()) {
    v_.data.Append(s);
    v_.offsets.push_back(static_cast<int64_t>(v_.data.size()));
  } else {
    v_.fixed.Append(s.data(), s.size());
  }
  ++v_.count;
}

void ValueWriter::Decimal(__int128 unscaled) {
  switch (v_.type) {
    case PhysicalType::kInt32: Int32(static_cast<int32_t>(unscaled)); return;
    case PhysicalType::kInt64: Int64(static_cast<int64_t>(unscaled)); return;
    default: {
      uint8_t buf[16];
      StoreBigEndian(unscaled, v_.type_length, buf);
      v_.fixed.Append(buf, v_.type_length);
      ++v_.count;
    }
  }
}

void StoreBigEndian(__int128 v, int width, uint8_t* out) {
  auto u = static_cast<unsigned __int128>(v);
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(u & 0xFF);
    u >>= 8;
  }
}

int32_t DecimalFileScale(const ColumnDescriptor& leaf) {
  const SchemaElement& e = *leaf.element;
  if (e.logical_type.kind == LogicalType::Kind::kDecimal) return e.logical_type.scale;
  return e.scale.value_or(0);
}

TimeUnit Int64TimeUnit(const ColumnDescriptor& leaf) {
  const SchemaElement& e = *leaf.element;
  if (e.logical_type.kind == LogicalType::Kind::kTimestamp) return e.logical_type.unit;
  if (e.converted_type == ConvertedType::kTimestampMillis) return TimeUnit::kMillis;
  return TimeUnit::kMicros;
}

}  // namespace lithify::parquet
