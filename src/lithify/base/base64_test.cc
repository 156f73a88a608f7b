#include "lithify/base/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace lithify {
namespace {

TEST(Base64Test, EncodesWithPadding) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\x00\xFF\xFE", 3)), "AP/+");  // '+' and '/' of the alphabet
  std::string out = "x";
  AppendBase64("ab", &out);
  EXPECT_EQ(out, "xYWI=");
}

TEST(Base64Test, DecodesPaddedAndUnpadded) {
  EXPECT_EQ(Base64Decode(""), std::string());
  EXPECT_EQ(Base64Decode("Zg=="), "f");
  EXPECT_EQ(Base64Decode("Zg"), "f");
  EXPECT_EQ(Base64Decode("Zm8="), "fo");
  EXPECT_EQ(Base64Decode("Zm8"), "fo");
  EXPECT_EQ(Base64Decode("Zm9vYmFy"), "foobar");
  EXPECT_EQ(Base64Decode("AP/+"), std::string("\x00\xFF\xFE", 3));
}

TEST(Base64Test, RoundTripsEveryLengthAndByte) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) {
    const auto decoded = Base64Decode(Base64Encode(bytes));
    ASSERT_TRUE(decoded.has_value()) << i;
    ASSERT_EQ(*decoded, bytes) << i;
    bytes.push_back(static_cast<char>(i * 37));
  }
}

TEST(Base64Test, RefusesWhatIsNotCanonicalBase64) {
  EXPECT_FALSE(Base64Decode("Z"));          // 4k+1 characters cannot end a byte
  EXPECT_FALSE(Base64Decode("Zm9vY"));
  EXPECT_FALSE(Base64Decode("Zg="));        // padded, but not to a multiple of 4
  EXPECT_FALSE(Base64Decode("Zg==="));      // three '='
  EXPECT_FALSE(Base64Decode("Z==="));
  EXPECT_FALSE(Base64Decode("===="));
  EXPECT_FALSE(Base64Decode("Zg==Zg=="));   // '=' inside
  EXPECT_FALSE(Base64Decode("Zm 9v"));      // whitespace
  EXPECT_FALSE(Base64Decode("Zm9v\n"));
  EXPECT_FALSE(Base64Decode("Zm-_"));       // the URL-safe alphabet is another one
  EXPECT_FALSE(Base64Decode("not base64!"));
  EXPECT_FALSE(Base64Decode("Zh=="));       // "f" with non-zero unused bits
  EXPECT_FALSE(Base64Decode("Zm9="));       // "fo" with non-zero unused bits
  EXPECT_FALSE(Base64Decode("Zh"));
}

}  // namespace
}  // namespace lithify
