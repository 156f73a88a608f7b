#include "lithify/table/commit_intent.h"

#include <string_view>

namespace lithify::table {

size_t CommitIntent::num_removed() const {
  size_t n = 0;
  for (const FileGroup& g : groups) n += g.removed.size();
  return n;
}

size_t CommitIntent::num_added() const {
  size_t n = 0;
  for (const FileGroup& g : groups) n += g.added.size();
  return n;
}

namespace {

// The exception class leading a conflict's message: the identifier ending in "Exception"
// right before the first "Exception: " (context may precede it: "root: ...").
std::string ExceptionName(std::string_view message) {
  constexpr std::string_view kSuffix = "Exception: ";
  const size_t end = message.find(kSuffix);
  if (end == std::string_view::npos) return "";
  size_t begin = end;
  while (begin > 0) {
    const char c = message[begin - 1];
    const bool ident = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ident) break;
    --begin;
  }
  return std::string(message.substr(begin, end - begin + kSuffix.size() - 2));
}

}  // namespace

CommitOutcome CommitOutcome::Conflicted(Status conflict) {
  CommitOutcome o;
  o.conflict = CommitConflict{ExceptionName(conflict.message()), std::move(conflict)};
  return o;
}

}  // namespace lithify::table
