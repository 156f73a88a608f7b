// Scalar expressions: a hand-written lexer and recursive-descent parser that types every
// node as it is built (Spark's implicit casts made explicit as kCast nodes), and a
// recursive evaluator on expr::Value.
#include "lithify/expr/scalar.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"

namespace lithify::expr {
namespace {

// Nesting deeper than this is refused at Compile (generation expressions are short; the
// limit keeps the recursive parser and evaluator far from the stack's end).
constexpr int kMaxDepth = 64;

enum class Op : uint8_t {
  kLiteral,
  kColumn,
  kAdd,
  kSub,
  kMul,
  kNeg,
  kCast,  // to Node::type
  kYear,
  kMonth,
  kDay,
  kHour,
  kDateFormat,
  kSubstr,  // children: string, pos[, len]
  kLower,
  kUpper,
  kConcat,
};

// One element of a DATE_FORMAT pattern.
struct FormatPiece {
  char field = 0;    // 'y' (4 digits), 'M', 'd', 'H', 'm', 's' (2 digits); 0: literal text
  std::string text;  // field == 0
};

}  // namespace

std::string SparkTypeName(const DataType& t) {
  switch (t.kind) {
    case TypeKind::kNull: return "NULL";
    case TypeKind::kBoolean: return "BOOLEAN";
    case TypeKind::kInt8: return "TINYINT";
    case TypeKind::kInt16: return "SMALLINT";
    case TypeKind::kInt32: return "INT";
    case TypeKind::kInt64: return "BIGINT";
    case TypeKind::kString: return "STRING";
    case TypeKind::kDate: return "DATE";
    case TypeKind::kTimestamp: return "TIMESTAMP";
    case TypeKind::kTimestampNtz: return "TIMESTAMP_NTZ";
    case TypeKind::kFloat32: return "FLOAT";
    case TypeKind::kFloat64: return "DOUBLE";
    case TypeKind::kBinary: return "BINARY";
    case TypeKind::kDecimal: return fmt::format("DECIMAL({},{})", t.precision, t.scale);
  }
  return TypeName(t);
}

namespace {

int IntegerWidth(TypeKind k) {
  switch (k) {
    case TypeKind::kInt8: return 1;
    case TypeKind::kInt16: return 2;
    case TypeKind::kInt32: return 4;
    default: return 8;
  }
}

bool FitsInteger(int128_t v, TypeKind k) {
  const int bits = IntegerWidth(k) * 8;
  const int128_t max = (static_cast<int128_t>(1) << (bits - 1)) - 1;
  return v >= -max - 1 && v <= max;
}

bool IsTimestampKind(TypeKind k) { return k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz; }

// The column types a generation expression may read.
bool SupportedColumnType(TypeKind k) {
  return k == TypeKind::kBoolean || IsIntegerKind(k) || k == TypeKind::kString || k == TypeKind::kDate ||
         IsTimestampKind(k);
}

bool CastSupported(const DataType& from, const DataType& to) {
  if (from.kind == TypeKind::kNull || from == to) return true;
  const TypeKind f = from.kind;
  switch (to.kind) {
    case TypeKind::kInt8: case TypeKind::kInt16: case TypeKind::kInt32: case TypeKind::kInt64:
      return IsIntegerKind(f) || f == TypeKind::kString;
    case TypeKind::kString:
      return IsIntegerKind(f) || f == TypeKind::kBoolean || f == TypeKind::kDate || IsTimestampKind(f);
    case TypeKind::kDate:
      return IsTimestampKind(f) || f == TypeKind::kString;
    default:
      return false;
  }
}

}  // namespace

struct ScalarExpr::Node {
  Op op = Op::kLiteral;
  DataType type;
  Value literal;  // kLiteral
  int column = -1;  // kColumn
  std::vector<Node> children;
  std::vector<FormatPiece> pattern;  // kDateFormat
};

namespace {

using Node = ScalarExpr::Node;

// ---- lexer ----

enum class Tok : uint8_t { kEnd, kName, kInt, kString, kPunct };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;     // kName: the name (back quotes removed); kInt: digits; kString: content
  bool quoted = false;  // kName: back quoted
  bool long_suffix = false;  // kInt: L suffix
  char punct = 0;
  size_t pos = 0;  // 1-based position in the text
};

Status Unsupported(size_t pos, std::string_view what) {
  return Status::NotSupported("position {}: {}", pos, what);
}

Result<std::vector<Token>> Lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (true) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    Token t;
    t.pos = i + 1;
    if (i == s.size()) {
      out.push_back(t);
      return out;
    }
    const char c = s[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      t.kind = Tok::kName;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (c == '`') {
      t.kind = Tok::kName;
      t.quoted = true;
      size_t j = i + 1;
      while (true) {
        if (j >= s.size()) return Unsupported(t.pos, "unterminated back-quoted name");
        if (s[j] == '`') {
          if (j + 1 < s.size() && s[j + 1] == '`') {
            t.text += '`';
            j += 2;
            continue;
          }
          break;
        }
        t.text += s[j++];
      }
      i = j + 1;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      t.kind = Tok::kInt;
      t.text = std::string(s.substr(i, j - i));
      if (j < s.size() && (s[j] == 'L' || s[j] == 'l')) {
        t.long_suffix = true;
        ++j;
      }
      if (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.')) {
        return Unsupported(t.pos, "only integer literals (digits, optionally with suffix L) are supported");
      }
      i = j;
    } else if (c == '\'' || c == '"') {
      t.kind = Tok::kString;
      size_t j = i + 1;
      while (j < s.size() && s[j] != c) {
        if (s[j] == '\\') return Unsupported(j + 1, "backslash escapes in string literals are not supported");
        t.text += s[j++];
      }
      if (j >= s.size()) return Unsupported(t.pos, "unterminated string literal");
      i = j + 1;
      if (!out.empty() && out.back().kind == Tok::kString) {
        return Unsupported(t.pos, "adjacent string literals are not supported");
      }
    } else if (c == '(' || c == ')' || c == ',' || c == '+' || c == '-' || c == '*') {
      t.kind = Tok::kPunct;
      t.punct = c;
      ++i;
    } else {
      return Unsupported(t.pos, fmt::format("'{}' is not supported (supported operators: + - *)", c));
    }
    out.push_back(std::move(t));
  }
}

