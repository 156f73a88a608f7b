// The Azure backend's own promises beyond the FileSystem contract, against Azurite
// (scripts/servers.sh): block uploads, racing conditional puts, batched deletes, errors
// naming the URI and the service's code, bounded retries, and every URI spelling.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lithify/io/azure/azure_filesystem.h"
#include "lithify/io/registry.h"

namespace lithify::io::azure {
namespace {

class AzureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* c = getenv("LITHIFY_TEST_AZURE_CONTAINER");
    if (c == nullptr || *c == '\0') {
      GTEST_FAIL() << "no Azure test server: LITHIFY_TEST_AZURE_CONTAINER is not set (scripts/servers.sh start, "
                      "then source build/servers/env; or leave these tests out with ctest -LE s3)";
    }
    container_ = c;
    auto o = AzureOptionsFromEnvironment();
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    options_ = *o;
    options_.block_size = 1 << 20;  // small blocks, so that block uploads run on small data
    fs_ = NewAzureFileSystem(options_);
    prefix_ = "aztest-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}());
    root_ = "az://" + container_ + "/" + prefix_;
  }
  void TearDown() override {
    if (!fs_) return;
    auto all = fs_->ListRecursive(root_);
    if (!all.ok()) return;
    std::vector<std::string> paths;
    for (const auto& f : *all) paths.push_back(f.path);
    (void)fs_->DeleteMany(paths);
  }
  std::string P(const std::string& rel) { return root_ + "/" + rel; }

  std::string container_, prefix_, root_;
  AzureOptions options_;
  std::shared_ptr<FileSystem> fs_;
};

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 2654435761u) >> 13);
  return s;
}

TEST_F(AzureTest, BlockUploadIsInvisibleUntilCloseAndReadsBackByRanges) {
  const std::string data = Pattern((3 << 20) + 12345);  // three full blocks and a tail
  auto out = fs_->Create(P("big.bin"));
  ASSERT_TRUE(out.ok());
  for (size_t at = 0; at < data.size(); at += 300000) {
    ASSERT_TRUE((*out)->Append(AsBytes(std::string_view(data).substr(at, 300000))).ok());
  }
  EXPECT_TRUE(fs_->Head(P("big.bin")).status().IsNotFound()) << "blocks must stay invisible before Close";
  ASSERT_TRUE((*out)->Close().ok());
  auto head = fs_->Head(P("big.bin"));
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->size, data.size());
  auto file = fs_->OpenForRead(P("big.bin"));
  ASSERT_TRUE(file.ok());
  auto parts = (*file)->ReadRanges({{0, 10}, {(1 << 20) - 5, 10}, {data.size() - 7, 7}, {2 << 20, 100000}});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(AsStringView((*parts)[0].view()), data.substr(0, 10));
  EXPECT_EQ(AsStringView((*parts)[1].view()), data.substr((1 << 20) - 5, 10));
  EXPECT_EQ(AsStringView((*parts)[2].view()), data.substr(data.size() - 7));
  EXPECT_EQ(AsStringView((*parts)[3].view()), data.substr(2 << 20, 100000));
  auto all = fs_->ReadFile(P("big.bin"));
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(AsStringView(all->view()) == data);
}

