// Which version of a table a reader asks for, in words both formats understand: the
// latest (Delta's newest version, Iceberg's current snapshot), a version (Delta's
// version number, Iceberg's snapshot id), the version active at a time, or a named ref
// (Iceberg branches and tags; Delta has none and refuses it). Plain value.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace lithify::table {

struct VersionSelector {
  enum class Kind { kLatest, kVersion, kTimestamp, kRef };
  Kind kind = Kind::kLatest;
  int64_t value = 0;  // the version / snapshot id, or the time in ms since the epoch
  std::string ref;    // kRef

  static VersionSelector Latest() { return {}; }
  static VersionSelector AtVersion(int64_t v) { return {Kind::kVersion, v, {}}; }
  static VersionSelector AtTimestamp(int64_t ms) { return {Kind::kTimestamp, ms, {}}; }
  static VersionSelector Ref(std::string name) { return {Kind::kRef, 0, std::move(name)}; }
};

}  // namespace lithify::table
