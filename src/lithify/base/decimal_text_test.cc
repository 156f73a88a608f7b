#include "lithify/base/decimal_text.h"

#include <gtest/gtest.h>

#include <limits>

namespace lithify {
namespace {

constexpr __int128 kMax = std::numeric_limits<__int128>::max();
constexpr __int128 kMin = std::numeric_limits<__int128>::min();

TEST(DecimalTextTest, Int128Text) {
  EXPECT_EQ(Int128Text(0), "0");
  EXPECT_EQ(Int128Text(7), "7");
  EXPECT_EQ(Int128Text(-7), "-7");
  EXPECT_EQ(Int128Text(kMax), "170141183460469231731687303715884105727");
  EXPECT_EQ(Int128Text(kMin), "-170141183460469231731687303715884105728");
}

TEST(DecimalTextTest, PointAndPadding) {
  EXPECT_EQ(DecimalText(0, 0), "0");
  EXPECT_EQ(DecimalText(0, 3), "0.000");
  EXPECT_EQ(DecimalText(7, 0), "7");
  EXPECT_EQ(DecimalText(-5, 2), "-0.05");
  EXPECT_EQ(DecimalText(5, 1), "0.5");
  EXPECT_EQ(DecimalText(12300, 2), "123.00");
  EXPECT_EQ(DecimalText(-12345, 2), "-123.45");
  EXPECT_EQ(DecimalText(100, 2), "1.00");
  EXPECT_EQ(DecimalText(99, 2), "0.99");
  EXPECT_EQ(DecimalText(12, -2), "12");  // a negative scale appends nothing
  EXPECT_EQ(DecimalText(kMin, 38), "-1.70141183460469231731687303715884105728");
  EXPECT_EQ(DecimalText(kMax, 39), "0.170141183460469231731687303715884105727");
}

}  // namespace
}  // namespace lithify
