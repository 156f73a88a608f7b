#include "lithify/base/civil_time.h"

#include <gtest/gtest.h>

namespace lithify {
namespace {

constexpr bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
constexpr unsigned DaysInMonth(int64_t y, unsigned m) {
  constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

static_assert(DaysFromCivil(1970, 1, 1) == 0);
static_assert(CivilFromDays(0) == CivilDate{1970, 1, 1});

TEST(CivilTimeTest, KnownDates) {
  struct Case {
    int64_t days;
    CivilDate date;
  };
  const Case kCases[] = {
      {0, {1970, 1, 1}},
      {-1, {1969, 12, 31}},
      {11016, {2000, 2, 29}},
      {11017, {2000, 3, 1}},
      {10957, {2000, 1, 1}},
      {-719162, {1, 1, 1}},
      {-719163, {0, 12, 31}},
      {-719528, {0, 1, 1}},
      {-719469, {0, 2, 29}},  // year 0 (1 BC) is a leap year
      {-719529, {-1, 12, 31}},
      {-719893, {-1, 1, 1}},
      {-1081484, {-992, 12, 31}},
      {2932896, {9999, 12, 31}},
      {2932897, {10000, 1, 1}},
      {19753, {2024, 1, 31}},
      {-141427, {1582, 10, 15}},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(DaysFromCivil(c.date.year, c.date.month, c.date.day), c.days) << c.days;
    const CivilDate got = CivilFromDays(c.days);
    EXPECT_EQ(got.year, c.date.year) << c.days;
    EXPECT_EQ(got.month, c.date.month) << c.days;
    EXPECT_EQ(got.day, c.date.day) << c.days;
  }
}

// Every day of +-2000 years around the epoch follows its predecessor on the calendar.
TEST(CivilTimeTest, ConsecutiveDays) {
  const int64_t first = DaysFromCivil(-30, 1, 1), last = DaysFromCivil(3970, 12, 31);
  CivilDate prev = CivilFromDays(first);
  EXPECT_EQ(prev, (CivilDate{-30, 1, 1}));
  for (int64_t d = first + 1; d <= last; ++d) {
    const CivilDate c = CivilFromDays(d);
    CivilDate want = prev;
    if (++want.day > DaysInMonth(want.year, want.month)) {
      want.day = 1;
      if (++want.month > 12) {
        want.month = 1;
        ++want.year;
      }
    }
    ASSERT_EQ(c, want) << d;
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), d);
    prev = c;
  }
}

// Round trips over +-1,000,000 years of days (with a stride, plus every day of each
// era boundary).
TEST(CivilTimeTest, RoundTripMillionYears) {
  const int64_t lo = DaysFromCivil(-1000000, 1, 1), hi = DaysFromCivil(1000000, 12, 31);
  EXPECT_EQ(hi - lo + 1, 5000 * 146097 + 366);  // 5000 eras and the leap year 1000000
  for (int64_t d = lo; d <= hi; d += 97) {
    const CivilDate c = CivilFromDays(d);
    ASSERT_GE(c.month, 1u) << d;
    ASSERT_LE(c.month, 12u) << d;
    ASSERT_GE(c.day, 1u) << d;
    ASSERT_LE(c.day, DaysInMonth(c.year, c.month)) << d;
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), d) << d;
  }
  for (int64_t era = -2500; era <= 2500; ++era) {
    const int64_t start = DaysFromCivil(era * 400, 3, 1);
    for (int64_t d = start - 2; d <= start + 2; ++d) {
      const CivilDate c = CivilFromDays(d);
      ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), d) << d;
    }
    EXPECT_EQ(CivilFromDays(start - 1), (CivilDate{era * 400, 2, 29}));
  }
  EXPECT_EQ(CivilFromDays(lo), (CivilDate{-1000000, 1, 1}));
  EXPECT_EQ(CivilFromDays(hi), (CivilDate{1000000, 12, 31}));
}

TEST(CivilTimeTest, SplitDays) {
  EXPECT_EQ(SplitDays(0, kMicrosPerDay).days, 0);
  EXPECT_EQ(SplitDays(-1, kMicrosPerDay).days, -1);
  EXPECT_EQ(SplitDays(-1, kMicrosPerDay).time_of_day, kMicrosPerDay - 1);
  EXPECT_EQ(SplitDays(-kMicrosPerDay, kMicrosPerDay).days, -1);
  EXPECT_EQ(SplitDays(-kMicrosPerDay, kMicrosPerDay).time_of_day, 0);
  EXPECT_EQ(SplitDays(kMillisPerDay + 5, kMillisPerDay).days, 1);
  EXPECT_EQ(SplitDays(kMillisPerDay + 5, kMillisPerDay).time_of_day, 5);
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorMod(-7, 2), 1);
  EXPECT_EQ(FloorDiv(7, 2), 3);
  EXPECT_EQ(FloorMod(7, 2), 1);
}

TEST(CivilTimeTest, IsoText) {
  EXPECT_EQ(IsoDateText(0), "1970-01-01");
  EXPECT_EQ(IsoDateText(-1), "1969-12-31");
  EXPECT_EQ(IsoDateText(11016), "2000-02-29");
  EXPECT_EQ(IsoDateText(-719162), "0001-01-01");
  EXPECT_EQ(IsoDateText(-719893), "-001-01-01");
  EXPECT_EQ(IsoTimestampMicrosText(0, true), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(IsoTimestampMicrosText(-1, false), "1969-12-31T23:59:59.999999");
  EXPECT_EQ(IsoTimestampMicrosText(951782400123456, true), "2000-02-29T00:00:00.123456Z");
}

}  // namespace
}  // namespace lithify
