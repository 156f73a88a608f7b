#include "lithify/base/uuid.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace lithify {
namespace {

TEST(Uuid, CanonicalVersion4Text) {
  std::string u = NewUuid();
  ASSERT_EQ(u.size(), 36u);
  EXPECT_EQ(u[8], '-');
  EXPECT_EQ(u[14], '4');  // version
  EXPECT_NE(std::string("89ab").find(u[19]), std::string::npos);  // RFC 4122 variant
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(seen.insert(NewUuid()).second);
}

// A forked child must not replay its parent's sequence (same data-file names, txnIds).
TEST(Uuid, ForkedChildDiffersFromParent) {
  (void)NewUuid();  // the parent's generator is seeded before the fork
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::string u = NewUuid();
    ssize_t n = write(fds[1], u.data(), u.size());
    _exit(n == static_cast<ssize_t>(u.size()) ? 0 : 1);
  }
  std::string parent = NewUuid();
  char buf[36];
  ASSERT_EQ(read(fds[0], buf, sizeof buf), 36);
  int status = 0;
  waitpid(pid, &status, 0);
  close(fds[0]);
  close(fds[1]);
  EXPECT_NE(std::string(buf, 36), parent);
}

}  // namespace
}  // namespace lithify
