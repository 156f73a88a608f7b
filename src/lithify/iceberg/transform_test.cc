// Partition transforms against the spec's own test values (Appendix B for bucket hashes,
// the truncate table's examples) and the single-value binary serialization.
#include <gtest/gtest.h>

#include "lithify/expr/value.h"
#include "lithify/iceberg/transform.h"
#include "lithify/iceberg/values.h"

namespace lithify::iceberg {
namespace {

using table::Value;

Type T(TypeId id) { return Type::Primitive(id); }

int64_t Micros(const char* text) {
  bool zone = false;
  return *expr::ParseTimestamp(text, &zone);
}

TEST(Bucket, SpecAppendixBTestValues) {
  EXPECT_EQ(*BucketHash(T(TypeId::kInt), Value::Int64(34)), 2017239379);
  EXPECT_EQ(*BucketHash(T(TypeId::kLong), Value::Int64(34)), 2017239379);
  Type dec;
  dec.id = TypeId::kDecimal;
  dec.precision = 4;
  dec.scale = 2;
  EXPECT_EQ(*BucketHash(dec, Value::Decimal(1420, 4, 2)), -500754589);
  EXPECT_EQ(*BucketHash(T(TypeId::kDate), Value::Date(*expr::ParseDate("2017-11-16"))), -653330422);
  EXPECT_EQ(*BucketHash(T(TypeId::kTime), Value::Int64((22 * 3600 + 31 * 60 + 8) * int64_t{1000000})), -662762989);
  EXPECT_EQ(*BucketHash(T(TypeId::kTimestamp), Value::TimestampNtz(Micros("2017-11-16T22:31:08"))), -2047944441);
  EXPECT_EQ(*BucketHash(T(TypeId::kTimestamp), Value::TimestampNtz(Micros("2017-11-16T22:31:08.000001"))), -1207196810);
  EXPECT_EQ(*BucketHash(T(TypeId::kTimestampTz), Value::Timestamp(Micros("2017-11-16T14:31:08-08:00"))), -2047944441);
  EXPECT_EQ(*BucketHash(T(TypeId::kTimestampNs),
                        Value::TimestampNtz(Micros("2017-11-16T22:31:08.000001") * 1000 + 1)), -1207196810);
  EXPECT_EQ(*BucketHash(T(TypeId::kString), Value::String("iceberg")), 1210000089);
  const std::string uuid("\xF7\x9C\x3E\x09\x67\x7C\x4B\xBD\xA4\x79\x3F\x34\x9C\xB7\x85\xE7", 16);
  EXPECT_EQ(*BucketHash(T(TypeId::kUuid), Value::Binary(uuid)), 1488055340);
  const std::string b4("\x00\x01\x02\x03", 4);
  EXPECT_EQ(*BucketHash(T(TypeId::kBinary), Value::Binary(b4)), -188683207);
  EXPECT_EQ(*BucketHash(T(TypeId::kFixed), Value::Binary(b4)), -188683207);
  EXPECT_EQ(*BucketHash(T(TypeId::kBoolean), Value::Boolean(true)), 1392991556);
  EXPECT_EQ(*BucketHash(T(TypeId::kDouble), Value::Double(1.0)), -142385009);
  EXPECT_EQ(*BucketHash(T(TypeId::kFloat), Value::Double(0.0)), 1669671676);
  EXPECT_EQ(*BucketHash(T(TypeId::kFloat), Value::Double(-0.0)), 1669671676);
  // The spec's example of a type change that moves buckets: 34 vs "34".
  EXPECT_EQ(*BucketHash(T(TypeId::kString), Value::String("34")), -427558391);
}

TEST(Transforms, BucketTruncateAndTime) {
  auto apply = [](const char* text, const Type& t, const Value& v) {
    Result<Transform> tr = Transform::Parse(text);
    Result<Value> r = ApplyTransform(*tr, t, v);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Value::Null();
  };
  EXPECT_EQ(apply("bucket[16]", T(TypeId::kInt), Value::Int64(34)), Value::Int64((2017239379 & 0x7FFFFFFF) % 16));
  EXPECT_EQ(apply("truncate[10]", T(TypeId::kInt), Value::Int64(1)), Value::Int64(0));
  EXPECT_EQ(apply("truncate[10]", T(TypeId::kLong), Value::Int64(-1)), Value::Int64(-10));
  Type dec;
  dec.id = TypeId::kDecimal;
  dec.precision = 9;
  dec.scale = 2;
  EXPECT_EQ(apply("truncate[50]", dec, Value::Decimal(1065, 9, 2)), Value::Decimal(1050, 9, 2));
  EXPECT_EQ(apply("truncate[3]", T(TypeId::kString), Value::String("iceberg")), Value::String("ice"));
  EXPECT_EQ(apply("truncate[2]", T(TypeId::kString), Value::String("\xC3\xA9t\xC3\xA9")), Value::String("\xC3\xA9t"));
  EXPECT_EQ(apply("truncate[3]", T(TypeId::kBinary), Value::Binary("\x01\x02\x03\x04\x05")), Value::Binary("\x01\x02\x03"));
  const Value ts = Value::TimestampNtz(Micros("2017-11-16T22:31:08"));
  EXPECT_EQ(apply("year", T(TypeId::kTimestamp), ts), Value::Int64(47));
  EXPECT_EQ(apply("month", T(TypeId::kTimestamp), ts), Value::Int64(47 * 12 + 10));
  EXPECT_EQ(apply("day", T(TypeId::kTimestamp), ts), Value::Date(*expr::ParseDate("2017-11-16")));
  EXPECT_EQ(apply("hour", T(TypeId::kTimestamp), ts), Value::Int64(Micros("2017-11-16T22:00:00") / 3600000000));
  EXPECT_EQ(apply("hour", T(TypeId::kTimestamp), Value::TimestampNtz(-1)), Value::Int64(-1));  // floor before 1970
  EXPECT_EQ(apply("year", T(TypeId::kDate), Value::Date(-1)), Value::Int64(-1));
  EXPECT_EQ(apply("void", T(TypeId::kInt), Value::Int64(5)), Value::Null());
  EXPECT_EQ(apply("bucket[4]", T(TypeId::kInt), Value::Null()), Value::Null());
  EXPECT_FALSE(ApplyTransform(*Transform::Parse("hour"), T(TypeId::kDate), Value::Date(1)).ok());
  EXPECT_EQ(Transform::Parse("zorder[1]")->kind, Transform::Kind::kUnknown);
  EXPECT_FALSE(Transform::Parse("bucket[0]").ok());
}

TEST(BinaryValues, EveryPrimitiveAndPromotions) {
  auto le = [](auto v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); };
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kBoolean), std::string(1, '\1')), Value::Boolean(true));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kInt), le(int32_t{-7})), Value::Int64(-7));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kLong), le(int64_t{1} << 40)), Value::Int64(int64_t{1} << 40));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kLong), le(int32_t{-7})), Value::Int64(-7));  // written as int
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kFloat), le(1.5f)), Value::Double(1.5));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kDouble), le(1.5f)), Value::Double(1.5));  // written as float
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kDouble), le(2.25)), Value::Double(2.25));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kDate), le(int32_t{17486})), Value::Date(17486));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kTime), le(int64_t{5})), Value::Int64(5));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kTimestamp), le(int64_t{5})), Value::TimestampNtz(5));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kTimestampTz), le(int64_t{5})), Value::Timestamp(5));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kTimestamp), le(int32_t{1})), Value::TimestampNtz(86400000000));  // date
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kTimestampNs), le(int32_t{1})), Value::TimestampNtz(86400000000000));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kString), "abc"), Value::String("abc"));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kBinary), std::string("\0\1", 2)), Value::Binary(std::string("\0\1", 2)));
  EXPECT_EQ(*DecodeBinaryValue(T(TypeId::kUuid), std::string(16, 'x')), Value::Binary(std::string(16, 'x')));
  Type dec;
  dec.id = TypeId::kDecimal;
  dec.precision = 10;
  dec.scale = 2;
  EXPECT_EQ(*DecodeBinaryValue(dec, std::string("\x05\x8C", 2)), Value::Decimal(1420, 10, 2));
  EXPECT_EQ(*DecodeBinaryValue(dec, std::string("\xFF", 1)), Value::Decimal(-1, 10, 2));
  EXPECT_TRUE(DecodeBinaryValue(T(TypeId::kInt), "abc").status().IsCorruption());
  EXPECT_TRUE(DecodeBinaryValue(T(TypeId::kUuid), "abc").status().IsCorruption());
  EXPECT_TRUE(DecodeBinaryValue(dec, std::string(17, '\1')).status().IsCorruption());
  EXPECT_TRUE(DecodeBinaryValue(T(TypeId::kVariant), "x").status().IsNotSupported());
}

