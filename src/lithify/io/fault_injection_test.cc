#include "lithify/io/fault_injection.h"

#include <gtest/gtest.h>

namespace lithify::io {
namespace {

// Builds a Fault field by field (designated initializers that skip fields trip
// -Wmissing-field-initializers).
Fault MakeFault(FsOp op) {
  Fault f;
  f.op = op;
  return f;
}

class FaultInjectionTest : public ::testing::Test {
 protected:
  std::unique_ptr<FileSystem> base_ = NewMemoryFileSystem();
  FaultInjectingFileSystem fs_{base_.get()};
};

TEST_F(FaultInjectionTest, PassesThroughWhenNothingIsArmed) {
  ASSERT_TRUE(fs_.WriteFile("t/a", AsBytes("abc")).ok());
  auto r = fs_.ReadFile("t/a");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(AsStringView(r->view()), "abc");
  EXPECT_EQ(fs_.calls(FsOp::kCreate), 1);
  EXPECT_EQ(fs_.calls(FsOp::kReadAt), 1);
  EXPECT_EQ(fs_.fired(), 0);
}

TEST_F(FaultInjectionTest, ReadFaultFiresAfterSkipThenIsSpent) {
  ASSERT_TRUE(base_->WriteFile("t/data.parquet", AsBytes("0123456789")).ok());
  Fault f = MakeFault(FsOp::kReadAt);
  f.path_contains = "data";
  f.skip = 1;
  fs_.Inject(f);
  auto file = fs_.OpenForRead("t/data.parquet");
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE((*file)->Read(0, 2).ok());          // skipped
  auto failed = (*file)->Read(2, 2);              // fires
  ASSERT_TRUE(failed.status().IsIOError());
  EXPECT_TRUE(failed.status().retryable());
  EXPECT_NE(failed.status().message().find("t/data.parquet"), std::string::npos);
  EXPECT_TRUE((*file)->Read(2, 2).ok());          // spent
  EXPECT_EQ(fs_.fired(), 1);
}

TEST_F(FaultInjectionTest, FaultsMatchByPathSubstring) {
  ASSERT_TRUE(base_->WriteFile("x/keep", AsBytes("1")).ok());
  ASSERT_TRUE(base_->WriteFile("y/keep", AsBytes("1")).ok());
  Fault f = MakeFault(FsOp::kHead);
  f.path_contains = "y/";
  f.times = -1;
  fs_.Inject(f);
  EXPECT_TRUE(fs_.Head("x/keep").ok());
  EXPECT_FALSE(fs_.Head("y/keep").ok());
  EXPECT_FALSE(fs_.Head("y/keep").ok());  // forever
  fs_.Clear();
  EXPECT_TRUE(fs_.Head("y/keep").ok());
}

TEST_F(FaultInjectionTest, FailedCloseLeavesNothing) {
  fs_.Inject(MakeFault(FsOp::kClose));
  EXPECT_FALSE(fs_.WriteFile("w/file", AsBytes("data")).ok());
  EXPECT_TRUE(base_->Head("w/file").status().IsNotFound());
}

TEST_F(FaultInjectionTest, LostPutIfAbsentResponseStillWrites) {
  Fault f = MakeFault(FsOp::kPutIfAbsent);
  f.error = Status::IOError("connection reset");
  f.after_success = true;
  fs_.Inject(f);
  Status st = fs_.PutIfAbsent("_delta_log/00000.json", AsBytes("commit"));
  EXPECT_TRUE(st.IsIOError());
  // The object exists although the caller was told the write failed.
  auto r = base_->ReadFile("_delta_log/00000.json");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(AsStringView(r->view()), "commit");
  // A retry now sees AlreadyExists: exactly the ambiguity committers must resolve.
  EXPECT_TRUE(fs_.PutIfAbsent("_delta_log/00000.json", AsBytes("commit")).IsAlreadyExists());
}

TEST_F(FaultInjectionTest, FailedPutIfAbsentWritesNothing) {
  fs_.Inject(MakeFault(FsOp::kPutIfAbsent));
  EXPECT_FALSE(fs_.PutIfAbsent("p", AsBytes("x")).ok());
  EXPECT_TRUE(base_->Head("p").status().IsNotFound());
}

TEST_F(FaultInjectionTest, OkErrorIsReplacedByARealFault) {
  Fault f = MakeFault(FsOp::kOpenForRead);
  f.error = Status::OK();
  fs_.Inject(f);
  auto r = fs_.OpenForRead("anything");
  EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
}

TEST_F(FaultInjectionTest, CrashStopsEveryLaterCall) {
  fs_.CrashAfter(2);  // Create and Append pass; Close is the crash point
  auto out = fs_.Create("t/a");
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE((*out)->Append(AsBytes("abc")).ok());
  Status st = (*out)->Close();
  EXPECT_TRUE(st.IsIOError());
  EXPECT_NE(st.message().find("simulated crash"), std::string::npos);
  EXPECT_TRUE(fs_.PutIfAbsent("t/b", AsBytes("x")).IsIOError());
  EXPECT_TRUE(base_->Head("t/a").status().IsNotFound());  // the unfinished file never lands
  EXPECT_TRUE(base_->Head("t/b").status().IsNotFound());
  EXPECT_EQ(fs_.total_calls(), 4);
  fs_.CrashAfter(-1);
  EXPECT_TRUE(fs_.PutIfAbsent("t/b", AsBytes("x")).ok());
}

TEST_F(FaultInjectionTest, CrashAfterAWriteThatLanded) {
  fs_.CrashAfter(0, /*lands=*/true);
  EXPECT_TRUE(fs_.PutIfAbsent("t/c", AsBytes("x")).IsIOError());  // reply lost
  EXPECT_TRUE(base_->Head("t/c").ok());                           // but the object exists
  EXPECT_TRUE(fs_.PutIfAbsent("t/d", AsBytes("x")).IsIOError());  // later calls never land
  EXPECT_TRUE(base_->Head("t/d").status().IsNotFound());
}

}  // namespace
}  // namespace lithify::io
