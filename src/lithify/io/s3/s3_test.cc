// The S3 backend's own promises beyond the FileSystem contract, against the test server
// (scripts/servers.sh): multipart uploads, listing pages, batched deletes, the
// put-if-absent probe, errors naming the URI and S3's message, bounded retries.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lithify/io/http/http.h"
#include "lithify/io/s3/s3_filesystem.h"
#include "lithify/io/s3/sigv4.h"
#include "lithify_test_paths.h"

namespace lithify::io::s3 {
namespace {

using http::HttpRequest;
using http::Perform;

class S3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* b = getenv("LITHIFY_TEST_S3_BUCKET");
    if (b == nullptr || *b == '\0') {
      GTEST_FAIL() << "no S3 test server: LITHIFY_TEST_S3_BUCKET is not set (scripts/servers.sh start, then "
                      "source build/servers/env; or leave these tests out with ctest -LE s3)";
    }
    bucket_ = b;
    auto o = S3OptionsFromEnvironment();
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    options_ = *o;
    options_.part_size = 5 << 20;  // S3's minimum, so that multipart runs on small data
    fs_ = NewS3FileSystem(options_);
    root_ = "s3://" + bucket_ + "/s3test-" + std::to_string(getpid()) + "-" +
            std::to_string(std::random_device{}());
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

  // In-progress multipart uploads under the test prefix (ListMultipartUploads).
  int OpenUploads() {
    std::map<std::string, std::string> query{{"uploads", ""}, {"prefix", root_.substr(6 + bucket_.size())}};
    std::string host = options_.endpoint.substr(options_.endpoint.find("://") + 3);
    HttpRequest req;
    req.method = "GET";
    req.headers["host"] = host;
    SignRequest("GET", "/" + bucket_, query, "UNSIGNED-PAYLOAD", options_.credentials, options_.region,
                time(nullptr), &req.headers);
    req.url = options_.endpoint + "/" + bucket_ + "?prefix=" + UriEncode(query["prefix"], false) + "&uploads=";
    bool sent = false;
    auto r = Perform(req, &sent);
    EXPECT_TRUE(r.ok() && r->status == 200) << (r.ok() ? r->body : r.status().ToString());
    if (!r.ok()) return -1;
    int n = 0;
    for (size_t pos = 0; (pos = r->body.find("<Upload>", pos)) != std::string::npos; ++pos) ++n;
    return n;
  }

  std::string bucket_, root_;
  S3Options options_;
  std::shared_ptr<FileSystem> fs_;
};

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 2654435761u) >> 13);
  return s;
}

TEST_F(S3Test, MultipartUploadIsInvisibleUntilCloseAndReadsBackByRanges) {
  const std::string big = Pattern((11 << 20) + 17);  // three parts of 5 MiB, 5 MiB, 1 MiB
  auto out = fs_->Create(P("big.bin"));
  ASSERT_TRUE(out.ok());
  for (size_t pos = 0; pos < big.size(); pos += 3 << 20) {
    ASSERT_TRUE((*out)->Append(AsBytes(std::string_view(big).substr(pos, 3 << 20))).ok());
  }
  EXPECT_EQ(OpenUploads(), 1);  // parts went up while writing
  EXPECT_TRUE(fs_->Head(P("big.bin")).status().IsNotFound());
  ASSERT_TRUE((*out)->Close().ok());
  EXPECT_EQ(OpenUploads(), 0);
  auto file = fs_->OpenForRead(P("big.bin"));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ((*file)->size(), big.size());
  std::vector<ReadRange> ranges{{0, 10}, {(5 << 20) - 3, 6}, {big.size() - 100, 100}, {1 << 20, 4 << 20}};
  auto got = (*file)->ReadRanges(ranges);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(AsStringView((*got)[i].view()), std::string_view(big).substr(ranges[i].offset, ranges[i].length)) << i;
  }
}

