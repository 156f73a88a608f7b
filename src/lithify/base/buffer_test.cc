#include "lithify/base/buffer.h"

#include <gtest/gtest.h>

namespace lithify {
namespace {

TEST(BufferTest, AppendGrowAndMove) {
  Buffer b;
  for (int i = 0; i < 1000; ++i) b.PushBack(static_cast<uint8_t>(i));
  b.Append(std::string_view("xyz"));
  ASSERT_EQ(b.size(), 1003u);
  EXPECT_EQ(b[999], static_cast<uint8_t>(999));
  EXPECT_EQ(AsStringView(b.view().subspan(1000)), "xyz");
  Buffer c = std::move(b);
  EXPECT_EQ(c.size(), 1003u);
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  Buffer d = Buffer::CopyOf(c.view());
  EXPECT_EQ(0, std::memcmp(d.data(), c.data(), c.size()));
}

}  // namespace
}  // namespace lithify
