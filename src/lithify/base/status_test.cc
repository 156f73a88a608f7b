#include <gtest/gtest.h>

#include "lithify/base/macros.h"

namespace lithify {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("{} is odd", x);
  return x / 2;
}

Result<int> Quarter(int x) {
  LITHIFY_ASSIGN_OR_RETURN_CTX(int h, Half(x), "halving {}", x);
  LITHIFY_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusTest, OkAndErrors) {
  EXPECT_TRUE(Status::OK().ok());
  Status s = Status::Corruption("bad page {}", 3);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.ToString(), "Corruption: bad page 3");
  EXPECT_EQ(s.WithContext("f.parquet").message(), "f.parquet: bad page 3");
  EXPECT_TRUE(Status::OK().WithContext("x").ok());
}

TEST(ResultTest, PropagatesWithContext) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "3 is odd");
  auto r2 = Quarter(5);
  EXPECT_EQ(r2.status().message(), "halving 5: 5 is odd");
}

}  // namespace
}  // namespace lithify
