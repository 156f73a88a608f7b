// JSON Lines input: a small exact JSON parser, its tree converted to Values by the
// column's type. See ingest_jsonl.h.
#include "lithify/commands/ingest_jsonl.h"

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"
#include "lithify/base/text.h"
#include "lithify/base/utf8.h"
#include "lithify/commands/ingest_text.h"

namespace lithify::commands::ingest_internal {
namespace {

// A parsed JSON value. Numbers keep their literal text.
struct JNode {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool b = false;
  std::string text;               // number literal or decoded string
  std::vector<JNode> items;       // array items, or object values
  std::vector<std::string> keys;  // object keys (parallel to items)
};

// ---------------------------------------------------------------------------------
// JSON: a small exact parser (number literals are kept as text so that decimals and
// 64-bit integers are never routed through a double).
// ---------------------------------------------------------------------------------

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : t_(text) {}

  Status ParseDocument(JNode* out) {
    SkipWs();
    LITHIFY_RETURN_NOT_OK(ParseValue(out, 0));
    SkipWs();
    if (i_ != t_.size()) return Error("unexpected text after the JSON value");
    return Status::OK();
  }

 private:
  Status Error(std::string_view what) const {
    return Status::InvalidArgument("invalid JSON at byte {}: {}", i_ + 1, what);
  }
  void SkipWs() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\r' || t_[i_] == '\n')) ++i_;
  }
  bool Literal(std::string_view lit) {
    if (t_.substr(i_, lit.size()) != lit) return false;
    i_ += lit.size();
    return true;
  }

  Status ParseValue(JNode* out, int depth) {
    if (i_ >= t_.size()) return Error("unexpected end of line");
    char c = t_[i_];
    // `depth` containers enclose this value; one more would pass the shared limit (the
    // tree is walked recursively afterwards, so it is refused before it is built).
    if ((c == '{' || c == '[') && depth >= kMaxJsonNesting) {
      return Error(fmt::format("JSON nested deeper than {} levels", kMaxJsonNesting));
    }
    switch (c) {
      case '{': return ParseObject(out, depth);
      case '[': return ParseArray(out, depth);
      case '"':
        out->kind = JNode::Kind::kString;
        return ParseString(&out->text);
      case 't':
        if (!Literal("true")) return Error("invalid literal");
        out->kind = JNode::Kind::kBool;
        out->b = true;
        return Status::OK();
      case 'f':
        if (!Literal("false")) return Error("invalid literal");
        out->kind = JNode::Kind::kBool;
        out->b = false;
        return Status::OK();
      case 'n':
        if (!Literal("null")) return Error("invalid literal");
        out->kind = JNode::Kind::kNull;
        return Status::OK();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
        return Error(fmt::format("unexpected character '{}'", c));
    }
  }

