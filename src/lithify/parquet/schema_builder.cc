#include "lithify/parquet/schema_builder.h"

#include <set>

#include "lithify/base/macros.h"

namespace lithify::parquet {
namespace {

using LK = LogicalType::Kind;

SchemaElement Leaf(const std::string& name, PhysicalType type, bool nullable) {
  SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = nullable ? Repetition::kOptional : Repetition::kRequired;
  return e;
}

SchemaElement Group(const std::string& name, Repetition rep, int32_t num_children) {
  SchemaElement e;
  e.name = name;
  e.repetition_type = rep;
  e.num_children = num_children;
  return e;
}

Repetition Rep(bool nullable) { return nullable ? Repetition::kOptional : Repetition::kRequired; }

void SetInteger(SchemaElement* e, int8_t bits, ConvertedType converted) {
  e->logical_type.kind = LK::kInteger;
  e->logical_type.bit_width = bits;
  e->logical_type.is_signed = true;
  e->converted_type = converted;
}

Status Append(const FieldSpec& f, const std::string& name, bool nullable,
              std::vector<SchemaElement>* out);

Status AppendChildren(const std::vector<FieldSpec>& fields, const std::string& parent,
                      std::vector<SchemaElement>* out) {
  std::set<std::string> names;
  for (const FieldSpec& c : fields) {
    if (c.name.empty()) return Status::InvalidArgument("a field of '{}' has no name", parent);
    if (!names.insert(c.name).second) {
      return Status::InvalidArgument("'{}' has two fields named '{}'", parent, c.name);
    }
    LITHIFY_RETURN_NOT_OK(Append(c, c.name, c.nullable, out));
  }
  return Status::OK();
}

Status AppendPrimitive(const FieldSpec& f, const std::string& name, bool nullable,
                       std::vector<SchemaElement>* out) {
  SchemaElement e;
  switch (f.type) {
    case FieldType::kBoolean: e = Leaf(name, PhysicalType::kBoolean, nullable); break;
    case FieldType::kByte:
      e = Leaf(name, PhysicalType::kInt32, nullable);
      SetInteger(&e, 8, ConvertedType::kInt8);
      break;
    case FieldType::kShort:
      e = Leaf(name, PhysicalType::kInt32, nullable);
      SetInteger(&e, 16, ConvertedType::kInt16);
      break;
    case FieldType::kInt: e = Leaf(name, PhysicalType::kInt32, nullable); break;
    case FieldType::kLong: e = Leaf(name, PhysicalType::kInt64, nullable); break;
    case FieldType::kFloat: e = Leaf(name, PhysicalType::kFloat, nullable); break;
    case FieldType::kDouble: e = Leaf(name, PhysicalType::kDouble, nullable); break;
    case FieldType::kString:
      e = Leaf(name, PhysicalType::kByteArray, nullable);
      e.logical_type.kind = LK::kString;
      e.converted_type = ConvertedType::kUtf8;
      break;
    case FieldType::kBinary: e = Leaf(name, PhysicalType::kByteArray, nullable); break;
    case FieldType::kDecimal: {
      if (f.precision < 1 || f.precision > 38) {
        return Status::InvalidArgument("field '{}': decimal precision {} is outside 1..38", name,
                                       f.precision);
      }
      if (f.scale < 0 || f.scale > f.precision) {
        return Status::InvalidArgument("field '{}': decimal scale {} is outside 0..{}", name,
                                       f.scale, f.precision);
      }
      if (f.precision <= 9) {
        e = Leaf(name, PhysicalType::kInt32, nullable);
      } else if (f.precision <= 18) {
        e = Leaf(name, PhysicalType::kInt64, nullable);
      } else {
        e = Leaf(name, PhysicalType::kFixedLenByteArray, nullable);
        e.type_length = DecimalByteWidth(f.precision);
      }
      e.logical_type.kind = LK::kDecimal;
      e.logical_type.precision = f.precision;
      e.logical_type.scale = f.scale;
      e.converted_type = ConvertedType::kDecimal;
      e.precision = f.precision;
      e.scale = f.scale;
      break;
    }
    case FieldType::kDate:
      e = Leaf(name, PhysicalType::kInt32, nullable);
      e.logical_type.kind = LK::kDate;
      e.converted_type = ConvertedType::kDate;
      break;
    case FieldType::kTimestamp:
    case FieldType::kTimestampNtz:
      e = Leaf(name, PhysicalType::kInt64, nullable);
      e.logical_type.kind = LK::kTimestamp;
      e.logical_type.unit = TimeUnit::kMicros;
      e.logical_type.is_adjusted_to_utc = f.type == FieldType::kTimestamp;
      // The legacy TIMESTAMP_MICROS means UTC-adjusted, so only `timestamp` carries it.
      if (f.type == FieldType::kTimestamp) e.converted_type = ConvertedType::kTimestampMicros;
      break;
    default:
      return Status::Internal("not a primitive field type");
  }
  e.field_id = f.field_id;
  out->push_back(std::move(e));
  return Status::OK();
}

Status Append(const FieldSpec& f, const std::string& name, bool nullable,
              std::vector<SchemaElement>* out) {
  switch (f.type) {
    case FieldType::kStruct: {
      if (f.children.empty()) {
        return Status::InvalidArgument("struct '{}' has no fields", name);
      }
      SchemaElement g = Group(name, Rep(nullable), static_cast<int32_t>(f.children.size()));
      g.field_id = f.field_id;
      out->push_back(std::move(g));
      return AppendChildren(f.children, name, out);
    }
    case FieldType::kList: {
      if (f.children.size() != 1) {
        return Status::InvalidArgument("array '{}' needs exactly one element type", name);
      }
      SchemaElement g = Group(name, Rep(nullable), 1);
      g.logical_type.kind = LK::kList;
      g.converted_type = ConvertedType::kList;
      g.field_id = f.field_id;
      out->push_back(std::move(g));
      out->push_back(Group("list", Repetition::kRepeated, 1));
      const FieldSpec& el = f.children[0];
      return Append(el, "element", el.nullable, out);
    }
    case FieldType::kMap: {
      if (f.children.size() != 2) {
        return Status::InvalidArgument("map '{}' needs a key and a value type", name);
      }
      SchemaElement g = Group(name, Rep(nullable), 1);
      g.logical_type.kind = LK::kMap;
      g.converted_type = ConvertedType::kMap;
      g.field_id = f.field_id;
      out->push_back(std::move(g));
      out->push_back(Group("key_value", Repetition::kRepeated, 2));
      LITHIFY_RETURN_NOT_OK(Append(f.children[0], "key", /*nullable=*/false, out));
      return Append(f.children[1], "value", f.children[1].nullable, out);
    }
    default:
      return AppendPrimitive(f, name, nullable, out);
  }
}

}  // namespace

FieldSpec FieldSpec::Primitive(std::string name, FieldType type, bool nullable) {
  FieldSpec f;
  f.name = std::move(name);
  f.type = type;
  f.nullable = nullable;
  return f;
}

FieldSpec FieldSpec::Decimal(std::string name, int32_t precision, int32_t scale, bool nullable) {
  FieldSpec f = Primitive(std::move(name), FieldType::kDecimal, nullable);
  f.precision = precision;
  f.scale = scale;
  return f;
}

FieldSpec FieldSpec::Struct(std::string name, std::vector<FieldSpec> fields, bool nullable) {
  FieldSpec f = Primitive(std::move(name), FieldType::kStruct, nullable);
  f.children = std::move(fields);
  return f;
}

FieldSpec FieldSpec::List(std::string name, FieldSpec element, bool nullable) {
  FieldSpec f = Primitive(std::move(name), FieldType::kList, nullable);
  element.name = "element";
  f.children.push_back(std::move(element));
  return f;
}

FieldSpec FieldSpec::Map(std::string name, FieldSpec key, FieldSpec value, bool nullable) {
  FieldSpec f = Primitive(std::move(name), FieldType::kMap, nullable);
  key.name = "key";
  key.nullable = false;
  value.name = "value";
  f.children.push_back(std::move(key));
  f.children.push_back(std::move(value));
  return f;
}

int32_t DecimalByteWidth(int32_t precision) {
  // Smallest n with 2^(8n-1) > 10^precision - 1, i.e. 8n - 1 >= precision * log2(10).
  int32_t n = 1;
  while ((8.0 * n - 1) < precision * 3.321928094887362) ++n;
  return n;
}

Result<std::vector<SchemaElement>> BuildSchemaElements(const std::vector<FieldSpec>& fields,
                                                       const std::string& root_name) {
  if (fields.empty()) return Status::InvalidArgument("a schema needs at least one field");
  std::vector<SchemaElement> out;
  SchemaElement root;
  root.name = root_name;
  root.num_children = static_cast<int32_t>(fields.size());
  out.push_back(std::move(root));
  LITHIFY_RETURN_NOT_OK(AppendChildren(fields, root_name, &out));
  return out;
}

Result<Schema> BuildSchema(const std::vector<FieldSpec>& fields, const std::string& root_name) {
  LITHIFY_ASSIGN_OR_RETURN(std::vector<SchemaElement> elements,
                           BuildSchemaElements(fields, root_name));
  return Schema::FromElements(std::move(elements));
}

}  // namespace lithify::parquet