// tests/cli/fault_proxy.mjs in front of the test server, started with `flags`; stopped (by
// its pid) when this goes out of scope.
class FaultProxy {
 public:
  FaultProxy(const std::string& target, const std::vector<std::string>& flags) {
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      std::vector<std::string> args{"node", std::string(LITHIFY_SOURCE_DIR) + "/tests/cli/fault_proxy.mjs", target};
      args.insert(args.end(), flags.begin(), flags.end());
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execvp("node", argv.data());
      _exit(127);
    }
    close(out[1]);
    char buf[32] = {};
    const ssize_t n = read(out[0], buf, sizeof(buf) - 1);  // the port, then it serves
    close(out[0]);
    if (n > 0) endpoint_ = "http://127.0.0.1:" + std::string(buf, static_cast<size_t>(n - 1));
  }
  ~FaultProxy() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  const std::string& endpoint() const { return endpoint_; }

 private:
  pid_t pid_ = -1;
  std::string endpoint_;
};

TEST(S3MultipartETagTest, IsTheMd5OfThePartMd5s) {
  // md5("a"), md5("bc"); the expected value from md5(bytes(md5 a) + bytes(md5 bc)).
  EXPECT_EQ(MultipartETag({"\"0cc175b9c0f1b6a831c399e269772661\"", "5360af35bde9ebd8f01f492dc059593c"}),
            "860df6524f1300aab8ff4bbe75852ada-2");
  EXPECT_EQ(MultipartETag({"\"0cc175b9c0f1b6a831c399e269772661\"", "not-an-md5"}), "");
  EXPECT_EQ(MultipartETag({}), "");
}