bool NameIs(const Token& t, std::string_view word) {
  if (t.kind != Tok::kName || t.quoted || t.text.size() != word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(t.text[i])) != word[i]) return false;
  }
  return true;
}

std::string Upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

// ---- typed node builders ----

Node Literal(Value v) {
  Node n;
  n.op = Op::kLiteral;
  n.type = v.type();
  n.literal = std::move(v);
  return n;
}

Node Unary(Op op, DataType type, Node child) {
  Node n;
  n.op = op;
  n.type = type;
  n.children.push_back(std::move(child));
  return n;
}

Result<Node> CastTo(Node child, const DataType& to, size_t pos) {
  if (child.type == to) return child;
  if (!CastSupported(child.type, to)) {
    return Unsupported(pos, fmt::format("CAST from {} to {} is not supported", SparkTypeName(child.type),
                                        SparkTypeName(to)));
  }
  return Unary(Op::kCast, to, std::move(child));
}

// A string function's argument: non-strings are cast to STRING as Spark does implicitly.
Result<Node> AsString(Node child, size_t pos) {
  return CastTo(std::move(child), DataType::Of(TypeKind::kString), pos);
}

// ---- parser ----

class Parser {
 public:
  Parser(std::vector<Token> tokens, const std::vector<ScalarColumn>& columns)
      : t_(std::move(tokens)), columns_(columns) {}

  Result<Node> ParseAll() {
    LITHIFY_ASSIGN_OR_RETURN(Node n, Expr(0));
    if (Peek().kind != Tok::kEnd) return Unsupported(Peek().pos, "unexpected text after the expression");
    return n;
  }

  std::vector<int> referenced;

 private:
  const Token& Peek(size_t ahead = 0) const { return t_[std::min(i_ + ahead, t_.size() - 1)]; }
  const Token& Next() { return t_[std::min(i_++, t_.size() - 1)]; }
  bool IsPunct(char c, size_t ahead = 0) const {
    return Peek(ahead).kind == Tok::kPunct && Peek(ahead).punct == c;
  }
  Status Expect(char c) {
    if (!IsPunct(c)) return Unsupported(Peek().pos, fmt::format("expected '{}'", c));
    ++i_;
    return Status::OK();
  }

