// Proleptic Gregorian calendar arithmetic on days since 1970-01-01 (UTC), after
// Howard Hinnant's "chrono-compatible low-level date algorithms": years are counted in
// 400-year eras that start on March 1st, so the leap day is the last day of a shifted
// year. Exact over the whole range where `days + 719468` does not overflow.
//
// Also the ISO 8601 text forms: the renderers (IsoDateText, IsoTimestampMicrosText) and
// the one reader of date and timestamp text (ReadIsoDate, ReadIsoTimestamp) that
// ingest's JSONL/CSV values and the --where literals share. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace lithify {

inline constexpr int64_t kSecondsPerDay = 86400;
inline constexpr int64_t kMillisPerDay = kSecondsPerDay * 1000;
inline constexpr int64_t kMicrosPerDay = kSecondsPerDay * 1000000;
inline constexpr int64_t kNanosPerDay = kSecondsPerDay * 1000000000;
// Julian day number of 1970-01-01 (INT96 timestamps count days from the Julian epoch).
inline constexpr int64_t kJulianDayOfEpoch = 2440588;

// Division rounding toward negative infinity, and its remainder in [0, b). b > 0.
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
constexpr int64_t FloorMod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return r < 0 ? r + b : r;
}

struct CivilDate {
  int64_t year;    // astronomical numbering: 0 is 1 BC, -1 is 2 BC
  unsigned month;  // 1..12
  unsigned day;    // 1..31
  friend constexpr bool operator==(const CivilDate&, const CivilDate&) = default;
};

// Days since 1970-01-01 of year-month-day. `month` in 1..12 and `day` in 1..31 (a day
// past the end of its month counts on into the next month).
constexpr int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = FloorDiv(year, 400);
  const int64_t yoe = year - era * 400;                        // [0, 399]
  const int64_t mp = (static_cast<int64_t>(month) + 9) % 12;  // March = 0
  const int64_t doy = (153 * mp + 2) / 5 + day - 1;            // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;   // [0, 146096]
  return era * 146097 + doe - 719468;
}

// Whether `year` (astronomical numbering: year 0 is 1 BC, a leap year) has a February 29.
constexpr bool IsLeapYear(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

// Days in `month` (1..12) of `year`: 28..31.
constexpr unsigned DaysInMonth(int64_t year, unsigned month) {
  constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// Inverse of DaysFromCivil.
constexpr CivilDate CivilFromDays(int64_t days) {
  const int64_t z = days + 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;                                      // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                    // [0, 11]
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), static_cast<unsigned>(month),
          static_cast<unsigned>(day)};
}

// Conversions of Parquet's timestamp encodings to microseconds since the epoch, shared
// by every reader and rewriter so that a value reads the same on every path.
// Milliseconds saturate at int64's ends (a value out of range must not wrap into a
// plausible one); nanoseconds round toward negative infinity.
constexpr int64_t MillisToMicros(int64_t v) {
  constexpr int64_t kMax = INT64_MAX / 1000;
  if (v > kMax) return INT64_MAX;
  if (v < INT64_MIN / 1000) return INT64_MIN;
  return v * 1000;
}
constexpr int64_t NanosToMicros(int64_t v) { return FloorDiv(v, 1000); }
// Midnight (UTC) of a day since the epoch; wraps like Int96Micros beyond int64.
constexpr int64_t DaysToMicros(int64_t days) {
  return static_cast<int64_t>(static_cast<uint64_t>(days) * static_cast<uint64_t>(kMicrosPerDay));
}
// An INT96 timestamp (Impala/Hive/Spark): nanoseconds within the day and the Julian day
// number. Days far outside int64 microseconds (beyond +-292,000 years) wrap in two's
// complement rather than overflow (undefined behaviour), as every path computes them.
constexpr int64_t Int96Micros(int64_t nanos_of_day, uint32_t julian_day) {
  const auto days = static_cast<uint64_t>(static_cast<int64_t>(julian_day) - kJulianDayOfEpoch);
  return static_cast<int64_t>(days * static_cast<uint64_t>(kMicrosPerDay) +
                              static_cast<uint64_t>(NanosToMicros(nanos_of_day)));
}

// A count of `per_day` ticks since the epoch split into whole days (rounded toward
// negative infinity) and the ticks into that day, in [0, per_day).
struct DayTime {
  int64_t days;
  int64_t time_of_day;
};
constexpr DayTime SplitDays(int64_t ticks, int64_t per_day) {
  return {FloorDiv(ticks, per_day), FloorMod(ticks, per_day)};
}

// "YYYY-MM-DD", the year as fmt's "{:04}" writes it (so year -1 is "-001", 12345 is
// "12345").
std::string IsoDateText(int64_t days);
// "YYYY-MM-DDTHH:MM:SS.ffffff" (always six fraction digits) of microseconds since the
// epoch, with a trailing "Z" when `utc`.
std::string IsoTimestampMicrosText(int64_t micros, bool utc);

// Why a date or timestamp text was not read.
enum class IsoTextError : uint8_t {
  kNone,
  kMalformedDate,  // the date part does not have the form [+|-]YYYY-MM-DD
  kNoSuchDay,      // it has the form, but the month or the day does not exist
  kMalformedTime,  // the time or zone part is malformed or out of range
};

// Reads a date "[+|-]Y{4,6}-MM-DD" at text[*pos]: an optional sign, 4 to 6 year digits
// (so years -999999..999999), then exactly two month and two day digits, a day that
// exists in that month of that year (February 29 only in leap years). On success sets
// *days (since 1970-01-01), advances *pos past the date and returns kNone; what follows
// is the caller's (a date alone must check *pos == text.size()). Else returns
// kMalformedDate or kNoSuchDay, with *pos unspecified.
IsoTextError ReadIsoDate(std::string_view text, size_t* pos, int64_t* days);

// The parts of a timestamp text as written: nothing is converted or range-checked
// beyond the fields themselves, so each caller applies its own type's rules (zone
// allowed or not, sub-microsecond digits kept, truncated or refused, range).
struct IsoTimestampParts {
  int64_t days = 0;            // the date, days since 1970-01-01
  int64_t seconds_of_day = 0;  // hh * 3600 + mm * 60 + ss of the wall-clock time; 0 if none
  int64_t nanos = 0;           // the fraction of the second, 0..999'999'999
  bool has_zone = false;       // a Z or an offset was written
  int64_t offset_minutes = 0;  // the offset east of UTC (+05:30 -> 330); 0 for Z
};

// Reads a timestamp at the start of `text`:
//
//   DATE [ SEP HH:MM [ :SS [ .F{1,9} ] ] ] [ Z | z | (+|-)HH [ [:] MM ] ]
//
// DATE as ReadIsoDate; SEP is 'T' or ' ', and also 't' when `lowercase_t`; hours
// 00..23, minutes and seconds 00..59 (no leap second); 1 to 9 fraction digits (more is
// malformed); an offset of at most 18 hours, its minutes 00..59 ("+05", "+0530",
// "+05:30"; a lone trailing ':' after the hours is taken too). Reading stops before the
// first character that cannot start the next part, and `*end` is set there: text after
// a complete timestamp is the caller's to refuse (most do), so that a caller can check
// what it read first (e.g. a zone where none is allowed) and name that instead.
// Returns kNone with *parts filled in, or the part that is wrong.
IsoTextError ReadIsoTimestamp(std::string_view text, bool lowercase_t, IsoTimestampParts* parts,
                              size_t* end);

}  // namespace lithify
