// Helpers shared by the simulator's translation units (not part of its API).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "lithify/base/civil_time.h"

namespace lithify::sim::internal {

// Seconds one partition spans; 0 for "none".
inline double PartitionSeconds(const std::string& partition_by) {
  if (partition_by == "daily") return 86400;
  if (partition_by == "hourly") return 3600;
  if (partition_by == "15min") return 900;
  if (partition_by == "5min") return 300;
  return 0;
}

// Days since 1970-01-01 of a YYYY-MM-DD text already validated by ScenarioFromJson.
inline int64_t DaysOf(const std::string& date) {
  unsigned y = 1970, m = 1, d = 1;
  std::sscanf(date.c_str(), "%4u-%2u-%2u", &y, &m, &d);
  return DaysFromCivil(y, m, d);
}

inline std::string DateText(int64_t days) {
  const CivilDate c = CivilFromDays(days);
  return fmt::format("{:04}-{:02}-{:02}", c.year, c.month, c.day);
}

}  // namespace lithify::sim::internal