  Result<Node> Arith(Op op, Node l, Node r, size_t pos) {
    const char* sym = op == Op::kAdd ? "+" : op == Op::kSub ? "-" : "*";
    auto ok = [](const DataType& t) { return IsIntegerKind(t.kind) || t.kind == TypeKind::kNull; };
    if (!ok(l.type) || !ok(r.type)) {
      return Unsupported(pos, fmt::format("{} {} {} is not supported (only integer arithmetic)",
                                          SparkTypeName(l.type), sym, SparkTypeName(r.type)));
    }
    DataType t;
    if (l.type.kind == TypeKind::kNull) {
      t = r.type;
    } else if (r.type.kind == TypeKind::kNull) {
      t = l.type;
    } else {
      t = IntegerWidth(l.type.kind) >= IntegerWidth(r.type.kind) ? l.type : r.type;
    }
    if (t.kind == TypeKind::kNull) return Unsupported(pos, fmt::format("NULL {} NULL is not supported", sym));
    Node n;
    n.op = op;
    n.type = t;
    n.children.push_back(std::move(l));
    n.children.push_back(std::move(r));
    return n;
  }

  Result<Node> Expr(int depth) {
    if (depth > kMaxDepth) return Unsupported(Peek().pos, "expression nested too deeply");
    LITHIFY_ASSIGN_OR_RETURN(Node l, Term(depth));
    while (IsPunct('+') || IsPunct('-')) {
      const Token& op = Next();
      LITHIFY_ASSIGN_OR_RETURN(Node r, Term(depth));
      LITHIFY_ASSIGN_OR_RETURN(l, Arith(op.punct == '+' ? Op::kAdd : Op::kSub, std::move(l), std::move(r), op.pos));
    }
    return l;
  }

  Result<Node> Term(int depth) {
    LITHIFY_ASSIGN_OR_RETURN(Node l, UnaryExpr(depth));
    while (IsPunct('*')) {
      const Token& op = Next();
      LITHIFY_ASSIGN_OR_RETURN(Node r, UnaryExpr(depth));
      LITHIFY_ASSIGN_OR_RETURN(l, Arith(Op::kMul, std::move(l), std::move(r), op.pos));
    }
    return l;
  }

  Result<Node> UnaryExpr(int depth) {
    if (depth > kMaxDepth) return Unsupported(Peek().pos, "expression nested too deeply");
    if (IsPunct('-')) {
      const Token& minus = Next();
      // A negative integer literal is one literal (so -2147483648 is an INT, as in Spark).
      if (Peek().kind == Tok::kInt) return IntLiteral(Next(), /*negative=*/true);
      LITHIFY_ASSIGN_OR_RETURN(Node operand, UnaryExpr(depth + 1));
      if (!IsIntegerKind(operand.type.kind)) {
        return Unsupported(minus.pos, fmt::format("unary minus on {} is not supported", SparkTypeName(operand.type)));
      }
      DataType t = operand.type;
      return Unary(Op::kNeg, t, std::move(operand));
    }
    return Primary(depth);
  }

  Result<Node> IntLiteral(const Token& t, bool negative) {
    // 39 digits overflow nothing below: anything beyond a long is refused.
    if (t.text.size() > 20) return Unsupported(t.pos, "integer literal out of the BIGINT range");
    int128_t v = 0;
    for (char c : t.text) v = v * 10 + (c - '0');
    if (negative) v = -v;
    if (!t.long_suffix && FitsInteger(v, TypeKind::kInt32)) return Literal(Value::Integer(TypeKind::kInt32, static_cast<int64_t>(v)));
    if (!FitsInteger(v, TypeKind::kInt64)) {
      return Unsupported(t.pos, "integer literal out of the BIGINT range (Spark makes it a DECIMAL)");
    }
    return Literal(Value::Int64(static_cast<int64_t>(v)));
  }

