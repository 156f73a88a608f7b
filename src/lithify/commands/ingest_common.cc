// Shared pieces of the ingest readers; see ingest_common.h.
#include "lithify/commands/ingest_common.h"

#include <fmt/format.h>

#include <limits>

namespace lithify::commands::ingest_internal {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

int FindField(const std::vector<delta::StructField>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  int found = -1;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreCase(fields[i].name, name)) {
      if (found >= 0) return -2;  // ambiguous
      found = static_cast<int>(i);
    }
  }
  return found;
}

std::string PathText(const PathFrame* f) {
  std::vector<const PathFrame*> chain;
  for (; f != nullptr; f = f->parent) chain.push_back(f);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const PathFrame* p = *it;
    if (p->index >= 0) {
      out += fmt::format("[{}]", p->index);
    } else {
      if (!out.empty()) out += '.';
      out += p->name;
    }
  }
  return out;
}

Status ColumnError(const PathFrame* path, const Status& st) {
  return Status(st.code(), fmt::format("column '{}': {}", PathText(path), st.message()));
}

std::string Shown(std::string_view text, bool quoted) {
  constexpr size_t kMax = 80;
  std::string t(text.substr(0, kMax));
  if (text.size() > kMax) t += "...";
  return quoted ? "\"" + t + "\"" : t;
}

__int128 Pow10(int n) {
  __int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

std::pair<int64_t, int64_t> IntRange(TypeKind k) {
  switch (k) {
    case TypeKind::kByte: return {-128, 127};
    case TypeKind::kShort: return {-32768, 32767};
    case TypeKind::kInteger: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

Result<Value> NullValue(bool nullable, const PathFrame* path) {
  if (!nullable) {
    return ColumnError(path, Status::InvalidArgument("null is not allowed (the column is NOT NULL)"));
  }
  return Value::Null();
}

}  // namespace lithify::commands::ingest_internal
