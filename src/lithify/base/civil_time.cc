#include "lithify/base/civil_time.h"

#include <fmt/format.h>

namespace lithify {

std::string IsoDateText(int64_t days) {
  const CivilDate c = CivilFromDays(days);
  return fmt::format("{:04}-{:02}-{:02}", c.year, c.month, c.day);
}

std::string IsoTimestampMicrosText(int64_t micros, bool utc) {
  const DayTime t = SplitDays(micros, kMicrosPerDay);
  const int64_t secs = t.time_of_day / 1000000;
  return fmt::format("{}T{:02}:{:02}:{:02}.{:06}{}", IsoDateText(t.days), secs / 3600,
                     secs / 60 % 60, secs % 60, t.time_of_day % 1000000, utc ? "Z" : "");
}

}  // namespace lithify