  Result<Node> Primary(int depth) {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kEnd:
        return Unsupported(t.pos, "expected an operand, found the end of the expression");
      case Tok::kInt:
        ++i_;
        return IntLiteral(t, false);
      case Tok::kString:
        ++i_;
        return Literal(Value::String(t.text));
      case Tok::kPunct:
        if (t.punct == '(') {
          ++i_;
          LITHIFY_ASSIGN_OR_RETURN(Node n, Expr(depth + 1));
          LITHIFY_RETURN_NOT_OK(Expect(')'));
          return n;
        }
        return Unsupported(t.pos, fmt::format("expected an operand, found '{}'", t.punct));
      case Tok::kName:
        break;
    }
    ++i_;
    if (!t.quoted && IsPunct('(')) return Call(t, depth);
    if (NameIs(t, "TRUE") || NameIs(t, "FALSE")) return Literal(Value::Boolean(NameIs(t, "TRUE")));
    if (NameIs(t, "NULL")) return Literal(Value());
    if (NameIs(t, "DATE") && Peek().kind == Tok::kString) {
      const Token& s = Next();
      auto days = StrictDate(s.text);
      if (!days) return Unsupported(s.pos, fmt::format("DATE literal '{}' is not YYYY-MM-DD", s.text));
      return Literal(Value::Date(*days));
    }
    if (IsPunct('.')) return Unsupported(t.pos, "nested fields are not supported");
    return ColumnRef(t);
  }

  Result<Node> ColumnRef(const Token& t) {
    // Spark resolves names case-insensitively; two columns matching is ambiguous.
    int found = -1;
    const std::string want = Upper(t.text);
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (Upper(columns_[c].name) != want) continue;
      if (found >= 0) return Unsupported(t.pos, fmt::format("column name {} is ambiguous", t.text));
      found = static_cast<int>(c);
    }
    if (found < 0) return Unsupported(t.pos, fmt::format("column {} does not exist", t.text));
    const DataType& type = columns_[found].type;
    if (!SupportedColumnType(type.kind)) {
      return Unsupported(t.pos, fmt::format("column {} of type {} is not supported", columns_[found].name,
                                            type.kind == TypeKind::kNull ? "struct, array, map or other"
                                                                         : SparkTypeName(type)));
    }
    if (std::find(referenced.begin(), referenced.end(), found) == referenced.end()) referenced.push_back(found);
    Node n;
    n.op = Op::kColumn;
    n.type = type;
    n.column = found;
    return n;
  }

  Result<DataType> CastTypeName() {
    const Token& t = Next();
    static constexpr std::pair<const char*, TypeKind> kTypes[] = {
        {"DATE", TypeKind::kDate},     {"STRING", TypeKind::kString}, {"TINYINT", TypeKind::kInt8},
        {"BYTE", TypeKind::kInt8},     {"SMALLINT", TypeKind::kInt16}, {"SHORT", TypeKind::kInt16},
        {"INT", TypeKind::kInt32},     {"INTEGER", TypeKind::kInt32}, {"BIGINT", TypeKind::kInt64},
        {"LONG", TypeKind::kInt64},    {"BOOLEAN", TypeKind::kBoolean},
    };
    for (const auto& [name, kind] : kTypes) {
      if (NameIs(t, name)) return DataType::Of(kind);
    }
    return Unsupported(t.pos, fmt::format("CAST to {} is not supported", t.kind == Tok::kName ? t.text : "this type"));
  }

  Result<Node> Call(const Token& name, int depth) {
    ++i_;  // '('
    if (NameIs(name, "CAST")) {
      LITHIFY_ASSIGN_OR_RETURN(Node x, Expr(depth + 1));
      if (!NameIs(Peek(), "AS")) return Unsupported(Peek().pos, "expected AS in CAST");
      ++i_;
      const size_t type_pos = Peek().pos;
      LITHIFY_ASSIGN_OR_RETURN(DataType to, CastTypeName());
      LITHIFY_RETURN_NOT_OK(Expect(')'));
      return CastTo(std::move(x), to, type_pos);
    }
    std::vector<Node> args;
    std::vector<size_t> arg_pos;
    if (!IsPunct(')')) {
      while (true) {
        arg_pos.push_back(Peek().pos);
        LITHIFY_ASSIGN_OR_RETURN(Node a, Expr(depth + 1));
        args.push_back(std::move(a));
        if (IsPunct(',')) {
          ++i_;
          continue;
        }
        break;
      }
    }
    LITHIFY_RETURN_NOT_OK(Expect(')'));
    const std::string fn = Upper(name.text);
    auto arity = [&](size_t lo, size_t hi) -> Status {
      if (args.size() < lo || args.size() > hi) {
        return Unsupported(name.pos, fmt::format("{} with {} argument(s) is not supported", fn, args.size()));
      }
      return Status::OK();
    };
    auto bad_arg = [&](size_t i) {
      return Unsupported(arg_pos[i], fmt::format("{} of {} is not supported", fn, SparkTypeName(args[i].type)));
    };
    const DataType kInt = DataType::Of(TypeKind::kInt32);
    if (fn == "YEAR" || fn == "MONTH" || fn == "DAY" || fn == "DAYOFMONTH") {
      LITHIFY_RETURN_NOT_OK(arity(1, 1));
      const TypeKind k = args[0].type.kind;
      if (k != TypeKind::kDate && !IsTimestampKind(k) && k != TypeKind::kNull) return bad_arg(0);
      const Op op = fn == "YEAR" ? Op::kYear : fn == "MONTH" ? Op::kMonth : Op::kDay;
      return Unary(op, kInt, std::move(args[0]));
    }
    if (fn == "HOUR") {
      LITHIFY_RETURN_NOT_OK(arity(1, 1));
      const TypeKind k = args[0].type.kind;
      if (!IsTimestampKind(k) && k != TypeKind::kNull) return bad_arg(0);
      return Unary(Op::kHour, kInt, std::move(args[0]));
    }
    if (fn == "TO_DATE") {
      LITHIFY_RETURN_NOT_OK(arity(1, 1));
      return CastTo(std::move(args[0]), DataType::Of(TypeKind::kDate), arg_pos[0]);
    }
    if (fn == "DATE_FORMAT") {
      LITHIFY_RETURN_NOT_OK(arity(2, 2));
      const TypeKind k = args[0].type.kind;
      if (k != TypeKind::kDate && !IsTimestampKind(k) && k != TypeKind::kNull) return bad_arg(0);
      if (args[1].op != Op::kLiteral || args[1].type.kind != TypeKind::kString) {
        return Unsupported(arg_pos[1], "DATE_FORMAT needs a string literal pattern");
      }
      LITHIFY_ASSIGN_OR_RETURN(auto pattern, Pattern(args[1].literal.bytes(), arg_pos[1]));
      Node n = Unary(Op::kDateFormat, DataType::Of(TypeKind::kString), std::move(args[0]));
      n.pattern = std::move(pattern);
      return n;
    }
    if (fn == "SUBSTRING" || fn == "SUBSTR") {
      LITHIFY_RETURN_NOT_OK(arity(2, 3));
      Node n;
      n.op = Op::kSubstr;
      n.type = DataType::Of(TypeKind::kString);
      LITHIFY_ASSIGN_OR_RETURN(Node s, AsString(std::move(args[0]), arg_pos[0]));
      n.children.push_back(std::move(s));
      for (size_t i = 1; i < args.size(); ++i) {
        const TypeKind k = args[i].type.kind;
        if (k != TypeKind::kNull && !(IsIntegerKind(k) && IntegerWidth(k) <= 4)) {
          return Unsupported(arg_pos[i], fmt::format("{} position / length of {} is not supported (INT only)", fn,
                                                     SparkTypeName(args[i].type)));
        }
        n.children.push_back(std::move(args[i]));
      }
      return n;
    }
    if (fn == "LOWER" || fn == "UPPER" || fn == "LCASE" || fn == "UCASE") {
      LITHIFY_RETURN_NOT_OK(arity(1, 1));
      LITHIFY_ASSIGN_OR_RETURN(Node s, AsString(std::move(args[0]), arg_pos[0]));
      return Unary(fn == "LOWER" || fn == "LCASE" ? Op::kLower : Op::kUpper, DataType::Of(TypeKind::kString),
                   std::move(s));
    }
    if (fn == "CONCAT") {
      LITHIFY_RETURN_NOT_OK(arity(1, 1000));
      Node n;
      n.op = Op::kConcat;
      n.type = DataType::Of(TypeKind::kString);
      for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].type.kind == TypeKind::kBinary) return bad_arg(i);
        LITHIFY_ASSIGN_OR_RETURN(Node s, AsString(std::move(args[i]), arg_pos[i]));
        n.children.push_back(std::move(s));
      }
      return n;
    }
    return Unsupported(name.pos, fmt::format("function {} is not supported", name.text));
  }

  // DATE_FORMAT patterns: yyyy MM dd HH mm ss and separators; anything else (other
  // letters or counts, quotes, optional sections) is refused rather than approximated.
  static Result<std::vector<FormatPiece>> Pattern(const std::string& p, size_t pos) {
    std::vector<FormatPiece> out;
    size_t i = 0;
    while (i < p.size()) {
      const char c = p[i];
      if (std::isalpha(static_cast<unsigned char>(c))) {
        size_t j = i;
        while (j < p.size() && p[j] == c) ++j;
        const size_t count = j - i;
        const bool ok = (c == 'y' && count == 4) ||
                        ((c == 'M' || c == 'd' || c == 'H' || c == 'm' || c == 's') && count == 2);
        if (!ok) {
          return Unsupported(pos, fmt::format("DATE_FORMAT pattern field '{}' is not supported (supported: "
                                              "yyyy MM dd HH mm ss)",
                                              p.substr(i, count)));
        }
        out.push_back({c, {}});
        i = j;
      } else if (c == '-' || c == '/' || c == ':' || c == '_' || c == '.' || c == ',' || c == ' ') {
        if (out.empty() || out.back().field != 0) out.push_back({0, {}});
        out.back().text += c;
        ++i;
      } else {
        return Unsupported(pos, fmt::format("DATE_FORMAT pattern character '{}' is not supported", c));
      }
    }
    return out;
  }

 public:
  // "YYYY-MM-DD" with a 4-digit year 0001..9999 and a day that exists.
  static std::optional<int32_t> StrictDate(std::string_view s) {
    if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
    int v[3] = {0, 0, 0};
    const size_t starts[3] = {0, 5, 8}, lens[3] = {4, 2, 2};
    for (int f = 0; f < 3; ++f) {
      for (size_t k = 0; k < lens[f]; ++k) {
        const char c = s[starts[f] + k];
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        v[f] = v[f] * 10 + (c - '0');
      }
    }
    if (v[0] < 1 || v[1] < 1 || v[1] > 12 || v[2] < 1 ||
        v[2] > static_cast<int>(DaysInMonth(v[0], static_cast<unsigned>(v[1])))) {
      return std::nullopt;
    }
    return static_cast<int32_t>(DaysFromCivil(v[0], static_cast<unsigned>(v[1]), static_cast<unsigned>(v[2])));
  }

 private:
  std::vector<Token> t_;
  size_t i_ = 0;
  const std::vector<ScalarColumn>& columns_;
};

