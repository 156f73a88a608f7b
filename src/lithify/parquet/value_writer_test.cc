// Tests of ValueWriter (values laid out in an output leaf's physical form) and of the
// file-leaf readings DecimalFileScale / Int64TimeUnit.
#include <gtest/gtest.h>

#include <string>

#include "lithify/parquet/value_writer.h"

namespace lithify::parquet {
namespace {

ColumnDescriptor Leaf(const SchemaElement& e) {
  ColumnDescriptor d;
  d.physical_type = *e.type;
  d.type_length = e.type_length.value_or(0);
  d.element = &e;
  return d;
}

SchemaElement Element(PhysicalType t, int32_t type_length = 0) {
  SchemaElement e;
  e.name = "c";
  e.type = t;
  if (type_length > 0) e.type_length = type_length;
  return e;
}

TEST(ValueWriter, DecimalTakesTheLeafsPhysicalForm) {
  const SchemaElement i32 = Element(PhysicalType::kInt32);
  ValueWriter a(Leaf(i32), 2);
  a.Decimal(-12345);
  a.Decimal(7);
  ColumnValues va = a.Finish();
  ASSERT_EQ(va.count, 2);
  EXPECT_EQ(va.value<int32_t>(0), -12345);
  EXPECT_EQ(va.value<int32_t>(1), 7);

  const SchemaElement fixed = Element(PhysicalType::kFixedLenByteArray, 5);
  ValueWriter b(Leaf(fixed), 2);
  b.Decimal(-2);           // two's complement, sign-extended to 5 bytes
  b.Decimal(0x0102030405);
  ColumnValues vb = b.Finish();
  ASSERT_EQ(vb.count, 2);
  const std::string got(reinterpret_cast<const char*>(vb.fixed.data()), vb.fixed.size());
  EXPECT_EQ(got, std::string("\xFF\xFF\xFF\xFF\xFE\x01\x02\x03\x04\x05", 10));
}

TEST(ValueWriter, BytesIntoVariableAndFixedLeaves) {
  const SchemaElement var = Element(PhysicalType::kByteArray);
  ValueWriter a(Leaf(var), 2);
  a.Bytes("ab");
  a.Bytes("");
  ColumnValues va = a.Finish();
  ASSERT_EQ(va.count, 2);
  EXPECT_EQ(va.binary(0), "ab");
  EXPECT_EQ(va.binary(1), "");

  const SchemaElement fixed = Element(PhysicalType::kFixedLenByteArray, 3);
  ValueWriter b(Leaf(fixed), 2);
  b.Bytes("xyz");
  b.Bytes("123");
  ColumnValues vb = b.Finish();
  ASSERT_EQ(vb.count, 2);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(vb.fixed_at(1)), 3), "123");
}

TEST(ValueWriter, FileScaleAndTimeUnit) {
  SchemaElement d = Element(PhysicalType::kInt64);
  EXPECT_EQ(DecimalFileScale(Leaf(d)), 0);
  d.scale = 3;
  EXPECT_EQ(DecimalFileScale(Leaf(d)), 3);
  d.logical_type.kind = LogicalType::Kind::kDecimal;
  d.logical_type.scale = 5;
  EXPECT_EQ(DecimalFileScale(Leaf(d)), 5);

  SchemaElement t = Element(PhysicalType::kInt64);
  EXPECT_EQ(Int64TimeUnit(Leaf(t)), TimeUnit::kMicros);
  t.converted_type = ConvertedType::kTimestampMillis;
  EXPECT_EQ(Int64TimeUnit(Leaf(t)), TimeUnit::kMillis);
  t.logical_type.kind = LogicalType::Kind::kTimestamp;
  t.logical_type.unit = TimeUnit::kNanos;
  EXPECT_EQ(Int64TimeUnit(Leaf(t)), TimeUnit::kNanos);
}

}  // namespace
}  // namespace lithify::parquet
