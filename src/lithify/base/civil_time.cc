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

namespace {

// Reads exactly `n` decimal digits at text[*pos] into *out and advances *pos; false
// (nothing advanced) when fewer than `n` digits are there.
bool ReadDigits(std::string_view text, size_t* pos, size_t n, int64_t* out) {
  if (*pos + n > text.size()) return false;
  int64_t v = 0;
  for (size_t k = 0; k < n; ++k) {
    const char c = text[*pos + k];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool At(std::string_view text, size_t pos, char c) { return pos < text.size() && text[pos] == c; }

// "HH:MM[:SS[.F{1,9}]]" at text[*pos] into the parts' time fields.
bool ReadTimeOfDay(std::string_view text, size_t* pos, IsoTimestampParts* parts) {
  int64_t hh = 0, mm = 0, ss = 0, nanos = 0;
  if (!ReadDigits(text, pos, 2, &hh) || !At(text, *pos, ':')) return false;
  ++*pos;
  if (!ReadDigits(text, pos, 2, &mm)) return false;
  if (At(text, *pos, ':')) {
    ++*pos;
    if (!ReadDigits(text, pos, 2, &ss)) return false;
    if (At(text, *pos, '.')) {
      ++*pos;
      const size_t start = *pos;
      while (*pos < text.size() && text[*pos] >= '0' && text[*pos] <= '9') ++*pos;
      const size_t n = *pos - start;
      if (n == 0 || n > 9) return false;
      for (size_t k = 0; k < 9; ++k) nanos = nanos * 10 + (k < n ? text[start + k] - '0' : 0);
    }
  }
  if (hh > 23 || mm > 59 || ss > 59) return false;
  parts->seconds_of_day = (hh * 60 + mm) * 60 + ss;
  parts->nanos = nanos;
  return true;
}

// "(+|-)HH[[:]MM]" at text[*pos] (the sign is there) into the parts' zone fields.
bool ReadOffset(std::string_view text, size_t* pos, IsoTimestampParts* parts) {
  const int64_t sign = text[*pos] == '-' ? -1 : 1;
  ++*pos;
  int64_t oh = 0, om = 0;
  if (!ReadDigits(text, pos, 2, &oh)) return false;
  if (At(text, *pos, ':')) ++*pos;
  // Anything after the hours must be the minutes.
  if (*pos < text.size() && !ReadDigits(text, pos, 2, &om)) return false;
  if (oh > 18 || om > 59) return false;
  parts->offset_minutes = sign * (oh * 60 + om);
  return true;
}

}  // namespace

IsoTextError ReadIsoDate(std::string_view text, size_t* pos, int64_t* days) {
  bool negative = false;
  if (At(text, *pos, '-') || At(text, *pos, '+')) negative = text[(*pos)++] == '-';
  const size_t start = *pos;
  while (*pos < text.size() && text[*pos] >= '0' && text[*pos] <= '9') ++*pos;
  const size_t year_digits = *pos - start;
  if (year_digits < 4 || year_digits > 6) return IsoTextError::kMalformedDate;
  int64_t year = 0, month = 0, day = 0;
  size_t year_pos = start;
  ReadDigits(text, &year_pos, year_digits, &year);
  if (negative) year = -year;
  if (!At(text, *pos, '-')) return IsoTextError::kMalformedDate;
  ++*pos;
  if (!ReadDigits(text, pos, 2, &month) || !At(text, *pos, '-')) return IsoTextError::kMalformedDate;
  ++*pos;
  if (!ReadDigits(text, pos, 2, &day)) return IsoTextError::kMalformedDate;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, static_cast<unsigned>(month))) {
    return IsoTextError::kNoSuchDay;
  }
  *days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return IsoTextError::kNone;
}

IsoTextError ReadIsoTimestamp(std::string_view text, bool lowercase_t, IsoTimestampParts* parts,
                              size_t* end) {
  *parts = IsoTimestampParts{};
  size_t pos = 0;
  const IsoTextError date = ReadIsoDate(text, &pos, &parts->days);
  if (date != IsoTextError::kNone) return date;
  if (At(text, pos, 'T') || At(text, pos, ' ') || (lowercase_t && At(text, pos, 't'))) {
    ++pos;
    if (!ReadTimeOfDay(text, &pos, parts)) return IsoTextError::kMalformedTime;
  }
  if (At(text, pos, 'Z') || At(text, pos, 'z')) {
    ++pos;
    parts->has_zone = true;
  } else if (At(text, pos, '+') || At(text, pos, '-')) {
    if (!ReadOffset(text, &pos, parts)) return IsoTextError::kMalformedTime;
    parts->has_zone = true;
  }
  *end = pos;
  return IsoTextError::kNone;
}

}  // namespace lithify
