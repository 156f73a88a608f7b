// Row values and their shredding into the levels form (Dremel striping).
//
// Value is a small tree for one cell: null, boolean, integer, double, bytes (strings
// and binary alike), decimal (unscaled 128-bit integer; the scale comes from the
// column), list, struct (fields positional, in schema order) and map (key/value
// pairs). RowBatchBuilder appends rows of Values (one per top-level field, in schema
// order) to a RowBatch for a Schema, computing definition/repetition levels and dense
// values for every leaf, for any nesting of optional/required/repeated fields, LISTs
// and MAPs (including the LogicalTypes.md backward-compatible shapes read by
// schema.h). Each row is validated against the schema before anything is appended:
// a bad row is InvalidArgument naming the column, and leaves the batch unchanged.
//
// Physical mapping of scalars: BOOLEAN <- bool; INT32/INT64 <- integer (range-checked
// against INTEGER(8/16/32, signed/unsigned), DATE days, TIMESTAMP/TIME in the column's
// unit) or decimal when the column is DECIMAL; FLOAT/DOUBLE <- double or integer;
// BYTE_ARRAY <- bytes, or decimal (minimal two's complement) on DECIMAL columns;
// FIXED_LEN_BYTE_ARRAY <- bytes of exactly type_length, or decimal (sign-extended);
// INT96 <- 12 bytes.
//
// Values are plain copyable data; a RowBatchBuilder is not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet {

class Value {
 public:
  enum class Kind { kNull, kBool, kInt, kDouble, kBytes, kDecimal, kList, kStruct, kMap };

  Value() = default;  // null
  static Value Null() { return {}; }
  static Value Bool(bool b) { Value v(Kind::kBool); v.i_ = b; return v; }
  static Value Int(int64_t i) { Value v(Kind::kInt); v.i_ = i; return v; }
  static Value Double(double d) { Value v(Kind::kDouble); v.d_ = d; return v; }
  static Value Bytes(std::string s) { Value v(Kind::kBytes); v.s_ = std::move(s); return v; }
  static Value String(std::string s) { return Bytes(std::move(s)); }
  static Value Decimal(__int128 unscaled) { Value v(Kind::kDecimal); v.dec_ = unscaled; return v; }
  static Value List(std::vector<Value> items) { Value v(Kind::kList); v.children_ = std::move(items); return v; }
  static Value Struct(std::vector<Value> fields) { Value v(Kind::kStruct); v.children_ = std::move(fields); return v; }
  static Value Map(std::vector<std::pair<Value, Value>> entries);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool bool_value() const { return i_ != 0; }
  int64_t int_value() const { return i_; }
  double double_value() const { return d_; }
  const std::string& bytes() const { return s_; }
  __int128 decimal() const { return dec_; }
  // kList items or kStruct fields.
  const std::vector<Value>& items() const { return children_; }
  size_t map_size() const { return children_.size() / 2; }
  const Value& map_key(size_t i) const { return children_[2 * i]; }
  const Value& map_value(size_t i) const { return children_[2 * i + 1]; }

 private:
  explicit Value(Kind k) : kind_(k) {}
  Kind kind_ = Kind::kNull;
  int64_t i_ = 0;
  double d_ = 0;
  __int128 dec_ = 0;
  std::string s_;
  std::vector<Value> children_;  // kMap: key0, value0, key1, value1, ...
};

// Parses a decimal literal ("-12.3", "5", "1.50e3" is not accepted) into the unscaled
// integer at `scale`. InvalidArgument if it has more fraction digits than `scale` (no
// silent rounding) or more than `precision` digits in total.
Result<Value> ParseDecimal(std::string_view text, int32_t precision, int32_t scale);

class RowBatchBuilder {
 public:
  // `schema` must outlive the builder.
  explicit RowBatchBuilder(const Schema& schema);

  // Appends one row: `row[i]` is the value of top-level field i. On error nothing is
  // appended.
  Status Append(const std::vector<Value>& row);

  int64_t num_rows() const { return batch_.num_rows; }
  // Bytes held (values and levels), to decide when to hand the batch to a writer.
  int64_t EstimatedBytes() const;
  // Returns the batch (columns in leaf order, leaf_index/descr set) and starts a new one.
  RowBatch Finish();

 private:
  Status EmitField(int node, const Value& v, int16_t def, int16_t rep, int16_t rep_depth);
  Status EmitContent(int node, const Value& v, int16_t def, int16_t rep, int16_t rep_depth);
  Status EmitRepeated(int node, const Value& list, int16_t def, int16_t rep,
                      int16_t rep_depth);
  void EmitNull(int node, int16_t def, int16_t rep);
  Status EmitLeaf(int node, const Value& v, int16_t def, int16_t rep);
  void Reset();
  std::string NodePath(int node) const;

  // Sizes of each column before the row being appended, to undo it on error.
  struct Mark {
    int64_t levels;
    int64_t count;
    size_t fixed;
    size_t data;
  };

  const Schema& schema_;
  std::vector<std::vector<int>> leaves_under_;  // per node
  RowBatch batch_;
  std::vector<Mark> marks_;
};

}  // namespace lithify::parquet
