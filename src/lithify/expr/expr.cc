// Predicate parsing (a hand-written lexer and recursive-descent parser, one function per
// grammar rule) and canonical printing.
#include "lithify/expr/expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <limits>

#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"

namespace lithify::expr {

// ---- operators ----

std::string_view CompareOpText(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return "=";
    case CompareOp::kNe: return "<>";
    case CompareOp::kLt: return "<";
    case CompareOp::kLe: return "<=";
    case CompareOp::kGt: return ">";
    case CompareOp::kGe: return ">=";
  }
  return "?";
}

CompareOp NegateOp(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return CompareOp::kNe;
    case CompareOp::kNe: return CompareOp::kEq;
    case CompareOp::kLt: return CompareOp::kGe;
    case CompareOp::kLe: return CompareOp::kGt;
    case CompareOp::kGt: return CompareOp::kLe;
    case CompareOp::kGe: return CompareOp::kLt;
  }
  return op;
}

CompareOp MirrorOp(CompareOp op) {
  switch (op) {
    case CompareOp::kLt: return CompareOp::kGt;
    case CompareOp::kLe: return CompareOp::kGe;
    case CompareOp::kGt: return CompareOp::kLt;
    case CompareOp::kGe: return CompareOp::kLe;
    default: return op;
  }
}

// ---- Expr ----

Expr Expr::Make(Node n) { return Expr(std::make_shared<const Node>(std::move(n))); }

Expr Expr::Literal(Value v) {
  Node n;
  n.kind = ExprKind::kLiteral;
  n.literal = std::move(v);
  return Make(std::move(n));
}
Expr Expr::Column(ColumnPath path) {
  Node n;
  n.kind = ExprKind::kColumn;
  n.column = std::move(path);
  return Make(std::move(n));
}
Expr Expr::Compare(CompareOp op, Expr left, Expr right) {
  Node n;
  n.kind = ExprKind::kCompare;
  n.op = op;
  n.children = {std::move(left), std::move(right)};
  return Make(std::move(n));
}
Expr Expr::In(Expr operand, std::vector<Expr> list, bool negated) {
  Node n;
  n.kind = ExprKind::kIn;
  n.negated = negated;
  n.children.push_back(std::move(operand));
  for (Expr& e : list) n.children.push_back(std::move(e));
  return Make(std::move(n));
}
Expr Expr::Between(Expr operand, Expr low, Expr high, bool negated) {
  Node n;
  n.kind = ExprKind::kBetween;
  n.negated = negated;
  n.children = {std::move(operand), std::move(low), std::move(high)};
  return Make(std::move(n));
}
Expr Expr::IsNull(Expr operand, bool negated) {
  Node n;
  n.kind = ExprKind::kIsNull;
  n.negated = negated;
  n.children = {std::move(operand)};
  return Make(std::move(n));
}
Expr Expr::Not(Expr operand) {
  Node n;
  n.kind = ExprKind::kNot;
  n.children = {std::move(operand)};
  return Make(std::move(n));
}
Expr Expr::And(std::vector<Expr> children) {
  Node n;
  n.kind = ExprKind::kAnd;
  n.children = std::move(children);
  return Make(std::move(n));
}
Expr Expr::Or(std::vector<Expr> children) {
  Node n;
  n.kind = ExprKind::kOr;
  n.children = std::move(children);
  return Make(std::move(n));
}

bool Expr::operator==(const Expr& o) const {
  if (node_ == o.node_) return true;
  const Node& a = *node_;
  const Node& b = *o.node_;
  return a.kind == b.kind && a.op == b.op && a.negated == b.negated && a.literal == b.literal &&
         a.column == b.column && a.children == b.children;
}

