#include "lithify/iceberg/values.h"

#include <cmath>
#include <cstring>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/expr/value.h"

namespace lithify::iceberg {

namespace {

using table::Value;

template <typename T>
T LoadLe(std::string_view b) {
  T v;
  std::memcpy(&v, b.data(), sizeof v);
  return v;
}

__int128 BigEndianSigned(std::string_view b) {
  __int128 v = (!b.empty() && (static_cast<uint8_t>(b[0]) & 0x80)) ? -1 : 0;
  for (char c : b) v = static_cast<__int128>((static_cast<unsigned __int128>(v) << 8) | static_cast<uint8_t>(c));
  return v;
}

Value Temporal(const Type& t, int64_t v) {
  switch (t.id) {
    case TypeId::kTimestampTz: case TypeId::kTimestampTzNs: return Value::Timestamp(v);
    default: return Value::TimestampNtz(v);
  }
}

bool IsNanos(const Type& t) { return t.id == TypeId::kTimestampNs || t.id == TypeId::kTimestampTzNs; }

Result<Value> Decimal(const Type& t, std::string_view bytes) {
  if (bytes.empty() || bytes.size() > 16) return Status::Corruption("decimal of {} bytes", bytes.size());
  __int128 u = BigEndianSigned(bytes);
  if (expr::DecimalDigits(u) > t.precision) {
    return Status::Corruption("decimal value has more than {} digits", t.precision);
  }
  return Value::Decimal(u, t.precision, t.scale);
}

Status WrongLength(const Type& t, size_t n) {
  return Status::Corruption("a {} value cannot be {} bytes", t.ToString(), n);
}

}  // namespace

Result<Value> DecodeBinaryValue(const Type& t, std::string_view b) {
  switch (t.id) {
    case TypeId::kBoolean:
      if (b.size() != 1) return WrongLength(t, b.size());
      return Value::Boolean(b[0] != 0);
    case TypeId::kInt:
      if (b.size() != 4) return WrongLength(t, b.size());
      return Value::Int64(LoadLe<int32_t>(b));
    case TypeId::kLong:
      if (b.size() == 4) return Value::Int64(LoadLe<int32_t>(b));  // written as int
      if (b.size() != 8) return WrongLength(t, b.size());
      return Value::Int64(LoadLe<int64_t>(b));
    case TypeId::kTime:
      if (b.size() != 8) return WrongLength(t, b.size());
      return Value::Int64(LoadLe<int64_t>(b));
    case TypeId::kFloat:
      if (b.size() != 4) return WrongLength(t, b.size());
      return Value::Double(LoadLe<float>(b));
    case TypeId::kDouble:
      if (b.size() == 4) return Value::Double(LoadLe<float>(b));  // written as float
      if (b.size() != 8) return WrongLength(t, b.size());
      return Value::Double(LoadLe<double>(b));
    case TypeId::kDate:
      if (b.size() != 4) return WrongLength(t, b.size());
      return Value::Date(LoadLe<int32_t>(b));
    case TypeId::kTimestamp: case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: case TypeId::kTimestampTzNs:
      if (b.size() == 4) {  // written as date
        const int64_t per_day = IsNanos(t) ? kMicrosPerDay * 1000 : kMicrosPerDay;
        return Temporal(t, int64_t{LoadLe<int32_t>(b)} * per_day);
      }
      if (b.size() != 8) return WrongLength(t, b.size());
      return Temporal(t, LoadLe<int64_t>(b));
    case TypeId::kString: return Value::String(std::string(b));
    case TypeId::kUuid:
      if (b.size() != 16) return WrongLength(t, b.size());
      return Value::Binary(std::string(b));
    case TypeId::kFixed:
    case TypeId::kBinary: return Value::Binary(std::string(b));
    case TypeId::kDecimal: return Decimal(t, b);
    default:
      return Status::NotSupported("binary values of type {}", t.ToString());
  }
}

Result<Value> FromAvroValue(const Type& t, const avro::Value& v) {
  using avro::Kind;
  if (v.is_null()) return Value::Null();
  auto mismatch = [&]() {
    return Status::Corruption("a {} value is stored as Avro kind {}", t.ToString(), static_cast<int>(v.kind));
  };
  switch (t.id) {
    case TypeId::kBoolean:
      if (v.kind != Kind::kBoolean) return mismatch();
      return Value::Boolean(v.b);
    case TypeId::kInt: case TypeId::kLong: case TypeId::kTime:
      if (v.kind != Kind::kInt && v.kind != Kind::kLong) return mismatch();
      return Value::Int64(v.i);
    case TypeId::kFloat: case TypeId::kDouble:
      if (v.kind != Kind::kFloat && v.kind != Kind::kDouble) return mismatch();
      return Value::Double(v.d);
    case TypeId::kDate:
      if (v.kind != Kind::kInt && v.kind != Kind::kLong) return mismatch();
      return Value::Date(v.i);
    case TypeId::kTimestamp: case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: case TypeId::kTimestampTzNs:
      if (v.kind != Kind::kLong && v.kind != Kind::kInt) return mismatch();
      return Temporal(t, v.i);
    case TypeId::kString:
      if (v.kind != Kind::kString && v.kind != Kind::kBytes) return mismatch();
      return Value::String(v.s);
    case TypeId::kUuid: case TypeId::kFixed: case TypeId::kBinary:
      if (v.kind != Kind::kFixed && v.kind != Kind::kBytes && v.kind != Kind::kString) return mismatch();
      return Value::Binary(v.s);
    case TypeId::kDecimal:
      if (v.kind != Kind::kFixed && v.kind != Kind::kBytes) return mismatch();
      return Decimal(t, v.s);
    default:
      return Status::NotSupported("partition values of type {}", t.ToString());
  }
}

namespace {

Result<std::string> Unhex(const std::string& s) {
  if (s.size() % 2) return Status::Corruption("odd-length hex string");
  std::string out;
  for (size_t i = 0; i < s.size(); i += 2) {
    auto nib = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    int hi = nib(s[i]), lo = nib(s[i + 1]);
    if (hi < 0 || lo < 0) return Status::Corruption("bad hex digit");
    out.push_back(static_cast<char>(hi << 4 | lo));
  }
  return out;
}

Result<int64_t> ParseTimeOfDay(const std::string& s) {
  // HH:MM[:SS[.ffffff]]
  bool zone = false;
  Result<int64_t> t = expr::ParseTimestamp("1970-01-01T" + s, &zone);
  if (!t.ok()) return Status::Corruption("bad time '{}'", s);
  return *t;
}

}  // namespace

Result<Value> FromJsonValue(const Type& t, const json::Json& j) {
  if (j.is_null()) return Value::Null();
  auto mismatch = [&]() { return Status::Corruption("default {} does not fit type {}", json::Dump(j), t.ToString()); };
  const std::string* s = j.is_string() ? &j.get_ref<const std::string&>() : nullptr;
  switch (t.id) {
    case TypeId::kBoolean:
      if (!j.is_boolean()) return mismatch();
      return Value::Boolean(j.get<bool>());
    case TypeId::kInt: case TypeId::kLong:
      if (!j.is_number_integer()) return mismatch();
      return Value::Int64(j.get<int64_t>());
    case TypeId::kFloat: case TypeId::kDouble:
      if (!j.is_number()) return mismatch();
      return Value::Double(j.get<double>());
    case TypeId::kDecimal: {
      if (s == nullptr) return mismatch();
      Result<expr::Value> n = expr::ParseNumber(*s);
      if (!n.ok()) return mismatch();
      __int128 u;
      if (n->kind() == expr::TypeKind::kInt64) {
        u = static_cast<__int128>(n->int_value()) * expr::Pow10(t.scale);
      } else if (n->kind() == expr::TypeKind::kDecimal && n->type().scale <= t.scale) {
        u = n->unscaled() * expr::Pow10(t.scale - n->type().scale);
      } else {
        return mismatch();
      }
      if (expr::DecimalDigits(u) > t.precision) return mismatch();
      return Value::Decimal(u, t.precision, t.scale);
    }
    case TypeId::kDate: {
      if (s == nullptr) return mismatch();
      Result<int32_t> d = expr::ParseDate(*s);
      if (!d.ok()) return mismatch();
      return Value::Date(*d);
    }
    case TypeId::kTime: {
      if (s == nullptr) return mismatch();
      LITHIFY_ASSIGN_OR_RETURN(int64_t micros, ParseTimeOfDay(*s));
      return Value::Int64(micros);
    }
    case TypeId::kTimestamp: case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: case TypeId::kTimestampTzNs: {
      if (s == nullptr) return mismatch();
      bool zone = false;
      Result<int64_t> micros = expr::ParseTimestamp(*s, &zone);
      if (!micros.ok()) return mismatch();
      int64_t v = *micros;
      if (IsNanos(t)) {
        // Keep the sub-microsecond digits ParseTimestamp drops: the text parsed, so the
        // reader it is built on gives its fraction.
        IsoTimestampParts parts;
        size_t end = 0;
        ReadIsoTimestamp(*s, /*lowercase_t=*/false, &parts, &end);
        v = v * 1000 + parts.nanos % 1000;
      }
      return Temporal(t, v);
    }
    case TypeId::kString:
      if (s == nullptr) return mismatch();
      return Value::String(*s);
    case TypeId::kUuid: {
      if (s == nullptr) return mismatch();
      std::string hex;
      for (char c : *s) if (c != '-') hex.push_back(c);
      LITHIFY_ASSIGN_OR_RETURN(std::string bytes, Unhex(hex));
      if (bytes.size() != 16) return mismatch();
      return Value::Binary(bytes);
    }
    case TypeId::kFixed: case TypeId::kBinary: {
      if (s == nullptr) return mismatch();
      LITHIFY_ASSIGN_OR_RETURN(std::string bytes, Unhex(*s));
      if (t.id == TypeId::kFixed && static_cast<int32_t>(bytes.size()) != t.length) return mismatch();
      return Value::Binary(bytes);
    }
    default:
      return Status::NotSupported("default values of type {}", t.ToString());
  }
}

void AppendKey(const Value& v, std::string* out) {
  out->push_back(static_cast<char>(v.kind()));
  switch (v.kind()) {
    case Value::Kind::kNull: return;
    case Value::Kind::kBoolean: out->push_back(v.boolean() ? 1 : 0); return;
    case Value::Kind::kDouble: {
      double d = v.dbl();
      if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();  // one NaN
      out->append(reinterpret_cast<const char*>(&d), sizeof d);
      return;
    }
    case Value::Kind::kString: case Value::Kind::kBinary: {
      const uint64_t n = v.str().size();
      out->append(reinterpret_cast<const char*>(&n), sizeof n);
      out->append(v.str());
      return;
    }
    case Value::Kind::kDecimal: {
      __int128 u = v.unscaled();
      out->append(reinterpret_cast<const char*>(&u), sizeof u);
      out->push_back(static_cast<char>(v.scale()));
      return;
    }
    default: {
      int64_t i = v.int64();
      out->append(reinterpret_cast<const char*>(&i), sizeof i);
      return;
    }
  }
}

}  // namespace lithify::iceberg
