#include "lithify/base/civil_time.h"

#include <gtest/gtest.h>

#include <string_view>

namespace lithify {
namespace {

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

TEST(CivilTimeTest, LeapYearsAndMonthLengths) {
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(2023));
  EXPECT_TRUE(IsLeapYear(0));    // 1 BC
  EXPECT_TRUE(IsLeapYear(-4));   // 5 BC
  EXPECT_FALSE(IsLeapYear(-1));
  EXPECT_FALSE(IsLeapYear(-100));
  EXPECT_TRUE(IsLeapYear(-400));
  EXPECT_EQ(DaysInMonth(2024, 2), 29u);
  EXPECT_EQ(DaysInMonth(2023, 2), 28u);
  EXPECT_EQ(DaysInMonth(1900, 2), 28u);
  EXPECT_EQ(DaysInMonth(2023, 1), 31u);
  EXPECT_EQ(DaysInMonth(2023, 4), 30u);
  EXPECT_EQ(DaysInMonth(2023, 12), 31u);
}

// The date alone: ReadIsoDate with nothing after it.
IsoTextError DateOf(std::string_view text, int64_t* days) {
  size_t pos = 0;
  const IsoTextError e = ReadIsoDate(text, &pos, days);
  if (e == IsoTextError::kNone && pos != text.size()) return IsoTextError::kMalformedDate;
  return e;
}

TEST(CivilTimeTest, ReadIsoDate) {
  int64_t d = -1;
  EXPECT_EQ(DateOf("1970-01-01", &d), IsoTextError::kNone);
  EXPECT_EQ(d, 0);
  EXPECT_EQ(DateOf("2000-02-29", &d), IsoTextError::kNone);  // leap day of a leap century
  EXPECT_EQ(d, 11016);
  EXPECT_EQ(DateOf("+2000-02-29", &d), IsoTextError::kNone);
  EXPECT_EQ(d, 11016);
  EXPECT_EQ(DateOf("0000-02-29", &d), IsoTextError::kNone);  // year 0 is a leap year
  EXPECT_EQ(d, -719469);
  EXPECT_EQ(DateOf("-0001-12-31", &d), IsoTextError::kNone);
  EXPECT_EQ(d, -719529);
  EXPECT_EQ(DateOf("10000-01-01", &d), IsoTextError::kNone);  // five and six year digits
  EXPECT_EQ(d, 2932897);
  EXPECT_EQ(DateOf("-999999-01-01", &d), IsoTextError::kNone);
  EXPECT_EQ(d, DaysFromCivil(-999999, 1, 1));

  EXPECT_EQ(DateOf("2023-02-29", &d), IsoTextError::kNoSuchDay);
  EXPECT_EQ(DateOf("1900-02-29", &d), IsoTextError::kNoSuchDay);
  EXPECT_EQ(DateOf("2024-04-31", &d), IsoTextError::kNoSuchDay);
  EXPECT_EQ(DateOf("2024-13-01", &d), IsoTextError::kNoSuchDay);
  EXPECT_EQ(DateOf("2024-00-10", &d), IsoTextError::kNoSuchDay);
  EXPECT_EQ(DateOf("2024-01-00", &d), IsoTextError::kNoSuchDay);

  for (std::string_view bad : {"", "999-01-01", "1234567-01-01", "2024-1-01", "2024-01-1",
                               "2024/01/01", "20240101", "2024-01-01x", "--2024-01-01",
                               " 2024-01-01", "2024-0a-01", "+-2024-01-01"}) {
    EXPECT_EQ(DateOf(bad, &d), IsoTextError::kMalformedDate) << bad;
  }
  // A prefix: the reader stops after the day.
  size_t pos = 0;
  EXPECT_EQ(ReadIsoDate("2024-01-31T10", &pos, &d), IsoTextError::kNone);
  EXPECT_EQ(pos, 10u);
  EXPECT_EQ(d, 19753);
}

TEST(CivilTimeTest, ReadIsoTimestamp) {
  IsoTimestampParts p;
  size_t end = 0;
  auto read = [&](std::string_view text, bool lowercase_t = false) {
    end = 0;
    return ReadIsoTimestamp(text, lowercase_t, &p, &end);
  };
  ASSERT_EQ(read("2024-01-31"), IsoTextError::kNone);
  EXPECT_EQ(p.days, 19753);
  EXPECT_EQ(p.seconds_of_day, 0);
  EXPECT_FALSE(p.has_zone);
  EXPECT_EQ(end, 10u);

  ASSERT_EQ(read("2024-01-31T10:20"), IsoTextError::kNone);
  EXPECT_EQ(p.seconds_of_day, 10 * 3600 + 20 * 60);
  ASSERT_EQ(read("2024-01-31 23:59:59.123456789Z"), IsoTextError::kNone);
  EXPECT_EQ(p.seconds_of_day, 86399);
  EXPECT_EQ(p.nanos, 123456789);
  EXPECT_TRUE(p.has_zone);
  EXPECT_EQ(p.offset_minutes, 0);
  EXPECT_EQ(end, 30u);
  ASSERT_EQ(read("2024-01-31T00:00:00.5"), IsoTextError::kNone);
  EXPECT_EQ(p.nanos, 500000000);

  ASSERT_EQ(read("2024-01-31T10:00+05:30"), IsoTextError::kNone);
  EXPECT_EQ(p.offset_minutes, 330);
  ASSERT_EQ(read("2024-01-31T10:00-0530"), IsoTextError::kNone);
  EXPECT_EQ(p.offset_minutes, -330);
  ASSERT_EQ(read("2024-01-31T10:00+05"), IsoTextError::kNone);
  EXPECT_EQ(p.offset_minutes, 300);
  ASSERT_EQ(read("2024-01-31T10:00+05:"), IsoTextError::kNone);  // a lone ':' is taken
  EXPECT_EQ(p.offset_minutes, 300);
  ASSERT_EQ(read("2024-01-31z"), IsoTextError::kNone);  // a date with a zone
  EXPECT_TRUE(p.has_zone);
  ASSERT_EQ(read("2024-01-31T10:00+18:00"), IsoTextError::kNone);
  EXPECT_EQ(p.offset_minutes, 18 * 60);

  // 't' only when asked for.
  ASSERT_EQ(read("2024-01-31t10:00", true), IsoTextError::kNone);
  EXPECT_EQ(p.seconds_of_day, 36000);
  ASSERT_EQ(read("2024-01-31t10:00"), IsoTextError::kNone);
  EXPECT_EQ(end, 10u);  // stops before the 't': the caller refuses the rest

  // Stops before what cannot continue; the caller sees `end`.
  ASSERT_EQ(read("2024-01-31T10:00Zjunk"), IsoTextError::kNone);
  EXPECT_TRUE(p.has_zone);
  EXPECT_EQ(end, 17u);
  ASSERT_EQ(read("2024-01-31T10:00 x"), IsoTextError::kNone);
  EXPECT_EQ(end, 16u);

  EXPECT_EQ(read("2024-02-30T00:00"), IsoTextError::kNoSuchDay);
  EXPECT_EQ(read("24-01-31T00:00"), IsoTextError::kMalformedDate);
  for (std::string_view bad :
       {"2024-01-31T", "2024-01-31T1:00", "2024-01-31T10", "2024-01-31T10:0", "2024-01-31T24:00",
        "2024-01-31T10:60", "2024-01-31T10:00:60", "2024-01-31T10:00:5", "2024-01-31T10:00:00.",
        "2024-01-31T10:00:00.1234567890", "2024-01-31T10:00+5", "2024-01-31T10:00+05x",
        "2024-01-31T10:00+05:3", "2024-01-31T10:00+19:00", "2024-01-31T10:00+05:60",
        "2024-01-31T10:00+"}) {
    EXPECT_EQ(read(bad), IsoTextError::kMalformedTime) << bad;
  }
}

}  // namespace
}  // namespace lithify