// ---- evaluation ----

Status Inexact(std::string_view what) { return Status::InvalidArgument("{}", what); }

// Days of a DATE or timestamp value (UTC for TIMESTAMP, wall clock for TIMESTAMP_NTZ),
// and the microseconds into that day.
DayTime DayAndTime(const Value& v) {
  if (v.kind() == TypeKind::kDate) return {v.int_value(), 0};
  return SplitDays(v.int_value(), kMicrosPerDay);
}

Result<std::string> DateText(int64_t days) {
  const CivilDate d = CivilFromDays(days);
  if (d.year < 1 || d.year > 9999) {
    return Inexact(fmt::format("the year {} is outside 1..9999, where Spark's text form of a date is not "
                               "reproduced",
                               d.year));
  }
  return fmt::format("{:04}-{:02}-{:02}", d.year, d.month, d.day);
}

// Spark's CAST(timestamp AS STRING): "yyyy-MM-dd HH:mm:ss" and the fraction of the
// second without trailing zeros, when it is not zero.
Result<std::string> TimestampText(int64_t micros) {
  const DayTime dt = SplitDays(micros, kMicrosPerDay);
  LITHIFY_ASSIGN_OR_RETURN(std::string s, DateText(dt.days));
  const int64_t secs = dt.time_of_day / 1000000, frac = dt.time_of_day % 1000000;
  s += fmt::format(" {:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
  if (frac != 0) {
    std::string f = fmt::format("{:06}", frac);
    while (f.back() == '0') f.pop_back();
    s += "." + f;
  }
  return s;
}

// Byte offsets of the code points of valid UTF-8 text, plus its size at the end.
std::optional<std::vector<size_t>> CodePointOffsets(const std::string& s) {
  std::vector<size_t> out;
  size_t i = 0;
  while (i < s.size()) {
    out.push_back(i);
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      n = 1;
      cp = c;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      cp = c & 0x07;
    } else {
      return std::nullopt;
    }
    if (i + n > s.size()) return std::nullopt;
    for (size_t k = 1; k < n; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return std::nullopt;
    }
    i += n;
  }
  out.push_back(s.size());
  return out;
}

