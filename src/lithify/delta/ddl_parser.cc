// The schema DDL parser (ParseSchemaDdl, declared in ddl_parser.h): recursive descent
// over Spark-style column definitions.
#include "lithify/delta/ddl_parser.h"

#include <cctype>
#include <charconv>
#include <limits>

#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"
#include "lithify/base/text.h"
#include "lithify/base/utf8.h"
#include "lithify/delta/json_util.h"

namespace lithify::delta {

namespace {

using Kind = DataType::Kind;

bool IEquals(std::string_view a, std::string_view b) { return AsciiLower(a) == AsciiLower(b); }

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Recursive descent over the DDL text; `pos_` is the byte offset reported in errors.
class DdlParser {
 public:
  explicit DdlParser(std::string_view text) : s_(text) {}

  Result<StructType> ParseColumns() {
    StructType st;
    st.kind = Kind::kStruct;
    SkipWs();
    if (AtEnd()) return Expected("a column definition");
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(StructField f, ParseField(0));
      st.fields.push_back(std::move(f));
      SkipWs();
      if (AtEnd()) return st;
      if (!Consume(',')) return Expected("',' or the end of the definition");
    }
  }

 private:
  bool AtEnd() const { return pos_ >= s_.size(); }
  void SkipWs() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(s_[pos_])) != 0) ++pos_;
  }
  bool Consume(char c) {
    SkipWs();
    if (AtEnd() || s_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  // The next token for error messages.
  std::string Found() const {
    if (AtEnd()) return "the end of the definition";
    size_t n = 0;
    while (pos_ + n < s_.size() && n < 16 && IsIdentChar(s_[pos_ + n])) ++n;
    return fmt::format("'{}'", s_.substr(pos_, n == 0 ? 1 : n));
  }
  Status Expected(std::string_view what) const {
    return Status::InvalidArgument("schema DDL: at position {}: expected {}, found {}", pos_, what, Found());
  }
  // Reads [A-Za-z0-9_]+ without consuming leading spaces; empty when none.
  std::string_view Word() {
    SkipWs();
    size_t start = pos_;
    while (!AtEnd() && IsIdentChar(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  // True (and consumed) when the next word is `kw` (case-insensitive).
  bool KeywordAhead(std::string_view kw) {
    SkipWs();
    size_t save = pos_;
    if (IEquals(Word(), kw)) return true;
    pos_ = save;
    return false;
  }

  Result<std::string> ParseName() {
    SkipWs();
    if (!AtEnd() && s_[pos_] == '`') {
      size_t start = pos_++;
      std::string name;
      for (;;) {
        if (AtEnd()) {
          pos_ = start;
          return Expected("a closing '`' for the quoted name");
        }
        char c = s_[pos_++];
        if (c != '`') {
          name += c;
        } else if (!AtEnd() && s_[pos_] == '`') {
          name += '`';
          ++pos_;
        } else if (!IsValidUtf8(name)) {
          // SchemaToJson would store U+FFFD for the bad bytes: another name than given.
          pos_ = start;
          return Expected("a quoted name of valid UTF-8");
        } else {
          return name;
        }
      }
    }
    std::string_view w = Word();
    if (w.empty()) return Expected("a column name");
    return std::string(w);
  }

  Result<std::string> ParseStringLiteral() {
    SkipWs();
    if (AtEnd() || (s_[pos_] != '\'' && s_[pos_] != '"')) return Expected("a quoted string");
    const char quote = s_[pos_];
    size_t start = pos_++;
    std::string out;
    while (!AtEnd()) {
      char c = s_[pos_++];
      if (c == quote) {
        if (IsValidUtf8(out)) return out;
        pos_ = start;
        return Expected("a string of valid UTF-8");
      }
      if (c == '\\' && !AtEnd()) {
        char e = s_[pos_++];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        out += c;
      }
    }
    pos_ = start;
    return Expected("a closing quote");
  }

  Result<int> ParseInt() {
    std::string_view w = Word();
    int v = 0;
    auto r = std::from_chars(w.data(), w.data() + w.size(), v);
    if (w.empty() || r.ec != std::errc() || r.ptr != w.data() + w.size()) {
      pos_ -= w.size();
      return Expected("an integer");
    }
    return v;
  }

  Result<StructField> ParseField(int depth) {
    StructField f;
    LITHIFY_ASSIGN_OR_RETURN(f.name, ParseName());
    Consume(':');  // optional: "a: int" as in struct<...>, or "a int"
    LITHIFY_ASSIGN_OR_RETURN(f.type, ParseType(depth + 1));
    for (;;) {
      if (KeywordAhead("not")) {
        if (!KeywordAhead("null")) return Expected("NULL after NOT");
        f.nullable = false;
      } else if (KeywordAhead("comment")) {
        LITHIFY_ASSIGN_OR_RETURN(std::string c, ParseStringLiteral());
        f.metadata["comment"] = json::QuotedString(c);
      } else {
        return f;
      }
    }
  }

  Result<DataType> ParseDecimal() {
    DataType t;
    t.kind = Kind::kDecimal;
    t.precision = 10;
    if (Consume('(')) {
      size_t at = pos_;
      LITHIFY_ASSIGN_OR_RETURN(t.precision, ParseInt());
      if (Consume(',')) {
        LITHIFY_ASSIGN_OR_RETURN(t.scale, ParseInt());
      }
      if (!Consume(')')) return Expected("')'");
      if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision) {
        return Status::InvalidArgument(
            "schema DDL: at position {}: decimal({},{}) needs 1 <= precision <= 38 and 0 <= scale <= precision",
            at, t.precision, t.scale);
      }
    }
    return t;
  }

  Result<DataType> ParseType(int depth) {
    if (depth > kMaxTypeNesting) {
      return Status::InvalidArgument("schema DDL: at position {}: type nested deeper than {} levels", pos_,
                                     kMaxTypeNesting);
    }
    SkipWs();
    size_t at = pos_;
    std::string w = AsciiLower(Word());
    static const std::map<std::string, Kind, std::less<>> kPrimitive = {
        {"boolean", Kind::kBoolean}, {"byte", Kind::kByte}, {"tinyint", Kind::kByte},
        {"short", Kind::kShort}, {"smallint", Kind::kShort}, {"int", Kind::kInteger},
        {"integer", Kind::kInteger}, {"long", Kind::kLong}, {"bigint", Kind::kLong},
        {"float", Kind::kFloat}, {"real", Kind::kFloat}, {"double", Kind::kDouble},
        {"string", Kind::kString}, {"binary", Kind::kBinary}, {"date", Kind::kDate},
        {"timestamp", Kind::kTimestamp}, {"timestamp_ntz", Kind::kTimestampNtz}};
    if (auto it = kPrimitive.find(w); it != kPrimitive.end()) {
      DataType t;
      t.kind = it->second;
      return t;
    }
    if (w == "decimal" || w == "dec" || w == "numeric") return ParseDecimal();
    if (w == "struct") return ParseStruct(depth);
    if (w == "array") {
      if (!Consume('<')) return Expected("'<' after ARRAY");
      LITHIFY_ASSIGN_OR_RETURN(DataType e, ParseType(depth + 1));
      if (!Consume('>')) return Expected("'>' closing ARRAY<");
      DataType t;
      t.kind = Kind::kArray;
      t.element = std::make_shared<const DataType>(std::move(e));
      return t;
    }
    if (w == "map") {
      if (!Consume('<')) return Expected("'<' after MAP");
      LITHIFY_ASSIGN_OR_RETURN(DataType k, ParseType(depth + 1));
      if (!Consume(',')) return Expected("',' between the MAP key and value types");
      LITHIFY_ASSIGN_OR_RETURN(DataType v, ParseType(depth + 1));
      if (!Consume('>')) return Expected("'>' closing MAP<");
      DataType t;
      t.kind = Kind::kMap;
      t.key = std::make_shared<const DataType>(std::move(k));
      t.value = std::make_shared<const DataType>(std::move(v));
      return t;
    }
    pos_ = at;
    return Expected("a data type (boolean, byte, short, int, long, float, double, decimal, string, "
                    "binary, date, timestamp, timestamp_ntz, struct<>, array<>, map<>)");
  }

  Result<DataType> ParseStruct(int depth) {
    if (!Consume('<')) return Expected("'<' after STRUCT");
    DataType t;
    t.kind = Kind::kStruct;
    if (Consume('>')) return t;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(StructField f, ParseField(depth));
      t.fields.push_back(std::move(f));
      if (Consume('>')) return t;
      if (!Consume(',')) return Expected("',' or '>' in STRUCT<");
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

Result<StructType> ParseSchemaDdl(std::string_view ddl) { return DdlParser(ddl).ParseColumns(); }

}  // namespace lithify::delta
