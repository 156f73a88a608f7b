// Nesting limits of parsed input, shared by every recursive parser (issue 14).
//
// Recursive descent, and every recursive walk of what it builds (printing, binding,
// evaluation, comparison, JSON dump and copy), costs one stack frame or more per level:
// input nested deep enough overflows the stack and the process dies with SIGSEGV. So
// each parser refuses input nested deeper than its limit *before* it builds the tree,
// with an error saying "nested deeper than N levels" (InvalidArgument for usage input such
// as --where or a scenario, Corruption for table files). The limits are far above any
// legitimate input and far below what the stack can take (~1000 frames of even a large
// frame are well within the 8 MiB main and default thread stacks, ASan included):
//
//   kMaxPredicateNesting  --where predicates: each parenthesized group and each NOT is a
//                         level (the tree is at most 2 nodes deeper per level). Lower than
//                         the others because the descent spends about six frames per
//                         parenthesis: 2000 open parentheses overflowed the 8 MiB stack of
//                         the Debug ASan build (CI), 400 use well under half of it.
//   kMaxJsonNesting       JSON documents: each array and object is a level. Delta commit
//                         lines, checkpoint rows, _last_checkpoint, schema strings and
//                         statistics; Iceberg metadata and Avro schemas; scenario files;
//                         JSON Lines input.
//   kMaxTypeNesting       data types: each struct, array and map is a level (Delta schema
//                         JSON, DDL, Iceberg schemas).
//   kMaxParquetSchemaNesting  Parquet schema trees: a LIST or MAP is two groups per type
//                         level, so a table type at kMaxTypeNesting still fits.
//
// JsonNestedDeeper scans JSON text without parsing it, so a hostile document is refused
// before nlohmann (or any parser) builds and later recursively dumps or copies it.
// Header only; pure; thread-safe.
#pragma once

#include <string_view>

namespace lithify {

inline constexpr int kMaxPredicateNesting = 200;
inline constexpr int kMaxJsonNesting = 1000;
inline constexpr int kMaxTypeNesting = 100;
inline constexpr int kMaxParquetSchemaNesting = 256;

// A schema string nests three JSON levels per struct level ({"type":"struct","fields":
// [{"type": ...}]}), and a JSON Lines map is an array of key/value objects: documents that
// hold types at the type limit must stay within the JSON limit.
static_assert(kMaxJsonNesting >= 3 * kMaxTypeNesting + 8);
static_assert(kMaxParquetSchemaNesting >= 2 * kMaxTypeNesting + 2);

// True when `text`, read as JSON, opens more than `limit` arrays/objects at once.
// Brackets inside strings (with backslash escapes) do not count; malformed text is left
// for the real parser to refuse.
inline bool JsonNestedDeeper(std::string_view text, int limit = kMaxJsonNesting) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace lithify