TEST_F(AzureTest, AbortedAndDroppedBlockUploadsLeaveNothing) {
  const std::string data = Pattern((2 << 20) + 1);
  {
    auto out = fs_->Create(P("aborted.bin"));
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE((*out)->Append(AsBytes(data)).ok());
    (*out)->Abort();
  }
  {
    auto out = fs_->Create(P("dropped.bin"));
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE((*out)->Append(AsBytes(data)).ok());
  }
  EXPECT_TRUE(fs_->Head(P("aborted.bin")).status().IsNotFound());
  EXPECT_TRUE(fs_->Head(P("dropped.bin")).status().IsNotFound());
  auto listed = fs_->ListRecursive(root_);
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

TEST_F(AzureTest, RacingPutIfAbsentHasExactlyOneWinnerPerRound) {
  for (int round = 0; round < 20; ++round) {
    const std::string path = P("race/" + std::to_string(round) + ".json");
    std::atomic<int> winners{0}, losers{0};
    std::vector<std::thread> threads;
    for (int w = 0; w < 6; ++w) {
      threads.emplace_back([&, w] {
        Status st = fs_->PutIfAbsent(path, AsBytes("writer " + std::to_string(w)));
        if (st.ok()) {
          ++winners;
        } else if (st.IsAlreadyExists()) {
          ++losers;
        } else {
          ADD_FAILURE() << st.ToString();
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(winners.load(), 1) << "round " << round;
    EXPECT_EQ(losers.load(), 5) << "round " << round;
    auto content = fs_->ReadFile(path);
    ASSERT_TRUE(content.ok());
    EXPECT_EQ(AsStringView(content->view()).substr(0, 7), "writer ");
  }
}

TEST_F(AzureTest, ListingsPageAndDeleteManyRunsInParallel) {
  std::vector<std::string> paths;
  for (int i = 0; i < 60; ++i) paths.push_back(P("many/" + std::to_string(1000 + i)));
  for (const auto& p : paths) ASSERT_TRUE(fs_->WriteFile(p, AsBytes("x")).ok());
  ASSERT_TRUE(fs_->WriteFile(P("many/sub/inner"), AsBytes("y")).ok());
  // Pages of 7 entries: the listings follow the service's markers to the end.
  AzureOptions paged = options_;
  paged.list_page_size = 7;
  auto small_pages = NewAzureFileSystem(paged);
  auto listed = small_pages->ListRecursive(P("many"));
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), paths.size() + 1);
  for (size_t i = 0; i < paths.size(); ++i) EXPECT_EQ((*listed)[i].path, paths[i]);
  EXPECT_EQ(listed->back().path, P("many/sub/inner"));
  auto from = small_pages->ListFrom(P("many"), paths[29]);
  ASSERT_TRUE(from.ok()) << from.status().ToString();
  ASSERT_EQ(from->size(), 31u);  // 30 files after paths[29], then the directory "sub"
  EXPECT_EQ(from->front().path, paths[30]);
  EXPECT_EQ(from->back().path, P("many/sub"));
  EXPECT_TRUE(from->back().is_dir);
  paths.push_back(P("many/sub/inner"));
  paths.push_back(P("many/never-written"));  // deleting a missing blob is fine
  ASSERT_TRUE(fs_->DeleteMany(paths).ok());
  EXPECT_TRUE(fs_->ListRecursive(P("many"))->empty());
}

TEST_F(AzureTest, EveryUriSpellingNamesTheSameBlobs) {
  ASSERT_TRUE(fs_->WriteFile(P("spell/a b.txt"), AsBytes("hello")).ok());
  const std::string account = options_.account;
  for (const std::string& uri :
       {"abfs://" + container_ + "@" + account + ".dfs.core.windows.net/" + prefix_ + "/spell/a b.txt",
        "abfss://" + container_ + "@" + account + ".dfs.core.windows.net/" + prefix_ + "/spell/a b.txt",
        "wasbs://" + container_ + "@" + account + ".blob.core.windows.net/" + prefix_ + "/spell/a b.txt",
        "https://" + account + ".blob.core.windows.net/" + container_ + "/" + prefix_ + "/spell/a b.txt"}) {
    auto r = fs_->ReadFile(uri);
    ASSERT_TRUE(r.ok()) << uri << ": " << r.status().ToString();
    EXPECT_EQ(AsStringView(r->view()), "hello");
    const std::string dir = uri.substr(0, uri.rfind('/'));
    auto listed = fs_->ListFrom(dir, "");
    ASSERT_TRUE(listed.ok());
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ(listed->front().path, uri);
  }
}

TEST_F(AzureTest, MissingContainerIsNotFoundNamingIt) {
  const std::string uri = "az://lithify-no-such-container-" + std::to_string(getpid()) + "/t/_delta_log";
  auto head = fs_->Head(uri + "/0.json");
  ASSERT_TRUE(head.status().IsNotFound()) << head.status().ToString();
  auto list = fs_->ListFrom(uri, "");
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("lithify-no-such-container"), std::string::npos) << list.status().ToString();
  EXPECT_NE(list.status().message().find("ContainerNotFound"), std::string::npos) << list.status().ToString();
  auto put = fs_->PutIfAbsent(uri + "/0.json", AsBytes("{}"));
  ASSERT_FALSE(put.ok());
  EXPECT_NE(put.message().find("ContainerNotFound"), std::string::npos) << put.ToString();
}

TEST_F(AzureTest, WrongKeyNamesTheUriAndTheServersCode) {
  AzureOptions bad = options_;
  bad.key = "wrong key bytes";
  auto st = NewAzureFileSystem(bad)->WriteFile(P("x"), AsBytes("1"));
  ASSERT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find(P("x")), std::string::npos) << st.ToString();
  // Azure answers AuthenticationFailed, Azurite AuthorizationFailure: either code, and the
  // service's message.
  auto names_code = [](const std::string& m) {
    return m.find("AuthenticationFailed") != std::string::npos || m.find("AuthorizationFailure") != std::string::npos;
  };
  EXPECT_TRUE(names_code(st.message())) << st.ToString();
  EXPECT_NE(st.message().find("failed to authenticate"), std::string::npos) << st.ToString();
  auto head = NewAzureFileSystem(bad)->Head(P("x"));
  ASSERT_FALSE(head.ok());
  EXPECT_TRUE(names_code(head.status().message())) << head.status().ToString();
}

TEST_F(AzureTest, UnreachableServerFailsAfterBoundedRetries) {
  AzureOptions gone = options_;
  gone.blob_endpoint = "http://127.0.0.1:1/" + options_.account;  // nothing listens on port 1
  gone.max_attempts = 3;
  auto st = NewAzureFileSystem(gone)->Head(P("x"));
  ASSERT_TRUE(st.status().IsIOError()) << st.status().ToString();
  EXPECT_NE(st.status().message().find("127.0.0.1:1"), std::string::npos) << st.status().ToString();
  EXPECT_NE(st.status().message().find("after 3 attempts"), std::string::npos) << st.status().ToString();
}

TEST_F(AzureTest, RegisteredSchemesOpenTheBackend) {
  RegisterAzureFileSystem();
  const std::vector<std::string> schemes = RegisteredSchemes();
  for (const char* scheme : {"az", "abfs", "abfss", "wasb", "wasbs"}) {
    EXPECT_NE(std::find(schemes.begin(), schemes.end(), scheme), schemes.end()) << scheme;
  }
  ASSERT_TRUE(fs_->WriteFile(P("reg"), AsBytes("r")).ok());
  auto opened = OpenFileSystem(P("reg"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto r = opened->fs->ReadFile(opened->path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(AsStringView(r->view()), "r");
}

}  // namespace
}  // namespace lithify::io::azure