// The reply of CompleteMultipartUpload is lost (the proxy cuts the connection after the
// server completed the object) and the retry is answered as AWS S3 answers a completed
// upload, NoSuchUpload (`gone`; RGW itself answers the repeat 200): the object at the key,
// whose ETag is the one our parts make and whose size is ours, means the write succeeded.
void LostCompleteReply(const S3Options& options, const std::string& path, bool gone, bool* ok) {
  const std::string log = std::filesystem::temp_directory_path() / ("s3test-faults-" + std::to_string(getpid()));
  std::filesystem::remove(log);
  std::vector<std::string> flags{"--drop-after", "1", "--match", "^POST .*[?&]uploadId=", "--max-repeat", "1",
                                 "--log", log};
  if (gone) flags.push_back("--gone-after-complete");
  FaultProxy proxy(options.endpoint, flags);
  ASSERT_FALSE(proxy.endpoint().empty()) << "tests/cli/fault_proxy.mjs did not start (node missing?)";
  S3Options o = options;
  o.endpoint = proxy.endpoint();
  o.part_size = 8 << 20;
  auto fs = NewS3FileSystem(o);
  const std::string big = Pattern((20 << 20) + 5);  // parts of 8, 8 and 4 MiB
  auto out = fs->Create(path);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE((*out)->Append(AsBytes(big)).ok());
  Status closed = (*out)->Close();
  EXPECT_TRUE(closed.ok()) << closed.ToString();
  std::ifstream in(log);
  std::stringstream injected;
  injected << in.rdbuf();
  EXPECT_NE(injected.str().find("\"fault\":\"drop-after\",\"method\":\"POST\""), std::string::npos)
      << "the proxy lost no Complete reply: " << injected.str();
  if (gone) EXPECT_NE(injected.str().find("gone-after-complete"), std::string::npos) << injected.str();
  std::filesystem::remove(log);
  auto back = fs->ReadFile(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(AsStringView(back->view()) == big);
  *ok = true;
}

TEST_F(S3Test, CompleteWhoseReplyIsLostIsRecognisedAsOurs) {
  for (bool gone : {false, true}) {
    SCOPED_TRACE(gone ? "retry answered NoSuchUpload" : "retry answered by RGW");
    bool ok = false;
    LostCompleteReply(options_, P(gone ? "lost-complete-gone.bin" : "lost-complete.bin"), gone, &ok);
    EXPECT_TRUE(ok);
  }
  EXPECT_EQ(OpenUploads(), 0);
}

TEST_F(S3Test, AbortedAndDroppedMultipartUploadsLeaveNothing) {
  const std::string part = Pattern(6 << 20);
  {
    auto out = fs_->Create(P("aborted.bin"));
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE((*out)->Append(AsBytes(part)).ok());
    EXPECT_EQ(OpenUploads(), 1);
    (*out)->Abort();
  }
  {
    auto out = fs_->Create(P("dropped.bin"));
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE((*out)->Append(AsBytes(part)).ok());
  }
  EXPECT_EQ(OpenUploads(), 0);
  EXPECT_TRUE(fs_->ListRecursive(root_)->empty());
}

TEST_F(S3Test, ListFilesPageWalksPagesAndSkipsDirectories) {
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(fs_->WriteFile(P("log/" + std::to_string(i) + ".json"), AsBytes("x")).ok());
  ASSERT_TRUE(fs_->WriteFile(P("log/3/inner"), AsBytes("x")).ok());  // a directory among them
  std::vector<std::string> seen;
  std::string after;
  int pages = 0;
  for (;;) {
    auto page = fs_->ListFilesPage(P("log"), after, 2);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    EXPECT_LE(page->files.size(), 2u);
    for (const auto& f : page->files) seen.push_back(f.path);
    ++pages;
    if (!page->more || page->files.empty()) break;
    after = page->files.back().path;
  }
  std::vector<std::string> want;
  for (int i = 0; i < 7; ++i) want.push_back(P("log/" + std::to_string(i) + ".json"));
  EXPECT_EQ(seen, want);
  EXPECT_GE(pages, 4);
  auto from = fs_->ListFilesPage(P("log"), P("log/4.json"), 1000);
  ASSERT_TRUE(from.ok());
  ASSERT_EQ(from->files.size(), 2u);
  EXPECT_EQ(from->files[0].path, P("log/5.json"));
  EXPECT_FALSE(from->more);
}

TEST_F(S3Test, DeleteManyBatchesPastAThousandKeys) {
  constexpr int kFiles = 1010;
  std::vector<std::string> paths;
  for (int i = 0; i < kFiles; ++i) paths.push_back(P("many/" + std::to_string(i)));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < kFiles; i += 8) EXPECT_TRUE(fs_->WriteFile(paths[i], AsBytes("1")).ok());
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(fs_->ListRecursive(P("many"))->size(), static_cast<size_t>(kFiles));  // listing pages too
  paths.push_back(P("many/never-existed"));
  ASSERT_TRUE(fs_->DeleteMany(paths).ok());
  EXPECT_TRUE(fs_->ListRecursive(P("many"))->empty());
}

TEST_F(S3Test, PutIfAbsentProbeLeavesNoObjectBehind) {
  ASSERT_TRUE(fs_->PutIfAbsent(P("_delta_log/00000.json"), AsBytes("{}")).ok());
  EXPECT_TRUE(fs_->PutIfAbsent(P("_delta_log/00000.json"), AsBytes("{}")).IsAlreadyExists());
  auto all = fs_->ListRecursive(root_);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().path, P("_delta_log/00000.json"));
}

TEST_F(S3Test, MissingBucketIsNotFoundNamingIt) {
  const std::string uri = "s3://lithify-no-such-bucket-" + std::to_string(getpid()) + "/t/_delta_log";
  auto head = fs_->Head(uri + "/0.json");
  ASSERT_TRUE(head.status().IsNotFound()) << head.status().ToString();
  auto list = fs_->ListFrom(uri, "");
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("lithify-no-such-bucket"), std::string::npos) << list.status().ToString();
  EXPECT_NE(list.status().message().find("NoSuchBucket"), std::string::npos) << list.status().ToString();
}