namespace {

// Words that cannot be bare column names (back quote them instead).
constexpr std::array<std::string_view, 9> kReserved = {
    "AND", "OR", "NOT", "IN", "IS", "NULL", "BETWEEN", "TRUE", "FALSE"};
// Type prefixes of typed literals; column names only when no string follows.
constexpr std::array<std::string_view, 4> kTypePrefixes = {"DATE", "TIMESTAMP", "TIMESTAMP_NTZ",
                                                            "DOUBLE"};

std::string Upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool NeedsQuotes(const std::string& name) {
  if (name.empty() || !IsIdentStart(name[0])) return true;
  if (!std::all_of(name.begin(), name.end(), IsIdentChar)) return true;
  std::string u = Upper(name);
  return std::find(kReserved.begin(), kReserved.end(), u) != kReserved.end() ||
         std::find(kTypePrefixes.begin(), kTypePrefixes.end(), u) != kTypePrefixes.end();
}

// ---- lexer ----

enum class Tok : uint8_t { kEnd, kName, kKeyword, kNumber, kString, kSymbol };

struct Token {
  Tok kind = Tok::kEnd;
  size_t pos = 0;        // 1-based character position
  std::string text;      // keyword (upper case), number text, string value, symbol
  ColumnPath path;       // kName
  bool quoted = false;   // kName: some part was back quoted
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd: return "end of input";
    case Tok::kName: return fmt::format("column {}", ColumnPathText(t.path));
    case Tok::kKeyword: return t.text;
    case Tok::kNumber: return fmt::format("number {}", t.text);
    case Tok::kString: return fmt::format("string {}", LiteralText(Value::String(t.text)));
    case Tok::kSymbol: return fmt::format("'{}'", t.text);
  }
  return "?";
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
      Token t;
      t.pos = i_ + 1;
      if (i_ >= s_.size()) {
        out.push_back(std::move(t));
        return out;
      }
      LITHIFY_RETURN_NOT_OK(Next(&t));
      out.push_back(std::move(t));
    }
  }

 private:
  Status Error(size_t pos, std::string_view what) const {
    return Status::InvalidArgument("position {}: {}", pos + 1, what);
  }

  Status Next(Token* t) {
    char c = s_[i_];
    if (c == '\'') return LexString(t);
    if (c == '`' || IsIdentStart(c)) return LexName(t);
    bool signed_number = (c == '-' || c == '+') && i_ + 1 < s_.size() &&
                         (std::isdigit(static_cast<unsigned char>(s_[i_ + 1])) || s_[i_ + 1] == '.');
    if (std::isdigit(static_cast<unsigned char>(c)) || signed_number ||
        (c == '.' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1])))) {
      return LexNumber(t);
    }
    return LexSymbol(t);
  }

  Status LexString(Token* t) {
    size_t start = i_++;
    t->kind = Tok::kString;
    while (true) {
      if (i_ >= s_.size()) return Error(start, "unterminated string literal");
      if (s_[i_] == '\'') {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == '\'') {
          t->text.push_back('\'');
          i_ += 2;
          continue;
        }
        ++i_;
        return Status::OK();
      }
      t->text.push_back(s_[i_++]);
    }
  }

  Status LexNamePart(std::string* name, bool* quoted) {
    if (s_[i_] == '`') {
      size_t start = i_++;
      *quoted = true;
      while (true) {
        if (i_ >= s_.size()) return Error(start, "unterminated back-quoted name");
        if (s_[i_] == '`') {
          if (i_ + 1 < s_.size() && s_[i_ + 1] == '`') {
            name->push_back('`');
            i_ += 2;
            continue;
          }
          ++i_;
          if (name->empty()) return Error(start, "empty back-quoted name");
          return Status::OK();
        }
        name->push_back(s_[i_++]);
      }
    }
    if (!IsIdentStart(s_[i_])) return Error(i_, "expected a field name after '.'");
    while (i_ < s_.size() && IsIdentChar(s_[i_])) name->push_back(s_[i_++]);
    return Status::OK();
  }

  Status LexName(Token* t) {
    t->kind = Tok::kName;
    while (true) {
      std::string part;
      LITHIFY_RETURN_NOT_OK(LexNamePart(&part, &t->quoted));
      t->path.push_back(std::move(part));
      if (i_ + 1 < s_.size() && s_[i_] == '.' && (s_[i_ + 1] == '`' || IsIdentStart(s_[i_ + 1]))) {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '.') return Error(i_ + 1, "expected a field name after '.'");
      break;
    }
    if (!t->quoted && t->path.size() == 1) {
      std::string u = Upper(t->path[0]);
      if (std::find(kReserved.begin(), kReserved.end(), u) != kReserved.end()) {
        t->kind = Tok::kKeyword;
        t->text = std::move(u);
      }
    }
    return Status::OK();
  }

  Status LexNumber(Token* t) {
    size_t start = i_;
    t->kind = Tok::kNumber;
    if (s_[i_] == '+' || s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (IsIdentChar(s_[i_]) || s_[i_] == '.' ||
                              ((s_[i_] == '+' || s_[i_] == '-') &&
                               (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E')))) {
      ++i_;
    }
    t->text = std::string(s_.substr(start, i_ - start));
    Result<Value> v = ParseNumber(t->text);
    if (!v.ok()) return Error(start, v.status().message());
    return Status::OK();
  }

  Status LexSymbol(Token* t) {
    static constexpr std::array<std::string_view, 10> kSymbols = {
        "<>", "!=", "<=", ">=", "=", "<", ">", "(", ")", ","};
    t->kind = Tok::kSymbol;
    for (std::string_view sym : kSymbols) {
      if (s_.substr(i_, sym.size()) == sym) {
        t->text = std::string(sym);
        i_ += sym.size();
        return Status::OK();
      }
    }
    if (s_[i_] == '"') {
      return Error(i_, "unexpected '\"' (strings use single quotes, names use back quotes)");
    }
    return Error(i_, fmt::format("unexpected character '{}'", s_[i_]));
  }

  std::string_view s_;
  size_t i_ = 0;
};

// ---- parser ----

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Result<Expr> Run() {
    LITHIFY_ASSIGN_OR_RETURN(Expr e, ParseOr());
    if (Peek().kind != Tok::kEnd) return Unexpected("AND, OR or the end of the predicate");
    return e;
  }

 private:
  const Token& Peek(size_t ahead = 0) const { return t_[std::min(k_ + ahead, t_.size() - 1)]; }
  const Token& Take() { return t_[std::min(k_++, t_.size() - 1)]; }
  bool IsKeyword(std::string_view kw, size_t ahead = 0) const {
    return Peek(ahead).kind == Tok::kKeyword && Peek(ahead).text == kw;
  }
  bool IsSymbol(std::string_view sym) const {
    return Peek().kind == Tok::kSymbol && Peek().text == sym;
  }
  Status Unexpected(std::string_view expected) const {
    return Status::InvalidArgument("position {}: expected {}, found {}", Peek().pos, expected,
                                   Describe(Peek()));
  }
  Status ExpectedAfter(std::string_view expected, std::string_view after) const {
    return Status::InvalidArgument("position {}: expected {} after {}, found {}", Peek().pos,
                                   expected, after, Describe(Peek()));
  }

  Result<Expr> ParseOr() { return ParseChain("OR", &Parser::ParseAnd); }
  Result<Expr> ParseAnd() { return ParseChain("AND", &Parser::ParseNot); }

  Result<Expr> ParseChain(std::string_view kw, Result<Expr> (Parser::*sub)()) {
    std::vector<Expr> parts;
    LITHIFY_ASSIGN_OR_RETURN(Expr first, (this->*sub)());
    parts.push_back(std::move(first));
    int depth = levels_;
    while (IsKeyword(kw)) {
      Take();
      if (Peek().kind == Tok::kEnd) return ExpectedAfter("a predicate", kw);
      LITHIFY_ASSIGN_OR_RETURN(Expr next, (this->*sub)());
      parts.push_back(std::move(next));
      depth = std::max(depth, levels_);
    }
    levels_ = depth;
    if (parts.size() == 1) return std::move(parts[0]);
    LITHIFY_RETURN_NOT_OK(AddLevel());
    return kw == "OR" ? Expr::Or(std::move(parts)) : Expr::And(std::move(parts));
  }

  // Two bounds keep every recursive walk of the input and of the tree (Print, Bind, the
  // evaluators, comparison, destruction) far from the end of the stack:
  //  - levels: AND, OR and NOT nodes inside one another, at most kMaxPredicateNesting;
  //    checked as each node is made, so no deeper tree is ever built;
  //  - open parentheses and NOTs (this parser's recursion), at most twice that, which is
  //    what the canonical text of the deepest tree needs (ToString writes "NOT (...)"
  //    and parenthesizes nested groups), so Parse(ToString(e)) accepts every e Parse
  //    returns.
  Status Descend() {
    if (++open_ > 2 * kMaxPredicateNesting) {
      return Status::InvalidArgument("position {}: predicate nested deeper than {} levels of "
                                     "parentheses and NOTs",
                                     Peek().pos, 2 * kMaxPredicateNesting);
    }
    return Status::OK();
  }
  Status AddLevel() {
    if (++levels_ > kMaxPredicateNesting) {
      return Status::InvalidArgument("position {}: predicate nested deeper than {} levels of "
                                     "AND, OR and NOT",
                                     Peek().pos, kMaxPredicateNesting);
    }
    return Status::OK();
  }

  Result<Expr> ParseNot() {
    if (!IsKeyword("NOT")) return ParsePrimary();
    LITHIFY_RETURN_NOT_OK(Descend());
    Take();
    if (Peek().kind == Tok::kEnd) return ExpectedAfter("a predicate", "NOT");
    LITHIFY_ASSIGN_OR_RETURN(Expr e, ParseNot());
    --open_;
    LITHIFY_RETURN_NOT_OK(AddLevel());
    return Expr::Not(std::move(e));
  }

  Result<Expr> ParsePrimary() {
    if (IsSymbol("(")) {
      LITHIFY_RETURN_NOT_OK(Descend());
      Take();
      LITHIFY_ASSIGN_OR_RETURN(Expr e, ParseOr());
      if (!IsSymbol(")")) return Unexpected("')'");
      Take();
      --open_;
      return e;
    }
    levels_ = 0;  // a comparison (or operand): no AND, OR or NOT below it
    LITHIFY_ASSIGN_OR_RETURN(Expr operand, ParseOperand("a predicate", nullptr));
    return ParseTail(std::move(operand));
  }

  // A column or literal. `after` names the preceding token for the error message.
  Result<Expr> ParseOperand(std::string_view what, const char* after) {
    const Token& t = Peek();
    if (t.kind == Tok::kName && IsTypedLiteral()) return ParseTypedLiteral();
    if (t.kind == Tok::kName) return Expr::Column(Take().path);
    if (t.kind == Tok::kNumber || t.kind == Tok::kString ||
        (t.kind == Tok::kKeyword && (t.text == "TRUE" || t.text == "FALSE" || t.text == "NULL"))) {
      return ParseLiteral(what, after);
    }
    if (after != nullptr) return ExpectedAfter(what, fmt::format("'{}'", after));
    return Unexpected(what);
  }

  bool IsTypedLiteral() const {
    const Token& t = Peek();
    if (t.quoted || t.path.size() != 1 || Peek(1).kind != Tok::kString) return false;
    std::string u = Upper(t.path[0]);
    return std::find(kTypePrefixes.begin(), kTypePrefixes.end(), u) != kTypePrefixes.end();
  }

  Result<Expr> ParseTypedLiteral() {
    std::string type = Upper(Take().path[0]);
    const Token& s = Take();
    auto wrap = [&](Status st) {
      return Status::InvalidArgument("position {}: {} literal: {}", s.pos, type, st.message());
    };
    if (type == "DATE") {
      Result<int32_t> d = ParseDate(s.text);
      if (!d.ok()) return wrap(d.status());
      return Expr::Literal(Value::Date(*d));
    }
    if (type == "DOUBLE") {
      std::string u = Upper(s.text);
      if (u == "NAN") return Expr::Literal(Value::Float64(std::numeric_limits<double>::quiet_NaN()));
      if (u == "INFINITY" || u == "+INFINITY" || u == "-INFINITY") {
        double inf = std::numeric_limits<double>::infinity();
        return Expr::Literal(Value::Float64(u[0] == '-' ? -inf : inf));
      }
      Result<Value> v = ParseNumber(s.text);
      if (!v.ok()) return wrap(v.status());
      return Expr::Literal(Value::Float64(std::strtod(s.text.c_str(), nullptr)));
    }
    bool had_zone = false;
    Result<int64_t> ts = ParseTimestamp(s.text, &had_zone);
    if (!ts.ok()) return wrap(ts.status());
    if (type == "TIMESTAMP_NTZ") {
      if (had_zone) return wrap(Status::InvalidArgument("'{}' has a time zone", s.text));
      return Expr::Literal(Value::TimestampNtz(*ts));
    }
    // Without a zone, TIMESTAMP text is read as UTC (lithify has no session time zone).
    return Expr::Literal(Value::Timestamp(*ts));
  }

  Result<Expr> ParseLiteral(std::string_view what, const char* after) {
    const Token& t = Take();
    switch (t.kind) {
      case Tok::kNumber: {
        LITHIFY_ASSIGN_OR_RETURN(Value v, ParseNumber(t.text));
        return Expr::Literal(std::move(v));
      }
      case Tok::kString: return Expr::Literal(Value::String(t.text));
      case Tok::kKeyword:
        if (t.text == "NULL") return Expr::Literal(Value());
        if (t.text == "TRUE" || t.text == "FALSE") return Expr::Literal(Value::Boolean(t.text == "TRUE"));
        break;
      default: break;
    }
    --k_;
    if (after != nullptr) return ExpectedAfter(what, fmt::format("'{}'", after));
    return Unexpected(what);
  }

  Result<Expr> ParseTail(Expr operand) {
    if (Peek().kind == Tok::kSymbol) {
      static constexpr std::array<std::pair<std::string_view, CompareOp>, 7> kOps = {{
          {"=", CompareOp::kEq}, {"<>", CompareOp::kNe}, {"!=", CompareOp::kNe},
          {"<", CompareOp::kLt}, {"<=", CompareOp::kLe}, {">", CompareOp::kGt},
          {">=", CompareOp::kGe}}};
      for (auto [text, op] : kOps) {
        if (Peek().text != text) continue;
        std::string sym = Take().text;
        LITHIFY_ASSIGN_OR_RETURN(Expr right, ParseOperand("a column or literal", sym.c_str()));
        return Expr::Compare(op, std::move(operand), std::move(right));
      }
      return operand;  // ')' or ',' : the caller decides
    }
    if (IsKeyword("IS")) return ParseIsNull(std::move(operand));
    bool negated = IsKeyword("NOT") && (IsKeyword("IN", 1) || IsKeyword("BETWEEN", 1));
    if (negated) Take();
    if (IsKeyword("IN")) return ParseIn(std::move(operand), negated);
    if (IsKeyword("BETWEEN")) return ParseBetween(std::move(operand), negated);
    if (Peek().kind != Tok::kEnd && Peek().kind != Tok::kKeyword) {
      return Unexpected("a comparison, IN, BETWEEN, IS, AND, OR or the end of the predicate");
    }
    return operand;
  }

  Result<Expr> ParseIsNull(Expr operand) {
    Take();
    bool negated = IsKeyword("NOT");
    if (negated) Take();
    if (!IsKeyword("NULL")) return ExpectedAfter("NULL", negated ? "IS NOT" : "IS");
    Take();
    return Expr::IsNull(std::move(operand), negated);
  }

  Result<Expr> ParseIn(Expr operand, bool negated) {
    Take();
    if (!IsSymbol("(")) return ExpectedAfter("'('", "IN");
    Take();
    std::vector<Expr> list;
    while (true) {
      const char* after = list.empty() ? "(" : ",";
      LITHIFY_ASSIGN_OR_RETURN(Expr lit, ParseOperand("a literal", after));
      if (lit.kind() != ExprKind::kLiteral) {
        --k_;
        return ExpectedAfter("a literal", fmt::format("'{}'", after));
      }
      list.push_back(std::move(lit));
      if (IsSymbol(",")) {
        Take();
        continue;
      }
      if (IsSymbol(")")) {
        Take();
        return Expr::In(std::move(operand), std::move(list), negated);
      }
      return Unexpected("',' or ')' in the IN list");
    }
  }

  Result<Expr> ParseBetween(Expr operand, bool negated) {
    Take();
    LITHIFY_ASSIGN_OR_RETURN(Expr low, ParseOperand("a column or literal", "BETWEEN"));
    if (!IsKeyword("AND")) return ExpectedAfter("AND", "the lower bound of BETWEEN");
    Take();
    LITHIFY_ASSIGN_OR_RETURN(Expr high, ParseOperand("a column or literal", "AND"));
    return Expr::Between(std::move(operand), std::move(low), std::move(high), negated);
  }

  std::vector<Token> t_;
  size_t k_ = 0;
  int open_ = 0;    // enclosing NOTs and open parentheses
  int levels_ = 0;  // AND/OR/NOT levels of the expression parsed last
};

// ---- printing ----

void Print(const Expr& e, std::string* out);

void PrintGroupMember(const Expr& e, std::string* out) {
  // A nested connective (parenthesized in the input, or built that way) keeps its
  // parentheses so that re-parsing rebuilds the same tree.
  bool parens = e.kind() == ExprKind::kAnd || e.kind() == ExprKind::kOr;
  if (parens) out->push_back('(');
  Print(e, out);
  if (parens) out->push_back(')');
}

void Print(const Expr& e, std::string* out) {
  const auto& c = e.children();
  switch (e.kind()) {
    case ExprKind::kLiteral: *out += LiteralText(e.literal()); return;
    case ExprKind::kColumn: *out += ColumnPathText(e.column()); return;
    case ExprKind::kCompare:
      Print(c[0], out);
      *out += fmt::format(" {} ", CompareOpText(e.op()));
      Print(c[1], out);
      return;
    case ExprKind::kIn:
      Print(c[0], out);
      *out += e.negated() ? " NOT IN (" : " IN (";
      for (size_t i = 1; i < c.size(); ++i) {
        if (i > 1) *out += ", ";
        Print(c[i], out);
      }
      *out += ")";
      return;
    case ExprKind::kBetween:
      Print(c[0], out);
      *out += e.negated() ? " NOT BETWEEN " : " BETWEEN ";
      Print(c[1], out);
      *out += " AND ";
      Print(c[2], out);
      return;
    case ExprKind::kIsNull:
      Print(c[0], out);
      *out += e.negated() ? " IS NOT NULL" : " IS NULL";
      return;
    case ExprKind::kNot:
      *out += "NOT (";
      Print(c[0], out);
      *out += ")";
      return;
    case ExprKind::kAnd:
    case ExprKind::kOr:
      for (size_t i = 0; i < c.size(); ++i) {
        if (i > 0) *out += e.kind() == ExprKind::kAnd ? " AND " : " OR ";
        PrintGroupMember(c[i], out);
      }
      return;
  }
}

void Collect(const Expr& e, std::vector<ColumnPath>* out) {
  if (e.kind() == ExprKind::kColumn) {
    if (std::find(out->begin(), out->end(), e.column()) == out->end()) out->push_back(e.column());
    return;
  }
  for (const Expr& c : e.children()) Collect(c, out);
}

}  // namespace

std::string ColumnPathText(const ColumnPath& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out.push_back('.');
    if (!NeedsQuotes(path[i])) {
      out += path[i];
      continue;
    }
    out.push_back('`');
    for (char c : path[i]) {
      if (c == '`') out.push_back('`');
      out.push_back(c);
    }
    out.push_back('`');
  }
  return out;
}

Result<Expr> Parse(std::string_view text) {
  LITHIFY_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer(text).Run());
  if (tokens.size() == 1) return Status::InvalidArgument("position 1: empty predicate");
  return Parser(std::move(tokens)).Run();
}

std::string ToString(const Expr& e) {
  std::string out;
  Print(e, &out);
  return out;
}

std::vector<ColumnPath> ReferencedColumns(const Expr& e) {
  std::vector<ColumnPath> out;
  Collect(e, &out);
  return out;
}

}  // namespace lithify::expr
