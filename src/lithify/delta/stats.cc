#include "lithify/delta/stats.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/delta/json_util.h"

namespace lithify::delta {

namespace {

using json::Json;

enum class Part { kNone, kMin, kMax, kNullCount };

// Walks the stats object event by event, so that every number keeps the text it was
// written with: a decimal bound such as 99999999999999999999999999999999999999 or
// 9970418458088.79529 has no exact double, and only its text lets a consumer that knows
// the column's type read it exactly (table::Value::Number).
class StatsSax : public Json::json_sax_t {
 public:
  explicit StatsSax(table::FileStats* out) : out_(out) {}

  bool null() override { return Leaf(std::nullopt, Kind::kNull); }
  bool boolean(bool v) override { return Leaf(table::Value::Boolean(v), Kind::kOther); }
  bool number_integer(number_integer_t v) override {
    int_ = v;
    return Leaf(table::Value::Int64(v), Kind::kInt);
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (v > static_cast<uint64_t>(INT64_MAX)) {
      return Leaf(table::Value::Number(static_cast<double>(v), std::to_string(v)), Kind::kBigInt);
    }
    int_ = static_cast<int64_t>(v);
    return Leaf(table::Value::Int64(static_cast<int64_t>(v)), Kind::kInt);
  }
  bool number_float(number_float_t v, const string_t& s) override {
    return Leaf(table::Value::Number(v, s), Kind::kOther);
  }
  bool string(string_t& v) override { return Leaf(table::Value::String(v), Kind::kOther); }
  bool binary(binary_t&) override { return Fail("binary value"); }
  bool start_object(std::size_t) override { return Open(true); }
  bool start_array(std::size_t) override { return Open(false); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }
  bool key(string_t& k) override {
    if (arrays_ > 0) return true;
    if (depth_ == 1) {
      top_key_ = k;
      part_ = k == "minValues" ? Part::kMin : k == "maxValues" ? Part::kMax
            : k == "nullCount" ? Part::kNullCount : Part::kNone;
      path_.clear();
    } else {
      path_.resize(depth_ - 2);
      path_.push_back(k);
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

  bool root_is_object() const { return root_object_; }
  const std::string& error() const { return error_; }

 private:
  enum class Kind { kNull, kInt, kBigInt, kOther };

  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  // A top-level member that must be a scalar of one type.
  bool TopLevel(Kind kind, const std::optional<table::Value>& v) {
    if (top_key_ == "numRecords") {
      if (kind == Kind::kNull) return true;
      if (kind == Kind::kBigInt) return Fail("field 'numRecords' is out of the 64-bit range");
      if (kind != Kind::kInt) return Fail("field 'numRecords' is not an integer");
      if (int_ < 0) return Fail(fmt::format("numRecords {} is negative", int_));
      out_->num_records = int_;
    } else if (top_key_ == "tightBounds") {
      if (kind == Kind::kNull) return true;
      if (!v || v->kind() != table::Value::Kind::kBoolean) return Fail("field 'tightBounds' is not a boolean");
      out_->tight_bounds = v->boolean();
    }
    return true;
  }

  bool Leaf(std::optional<table::Value> v, Kind kind) {
    if (depth_ == 0) return true;  // a scalar document: refused after the parse
    if (arrays_ > 0) return true;  // array contents carry no statistics
    if (depth_ == 1) return TopLevel(kind, v);
    if (part_ == Part::kNone || path_.empty()) return true;
    if (part_ == Part::kNullCount) {
      if (kind == Kind::kInt) out_->columns[path_].null_count = int_;
    } else if (v) {
      table::ColumnStats& cs = out_->columns[path_];
      (part_ == Part::kMin ? cs.min : cs.max) = std::move(*v);
    }
    return true;
  }

  bool Open(bool object) {
    if (depth_ == 0 && arrays_ == 0) root_object_ = object;
    if (depth_ == 1 && arrays_ == 0 && (top_key_ == "numRecords" || top_key_ == "tightBounds")) {
      return Fail(fmt::format("field '{}' is not a {}", top_key_, top_key_ == "numRecords" ? "integer" : "boolean"));
    }
    if (!object || arrays_ > 0) {
      ++arrays_;
      return true;
    }
    if (depth_ == 1 && part_ == Part::kNone) {
      ++arrays_;  // an unknown member's object: skipped like an array
      return true;
    }
    ++depth_;
    return true;
  }

  bool Close() {
    if (arrays_ > 0) {
      --arrays_;
      return true;
    }
    --depth_;
    if (path_.size() >= depth_ && depth_ >= 1) path_.resize(depth_ > 1 ? depth_ - 1 : 0);
    return true;
  }

  table::FileStats* out_;
  size_t depth_ = 0;   // objects open on the statistics path (1 = the root)
  int arrays_ = 0;     // containers open whose contents are ignored
  Part part_ = Part::kNone;
  std::string top_key_;
  std::vector<std::string> path_;  // column path of the current key below a section
  int64_t int_ = 0;
  bool root_object_ = false;
  std::string error_;
};

}  // namespace

Result<table::FileStats> ParseStats(std::string_view text) {
  table::FileStats s;
  StatsSax sax(&s);
  Status st = json::SaxParse(text, &sax);
  if (!st.ok()) {
    if (!sax.error().empty()) return Status::Corruption("stats: {}", sax.error());
    return st.WithContextF("stats");
  }
  if (!sax.root_is_object()) return Status::Corruption("stats: not a JSON object");
  s.raw = std::string(text);
  return s;
}

Result<std::string> StatsWithWideBounds(std::string_view text) {
  Result<std::string> r = json::SetMember(text, "tightBounds", "false");
  if (!r.ok()) return r.status().WithContextF("stats");
  return r;
}

}  // namespace lithify::delta