  Status ParseNumber(JNode* out) {
    size_t start = i_;
    if (t_[i_] == '-') ++i_;
    auto digits = [&] {
      size_t s = i_;
      while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
      return i_ - s;
    };
    size_t int_start = i_;
    size_t nd = digits();
    if (nd == 0) return Error("invalid number");
    if (nd > 1 && t_[int_start] == '0') {
      i_ = start;
      return Error("invalid number (leading zero)");
    }
    if (i_ < t_.size() && t_[i_] == '.') {
      ++i_;
      if (digits() == 0) return Error("invalid number");
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      ++i_;
      if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) ++i_;
      if (digits() == 0) return Error("invalid number");
    }
    out->kind = JNode::Kind::kNumber;
    out->text.assign(t_.substr(start, i_ - start));
    return Status::OK();
  }

  static int Hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool Hex4(uint32_t* cp) {
    if (i_ + 4 > t_.size()) return false;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      int h = Hex(t_[i_ + k]);
      if (h < 0) return false;
      v = v * 16 + static_cast<uint32_t>(h);
    }
    i_ += 4;
    *cp = v;
    return true;
  }
  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // Raw bytes were validated as UTF-8 for the whole line before parsing.
  Status ParseString(std::string* out) {
    ++i_;  // opening quote
    out->clear();
    while (true) {
      size_t run = i_;
      while (i_ < t_.size() && t_[i_] != '"' && t_[i_] != '\\' &&
             static_cast<unsigned char>(t_[i_]) >= 0x20) {
        ++i_;
      }
      out->append(t_.substr(run, i_ - run));
      if (i_ >= t_.size()) return Error("unterminated string");
      char c = t_[i_];
      if (c == '"') {
        ++i_;
        return Status::OK();
      }
      if (c != '\\') return Error("control character in string (must be escaped)");
      ++i_;
      if (i_ >= t_.size()) return Error("unterminated string");
      char e = t_[i_++];
      if (const int simple = JsonSimpleEscape(e); simple >= 0) {
        out->push_back(static_cast<char>(simple));
        continue;
      }
      switch (e) {
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return Error("invalid \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo = 0;
            if (t_.substr(i_, 2) != "\\u") return Error("unpaired surrogate in \\u escape (not valid UTF-8)");
            i_ += 2;
            if (!Hex4(&lo) || lo < 0xDC00 || lo > 0xDFFF) {
              return Error("unpaired surrogate in \\u escape (not valid UTF-8)");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Error("unpaired surrogate in \\u escape (not valid UTF-8)");
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return Error(fmt::format("invalid escape '\\{}'", e));
      }
    }
  }

  // The members of an array or object after its opening character: `member()` reads
  // one (the text after it is skipped over), then ',' continues and `close` ends. `what`
  // ("array", "object") names the container in messages.
  template <typename Member>
  Status ParseMembers(char close, std::string_view what, Member&& member) {
    ++i_;
    SkipWs();
    if (i_ < t_.size() && t_[i_] == close) {
      ++i_;
      return Status::OK();
    }
    while (true) {
      SkipWs();
      LITHIFY_RETURN_NOT_OK(member());
      SkipWs();
      if (i_ >= t_.size()) return Error(fmt::format("unterminated {}", what));
      if (t_[i_] == ',') {
        ++i_;
        continue;
      }
      if (t_[i_] == close) {
        ++i_;
        return Status::OK();
      }
      return Error(fmt::format("expected ',' or '{}' in {}", close, what));
    }
  }

  Status ParseArray(JNode* out, int depth) {
    out->kind = JNode::Kind::kArray;
    out->items.clear();
    return ParseMembers(']', "array", [&] {
      out->items.emplace_back();
      return ParseValue(&out->items.back(), depth + 1);
    });
  }

  Status ParseObject(JNode* out, int depth) {
    out->kind = JNode::Kind::kObject;
    out->items.clear();
    out->keys.clear();
    return ParseMembers('}', "object", [&]() -> Status {
      if (i_ >= t_.size() || t_[i_] != '"') return Error("expected a string key in object");
      out->keys.emplace_back();
      LITHIFY_RETURN_NOT_OK(ParseString(&out->keys.back()));
      SkipWs();
      if (i_ >= t_.size() || t_[i_] != ':') return Error("expected ':' after object key");
      ++i_;
      SkipWs();
      out->items.emplace_back();
      return ParseValue(&out->items.back(), depth + 1);
    });
  }

  std::string_view t_;
  size_t i_ = 0;
};

std::string ShowJson(const JNode& n) {
  switch (n.kind) {
    case JNode::Kind::kNull: return "null";
    case JNode::Kind::kBool: return n.b ? "true" : "false";
    case JNode::Kind::kNumber: return Shown(n.text, false);
    case JNode::Kind::kString: return Shown(n.text, true);
    case JNode::Kind::kArray: return "an array";
    case JNode::Kind::kObject: return "an object";
  }
  return "?";
}

Status KindMismatch(const JNode& n, const DataType& type, std::string_view expected) {
  return Status::InvalidArgument("expected {} for {} but found {}", expected, type.ToString(),
                                 ShowJson(n));
}


Status ParseJsonLine(std::string_view line, JNode* out) {
  if (!IsValidUtf8(line)) return Status::InvalidArgument("the line is not valid UTF-8");
  JsonParser parser(line);
  return parser.ParseDocument(out);
}

Result<Value> ValueFromJson(const JNode& n, const DataType& type, bool nullable,
                            const PathFrame* path) {
  if (n.kind == JNode::Kind::kNull) return NullValue(nullable, path);
  auto wrap = [&](Result<Value> r) -> Result<Value> {
    if (!r.ok()) return ColumnError(path, r.status());
    return r;
  };
  switch (type.kind) {
    case TypeKind::kBoolean:
      if (n.kind != JNode::Kind::kBool) return ColumnError(path, KindMismatch(n, type, "true or false"));
      return Value::Bool(n.b);
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong:
      if (n.kind != JNode::Kind::kNumber) return ColumnError(path, KindMismatch(n, type, "a number"));
      return wrap(ScalarFromText(n.text, false, type));
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      if (n.kind == JNode::Kind::kString) {
        if (n.text != "NaN" && n.text != "Infinity" && n.text != "-Infinity") {
          return ColumnError(path, KindMismatch(n, type, "a number, \"NaN\", \"Infinity\" or \"-Infinity\""));
        }
      } else if (n.kind != JNode::Kind::kNumber) {
        return ColumnError(path, KindMismatch(n, type, "a number"));
      }
      return wrap(ScalarFromText(n.text, false, type));
    case TypeKind::kDecimal:
      if (n.kind != JNode::Kind::kNumber && n.kind != JNode::Kind::kString) {
        return ColumnError(path, KindMismatch(n, type, "a number or a decimal string"));
      }
      return wrap(ScalarFromText(n.text, n.kind == JNode::Kind::kString, type));
    case TypeKind::kString:
      if (n.kind != JNode::Kind::kString) return ColumnError(path, KindMismatch(n, type, "a string"));
      return Value::String(n.text);  // already validated as UTF-8
    case TypeKind::kBinary:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      if (n.kind != JNode::Kind::kString) return ColumnError(path, KindMismatch(n, type, "a string"));
      return wrap(ScalarFromText(n.text, true, type));
    case TypeKind::kStruct: {
      if (n.kind != JNode::Kind::kObject) return ColumnError(path, KindMismatch(n, type, "an object"));
      std::vector<Value> fields(type.fields.size());
      std::vector<bool> seen(type.fields.size(), false);
      for (size_t k = 0; k < n.keys.size(); ++k) {
        int f = FindField(type.fields, n.keys[k]);
        if (f < 0) {
          return ColumnError(path, Status::InvalidArgument("unknown struct field '{}'", n.keys[k]));
        }
        PathFrame child{path, type.fields[f].name};
        if (seen[f]) return ColumnError(&child, Status::InvalidArgument("duplicate key '{}'", n.keys[k]));
        seen[f] = true;
        LITHIFY_ASSIGN_OR_RETURN(fields[f], ValueFromJson(n.items[k], type.fields[f].type,
                                                          type.fields[f].nullable, &child));
      }
      for (size_t f = 0; f < fields.size(); ++f) {
        if (!seen[f]) {
          PathFrame child{path, type.fields[f].name};
          LITHIFY_ASSIGN_OR_RETURN(fields[f], NullValue(type.fields[f].nullable, &child));
        }
      }
      return Value::Struct(std::move(fields));
    }
    case TypeKind::kArray: {
      if (n.kind != JNode::Kind::kArray) return ColumnError(path, KindMismatch(n, type, "an array"));
      std::vector<Value> items;
      items.reserve(n.items.size());
      for (size_t k = 0; k < n.items.size(); ++k) {
        PathFrame child{path, "", static_cast<int64_t>(k)};
        LITHIFY_ASSIGN_OR_RETURN(Value v, ValueFromJson(n.items[k], *type.element, type.contains_null, &child));
        items.push_back(std::move(v));
      }
      return Value::List(std::move(items));
    }
    case TypeKind::kMap: {
      std::vector<std::pair<Value, Value>> entries;
      PathFrame key_frame{path, "key"};
      PathFrame value_frame{path, "value"};
      if (n.kind == JNode::Kind::kArray) {
        // Canonical form: [{"key": k, "value": v}, ...].
        for (const JNode& e : n.items) {
          if (e.kind != JNode::Kind::kObject) {
            return ColumnError(path, KindMismatch(e, type, "map entries {\"key\":...,\"value\":...}"));
          }
          const JNode* k = nullptr;
          const JNode* v = nullptr;
          for (size_t m = 0; m < e.keys.size(); ++m) {
            if (e.keys[m] == "key" && k == nullptr) {
              k = &e.items[m];
            } else if (e.keys[m] == "value" && v == nullptr) {
              v = &e.items[m];
            } else {
              return ColumnError(path, Status::InvalidArgument("unexpected key '{}' in a map entry", e.keys[m]));
            }
          }
          if (k == nullptr) return ColumnError(path, Status::InvalidArgument("map entry without \"key\""));
          static const JNode kNull;
          LITHIFY_ASSIGN_OR_RETURN(Value kv, ValueFromJson(*k, *type.key, false, &key_frame));
          LITHIFY_ASSIGN_OR_RETURN(Value vv, ValueFromJson(v ? *v : kNull, *type.value,
                                                           type.value_contains_null, &value_frame));
          entries.emplace_back(std::move(kv), std::move(vv));
        }
      } else if (n.kind == JNode::Kind::kObject && type.key->kind == TypeKind::kString) {
        // Friendly form for string keys: {"k": v, ...}.
        for (size_t m = 0; m < n.keys.size(); ++m) {
          LITHIFY_ASSIGN_OR_RETURN(Value vv, ValueFromJson(n.items[m], *type.value,
                                                           type.value_contains_null, &value_frame));
          entries.emplace_back(Value::String(n.keys[m]), std::move(vv));
        }
      } else {
        return ColumnError(path, KindMismatch(n, type, "an array of {\"key\":...,\"value\":...}"));
      }
      return Value::Map(std::move(entries));
    }
    default:
      return ColumnError(path, Status::NotSupported("type {} cannot be ingested", type.ToString()));
  }
}


// Calls fn(line, line_number) for every line ('\n'-separated, a trailing '\r' removed).
template <typename Fn>
Status ForEachLine(io::FileSystem* fs, const std::string& path, Fn&& fn) {
  LITHIFY_ASSIGN_OR_RETURN(ChunkReader reader, ChunkReader::Open(fs, path));
  std::string pending;
  int64_t line_no = 0;
  auto emit = [&](std::string_view line) -> Status {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return fn(line, line_no);
  };
  while (true) {
    LITHIFY_ASSIGN_OR_RETURN(std::string_view chunk, reader.Next());
    if (chunk.empty()) break;
    size_t start = 0;
    while (true) {
      size_t nl = chunk.find('\n', start);
      if (nl == std::string_view::npos) {
        pending.append(chunk.substr(start));
        break;
      }
      if (pending.empty()) {
        LITHIFY_RETURN_NOT_OK(emit(chunk.substr(start, nl - start)));
      } else {
        pending.append(chunk.substr(start, nl - start));
        LITHIFY_RETURN_NOT_OK(emit(pending));
        pending.clear();
      }
      start = nl + 1;
    }
  }
  if (!pending.empty()) LITHIFY_RETURN_NOT_OK(emit(pending));
  return Status::OK();
}

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

}  // namespace