TEST(JsonValues, Defaults) {
  EXPECT_EQ(*FromJsonValue(T(TypeId::kLong), json::Json(-1)), Value::Int64(-1));
  EXPECT_EQ(*FromJsonValue(T(TypeId::kDate), json::Json("2024-01-01")), Value::Date(*expr::ParseDate("2024-01-01")));
  EXPECT_EQ(*FromJsonValue(T(TypeId::kTimestamp), json::Json("1969-12-31T23:59:59.123456")),
            Value::TimestampNtz(-876544));
  EXPECT_EQ(*FromJsonValue(T(TypeId::kTimestampNs), json::Json("1970-01-01T00:00:00.000000001")),
            Value::TimestampNtz(1));
  EXPECT_EQ(*FromJsonValue(T(TypeId::kBinary), json::Json("000102ff")), Value::Binary(std::string("\0\1\2\xff", 4)));
  Type dec;
  dec.id = TypeId::kDecimal;
  dec.precision = 5;
  dec.scale = 2;
  EXPECT_EQ(*FromJsonValue(dec, json::Json("123.45")), Value::Decimal(12345, 5, 2));
  EXPECT_TRUE(FromJsonValue(T(TypeId::kInt), json::Json("x")).status().IsCorruption());
}

}  // namespace
}  // namespace lithify::iceberg
