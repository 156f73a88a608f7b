#include "lithify/base/buffer.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "lithify/base/large_alloc.h"

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

// ReserveLarge keeps the contents; from kLargeBlock on the memory is huge-page aligned
// and whole huge pages, and the buffer still grows, shrinks and frees as any other.
TEST(BufferTest, ReserveLargeKeepsContentsAndAlignsLargeBlocks) {
  Buffer small;
  small.Append(std::string_view("abc"));
  small.ReserveLarge(1000);
  EXPECT_GE(small.capacity(), 1000u);
  EXPECT_EQ(AsStringView(small.view()), "abc");

  Buffer b;
  for (int i = 0; i < 5000; ++i) b.PushBack(static_cast<uint8_t>(i));
  b.ReserveLarge(kLargeBlock + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % kHugePage, 0u);
  EXPECT_EQ(b.capacity(), kLargeBlock + kHugePage);
  ASSERT_EQ(b.size(), 5000u);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(b[static_cast<size_t>(i)], static_cast<uint8_t>(i)) << i;
  const uint8_t* before = b.data();
  b.ReserveLarge(100);  // never shrinks
  EXPECT_EQ(b.data(), before);
  b.Resize(b.capacity() + 1);  // regrows past it (realloc of the aligned block)
  EXPECT_EQ(b[4999], static_cast<uint8_t>(4999));
  b.Resize(10);
  b.ShrinkToFit();
  EXPECT_EQ(b.capacity(), 10u);
  EXPECT_EQ(b[9], 9);
}

}  // namespace
}  // namespace lithify