TEST_F(S3Test, WrongCredentialsNameTheUriAndTheServersCode) {
  S3Options bad = options_;
  bad.credentials.secret_key = "wrong-secret";
  auto fs = NewS3FileSystem(bad);
  auto st = fs->WriteFile(P("x"), AsBytes("1"));
  ASSERT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find(P("x")), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("SignatureDoesNotMatch"), std::string::npos) << st.ToString();
  bad.credentials.access_key = "nobody";
  auto list = NewS3FileSystem(bad)->ListRecursive(root_);
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("InvalidAccessKeyId"), std::string::npos) << list.status().ToString();
}

TEST_F(S3Test, UnreachableServerFailsAfterBoundedRetries) {
  S3Options gone = options_;
  gone.endpoint = "http://127.0.0.1:1";  // nothing listens on port 1
  gone.max_attempts = 3;
  auto st = NewS3FileSystem(gone)->Head("s3://" + bucket_ + "/x");
  ASSERT_TRUE(st.status().IsIOError()) << st.status().ToString();
  EXPECT_NE(st.status().message().find("127.0.0.1:1"), std::string::npos) << st.status().ToString();
  EXPECT_NE(st.status().message().find("after 3 attempts"), std::string::npos) << st.status().ToString();
}

TEST(SigV4Test, EncodesLikeS3) {
  EXPECT_EQ(UriEncode("a b/c~d_e.f-g", true), "a%20b/c~d_e.f-g");
  EXPECT_EQ(UriEncode("a/b=c&d", false), "a%2Fb%3Dc%26d");
  EXPECT_EQ(UriEncode("\xc3\xa9", true), "%C3%A9");
  EXPECT_EQ(Sha256Hex(AsBytes("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Md5Base64(AsBytes("")), "1B2M2Y8AsgTpgAmY7PhCfg==");
}

TEST(S3OptionsTest, ReadsProfilesFromTheSharedFiles) {
  char dir[] = "/tmp/lithify-aws-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string creds = std::string(dir) + "/credentials", config = std::string(dir) + "/config";
  FILE* f = fopen(creds.c_str(), "w");
  fprintf(f, "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n[work]\naws_access_key_id=W\n"
             "aws_secret_access_key=WS\naws_session_token=WT\n");
  fclose(f);
  f = fopen(config.c_str(), "w");
  fprintf(f, "[profile work]\nregion = eu-central-1\nendpoint_url = http://127.0.0.1:9/\n");
  fclose(f);
  // The test's own environment names the test server: set aside what would win.
  for (const char* v : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
                        "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "LITHIFY_S3_ADDRESSING"}) {
    unsetenv(v);
  }
  setenv("AWS_SHARED_CREDENTIALS_FILE", creds.c_str(), 1);
  setenv("AWS_CONFIG_FILE", config.c_str(), 1);
  setenv("AWS_PROFILE", "work", 1);
  auto o = S3OptionsFromEnvironment();
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->credentials.access_key, "W");
  EXPECT_EQ(o->credentials.session_token, "WT");
  EXPECT_EQ(o->region, "eu-central-1");
  EXPECT_EQ(o->endpoint, "http://127.0.0.1:9");
  EXPECT_TRUE(o->path_style);
  unsetenv("AWS_PROFILE");
  o = S3OptionsFromEnvironment();
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->credentials.access_key, "D");
  EXPECT_EQ(o->region, "us-east-1");
  EXPECT_FALSE(o->path_style);  // AWS itself: virtual-hosted
  setenv("AWS_PROFILE", "nosuch", 1);
  auto missing = S3OptionsFromEnvironment();
  ASSERT_TRUE(missing.status().IsInvalidArgument());
  EXPECT_NE(missing.status().message().find("nosuch"), std::string::npos);
  unsetenv("AWS_PROFILE");
  setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent", 1);
  setenv("AWS_CONFIG_FILE", "/nonexistent", 1);
  auto none = S3OptionsFromEnvironment();
  ASSERT_TRUE(none.status().IsInvalidArgument());
  EXPECT_NE(none.status().message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lithify::io::s3