bool IsAscii(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

Result<Value> Cast(const Value& v, const DataType& to) {
  const TypeKind f = v.kind();
  if (v.type() == to) return v;
  if (to.kind == TypeKind::kString) {
    if (IsIntegerKind(f)) return Value::String(std::to_string(v.int_value()));
    if (f == TypeKind::kBoolean) return Value::String(v.bool_value() ? "true" : "false");
    if (f == TypeKind::kDate) {
      LITHIFY_ASSIGN_OR_RETURN(std::string s, DateText(v.int_value()));
      return Value::String(std::move(s));
    }
    if (IsTimestampKind(f)) {
      LITHIFY_ASSIGN_OR_RETURN(std::string s, TimestampText(v.int_value()));
      return Value::String(std::move(s));
    }
  } else if (to.kind == TypeKind::kDate) {
    if (IsTimestampKind(f)) return Value::Date(static_cast<int32_t>(SplitDays(v.int_value(), kMicrosPerDay).days));
    if (f == TypeKind::kString) {
      if (auto d = Parser::StrictDate(v.bytes())) return Value::Date(*d);
      return Inexact(fmt::format("CAST('{}' AS DATE): only text of the form YYYY-MM-DD is cast (Spark's other forms "
                                 "and its NULL or error for invalid text depend on its settings)",
                                 v.bytes()));
    }
  } else if (IsIntegerKind(to.kind)) {
    if (IsIntegerKind(f)) {
      if (!FitsInteger(v.int_value(), to.kind)) {
        return Inexact(fmt::format("CAST({} AS {}) is out of range", v.int_value(), SparkTypeName(to)));
      }
      return Value::Integer(to.kind, v.int_value());
    }
    if (f == TypeKind::kString) {
      const std::string& s = v.bytes();
      size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
      const bool digits = i < s.size() && s.size() - i <= 20 &&
                          std::all_of(s.begin() + static_cast<std::ptrdiff_t>(i), s.end(),
                                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      if (digits) {
        int128_t n = 0;
        for (; i < s.size(); ++i) n = n * 10 + (s[i] - '0');
        if (s[0] == '-') n = -n;
        if (FitsInteger(n, to.kind)) return Value::Integer(to.kind, static_cast<int64_t>(n));
      }
      return Inexact(fmt::format("CAST('{}' AS {}): only in-range text of the form [+-]digits is cast", s,
                                 SparkTypeName(to)));
    }
  }
  return Status::Internal("CAST from {} to {} was not compiled", SparkTypeName(v.type()), SparkTypeName(to));
}

Result<Value> Eval(const Node& n, std::span<const Value> row) {
  switch (n.op) {
    case Op::kLiteral:
      return n.literal;
    case Op::kColumn: {
      if (static_cast<size_t>(n.column) >= row.size()) return Status::Internal("row has no column {}", n.column);
      const Value& v = row[n.column];
      if (v.is_null()) return Value::Null(n.type);
      if (v.type() != n.type) {
        return Status::InvalidArgument("a value of column {} is {}, not the column's {}", n.column,
                                       SparkTypeName(v.type()), SparkTypeName(n.type));
      }
      return v;
    }
    default:
      break;
  }
  std::vector<Value> a;
  a.reserve(n.children.size());
  for (const Node& c : n.children) {
    LITHIFY_ASSIGN_OR_RETURN(Value v, Eval(c, row));
    if (v.is_null()) return Value::Null(n.type);  // every supported function propagates NULL
    a.push_back(std::move(v));
  }
  switch (n.op) {
    case Op::kAdd: case Op::kSub: case Op::kMul: {
      const int128_t l = a[0].int_value(), r = a[1].int_value();
      const int128_t v = n.op == Op::kAdd ? l + r : n.op == Op::kSub ? l - r : l * r;
      if (!FitsInteger(v, n.type.kind)) {
        return Inexact(fmt::format("{} {} {} overflows {} (Spark wraps around without ANSI mode and fails with it)",
                                   a[0].int_value(), n.op == Op::kAdd ? "+" : n.op == Op::kSub ? "-" : "*",
                                   a[1].int_value(), SparkTypeName(n.type)));
      }
      return Value::Integer(n.type.kind, static_cast<int64_t>(v));
    }
    case Op::kNeg: {
      const int128_t v = -static_cast<int128_t>(a[0].int_value());
      if (!FitsInteger(v, n.type.kind)) {
        return Inexact(fmt::format("-({}) overflows {}", a[0].int_value(), SparkTypeName(n.type)));
      }
      return Value::Integer(n.type.kind, static_cast<int64_t>(v));
    }
    case Op::kCast:
      return Cast(a[0], n.type);
    case Op::kYear: case Op::kMonth: case Op::kDay: {
      const CivilDate d = CivilFromDays(DayAndTime(a[0]).days);
      const int64_t v = n.op == Op::kYear ? d.year : n.op == Op::kMonth ? d.month : d.day;
      return Value::Integer(TypeKind::kInt32, v);
    }
    case Op::kHour:
      return Value::Integer(TypeKind::kInt32, DayAndTime(a[0]).time_of_day / (3600 * int64_t{1000000}));
    case Op::kDateFormat: {
      const DayTime dt = DayAndTime(a[0]);
      const CivilDate d = CivilFromDays(dt.days);
      const int64_t secs = dt.time_of_day / 1000000;
      std::string out;
      for (const FormatPiece& p : n.pattern) {
        switch (p.field) {
          case 0: out += p.text; break;
          case 'y':
            if (d.year < 1 || d.year > 9999) {
              return Inexact(fmt::format("DATE_FORMAT of the year {}: outside 1..9999, where Spark's 'yyyy' is not "
                                         "reproduced",
                                         d.year));
            }
            out += fmt::format("{:04}", d.year);
            break;
          case 'M': out += fmt::format("{:02}", d.month); break;
          case 'd': out += fmt::format("{:02}", d.day); break;
          case 'H': out += fmt::format("{:02}", secs / 3600); break;
          case 'm': out += fmt::format("{:02}", secs / 60 % 60); break;
          case 's': out += fmt::format("{:02}", secs % 60); break;
        }
      }
      return Value::String(std::move(out));
    }
    case Op::kSubstr: {
      const std::string& s = a[0].bytes();
      auto offsets = CodePointOffsets(s);
      if (!offsets) return Inexact("SUBSTRING of text that is not valid UTF-8");
      const int64_t chars = static_cast<int64_t>(offsets->size()) - 1;
      const int64_t pos = a[1].int_value();
      const int64_t len = a.size() > 2 ? a[2].int_value() : std::numeric_limits<int32_t>::max();
      // Spark: a positive position is 1-based, 0 means the first character, a negative
      // one counts back from the end; the end is start + len before clamping start to 0.
      int64_t start = pos > 0 ? pos - 1 : pos < 0 ? chars + pos : 0;
      int64_t end = start + len;
      start = std::max<int64_t>(start, 0);
      end = std::min(end, chars);
      if (start >= end) return Value::String("");
      return Value::String(s.substr((*offsets)[start], (*offsets)[end] - (*offsets)[start]));
    }
    case Op::kLower: case Op::kUpper: {
      std::string s = a[0].bytes();
      if (!IsAscii(s)) {
        return Inexact(fmt::format("{} of text that is not ASCII (Spark's result depends on the JVM's locale)",
                                   n.op == Op::kLower ? "LOWER" : "UPPER"));
      }
      for (char& c : s) {
        c = static_cast<char>(n.op == Op::kLower ? std::tolower(static_cast<unsigned char>(c))
                                                 : std::toupper(static_cast<unsigned char>(c)));
      }
      return Value::String(std::move(s));
    }
    case Op::kConcat: {
      std::string s;
      for (const Value& v : a) s += v.bytes();
      return Value::String(std::move(s));
    }
    default:
      return Status::Internal("unknown scalar operation");
  }
}

}  // namespace

Result<ScalarExpr> ScalarExpr::Compile(std::string_view text, const std::vector<ScalarColumn>& columns) {
  LITHIFY_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lex(text));
  Parser p(std::move(tokens), columns);
  LITHIFY_ASSIGN_OR_RETURN(Node root, p.ParseAll());
  ScalarExpr e;
  e.root_ = std::make_shared<const Node>(std::move(root));
  e.referenced_ = std::move(p.referenced);
  std::sort(e.referenced_.begin(), e.referenced_.end());
  return e;
}

const DataType& ScalarExpr::type() const { return root_->type; }

Result<Value> ScalarExpr::Evaluate(std::span<const Value> row) const { return Eval(*root_, row); }

}  // namespace lithify::expr