Status ReadJsonl(io::FileSystem* fs, const std::string& path, const delta::StructType& schema,
                 RowBatcher* batcher) {
  JNode node;
  return ForEachLine(fs, path, [&](std::string_view line, int64_t line_no) -> Status {
    if (IsBlank(line)) return Status::OK();
    auto ctx = [&](const Status& st) { return st.WithContextF("{} line {}", path, line_no); };
    Status st = ParseJsonLine(line, &node);
    if (!st.ok()) return ctx(st);
    if (node.kind != JNode::Kind::kObject) {
      return ctx(Status::InvalidArgument("expected a JSON object, found {}", ShowJson(node)));
    }
    const auto& fields = schema.fields;
    std::vector<Value> row(fields.size());
    std::vector<bool> seen(fields.size(), false);
    for (size_t k = 0; k < node.keys.size(); ++k) {
      int f = FindField(fields, node.keys[k]);
      if (f == -2) {
        return ctx(Status::InvalidArgument("key '{}' matches several columns (case-insensitive)", node.keys[k]));
      }
      if (f < 0) return ctx(Status::InvalidArgument("unknown column '{}'", node.keys[k]));
      if (seen[f]) return ctx(Status::InvalidArgument("duplicate key '{}'", node.keys[k]));
      seen[f] = true;
      PathFrame frame{nullptr, fields[f].name};
      auto v = ValueFromJson(node.items[k], fields[f].type, fields[f].nullable, &frame);
      if (!v.ok()) return ctx(v.status());
      row[f] = std::move(v).value();
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      if (!seen[f] && !fields[f].nullable) {
        return ctx(Status::InvalidArgument("column '{}': missing, and the column is NOT NULL",
                                           fields[f].name));
      }
    }
    return batcher->Add(std::move(row));
  });
}

}  // namespace lithify::commands::ingest_internal
