// Locations (uri.h), the registry (registry.h), range coalescing and vectored reads,
// paged listing and the counting decorator.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lithify/base/temp_dir.h"
#include "lithify/io/counting.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/registry.h"
#include "lithify/io/uri.h"

namespace lithify::io {
namespace {

std::string Text(const Buffer& b) { return std::string(AsStringView(b.view())); }

TEST(UriTest, SchemesAreRecognizedOnlyBeforeASlash) {
  EXPECT_TRUE(HasScheme("s3://b/k"));
  EXPECT_TRUE(HasScheme("file:/x"));
  EXPECT_TRUE(HasScheme("abfss://c@a.dfs.core.windows.net/p"));
  EXPECT_FALSE(HasScheme("/abs/path"));
  EXPECT_FALSE(HasScheme("relative/t"));
  EXPECT_FALSE(HasScheme("ts=2020-01-01 10:00:00/x.parquet"));
  EXPECT_FALSE(HasScheme("a:b"));
  EXPECT_FALSE(HasScheme(":/x"));
  EXPECT_FALSE(HasScheme("1x://y"));
  EXPECT_EQ(SchemeOf("S3A://Bucket/k"), "s3a");
  EXPECT_EQ(SchemeOf("/x"), "");
}

TEST(UriTest, FileUrisBecomeDecodedLocalPaths) {
  EXPECT_EQ(*FileUriToPath("file:/data/t"), "/data/t");
  EXPECT_EQ(*FileUriToPath("file:///data/t"), "/data/t");
  EXPECT_EQ(*FileUriToPath("file://localhost/data/t"), "/data/t");
  EXPECT_EQ(*FileUriToPath("FILE:///data/my%20table"), "/data/my table");
  EXPECT_TRUE(FileUriToPath("file://server/share/t").status().IsInvalidArgument());
  EXPECT_TRUE(FileUriToPath("file://localhost").status().IsInvalidArgument());
  EXPECT_TRUE(FileUriToPath("file:///bad%zz").status().IsInvalidArgument());
  EXPECT_TRUE(FileUriToPath("s3://b/k").status().IsInvalidArgument());
}

TEST(UriTest, SplitsObjectStoreUris) {
  auto p = SplitUri("s3://bucket/a/b.parquet");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->scheme, "s3");
  EXPECT_EQ(p->authority, "bucket");
  EXPECT_EQ(p->key, "a/b.parquet");
  auto bare = SplitUri("s3://bucket");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->key, "");
  auto az = SplitUri("abfss://c@acct.dfs.core.windows.net//t/");
  ASSERT_TRUE(az.ok());
  EXPECT_EQ(az->authority, "c@acct.dfs.core.windows.net");
  EXPECT_EQ(az->key, "t/");
  EXPECT_TRUE(SplitUri("s3:///key").status().IsInvalidArgument());
  EXPECT_TRUE(SplitUri("s3:/bucket").status().IsInvalidArgument());
  EXPECT_TRUE(SplitUri("plain/path").status().IsInvalidArgument());
}

TEST(UriTest, CanonicalLocationFoldsAliases) {
  EXPECT_EQ(CanonicalLocation("s3a://b/t/"), "s3://b/t");
  EXPECT_EQ(CanonicalLocation("S3N://b/t"), "s3://b/t");
  EXPECT_EQ(CanonicalLocation("abfss://c@a/t"), "abfs://c@a/t");
  EXPECT_EQ(CanonicalLocation("/data/t//"), "/data/t");
  EXPECT_EQ(CanonicalLocation("/"), "/");
}

TEST(RegistryTest, PlainPathsAndFileUrisOpenTheLocalFileSystem) {
  TempDir dir("lithify-registry");
  auto plain = OpenFileSystem(dir.path());
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->path, dir.path());
  auto uri = OpenFileSystem("file://" + dir.path());
  ASSERT_TRUE(uri.ok()) << uri.status().ToString();
  EXPECT_EQ(uri->path, dir.path());
  // Both address the same files.
  ASSERT_TRUE(plain->fs->WriteFile(JoinPath(plain->path, "x"), AsBytes("1")).ok());
  EXPECT_TRUE(uri->fs->Head(JoinPath(uri->path, "x")).ok());
  EXPECT_TRUE(OpenFileSystem("").status().IsInvalidArgument());
  EXPECT_TRUE(OpenFileSystem("file://elsewhere/x").status().IsInvalidArgument());
}

TEST(RegistryTest, UnknownSchemesAreNotSupportedNamingTheUri) {
  auto r = OpenFileSystem("gs://bucket/t");
  ASSERT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  EXPECT_EQ(r.status().message().rfind("URIs are not supported yet: gs://bucket/t", 0), 0u)
      << r.status().message();
}

TEST(RegistryTest, RegisteredSchemesOpenWithTheWholeUri) {
  auto mem = std::shared_ptr<FileSystem>(NewMemoryFileSystem());
  std::string seen;
  RegisterFileSystem("memtest", [&](std::string_view uri) -> Result<std::shared_ptr<FileSystem>> {
    seen = std::string(uri);
    return mem;
  });
  auto r = OpenFileSystem("memtest://bucket/t/");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->fs, mem);
  EXPECT_EQ(r->path, "memtest://bucket/t");
  EXPECT_EQ(seen, "memtest://bucket/t/");
  auto schemes = RegisteredSchemes();
  EXPECT_NE(std::find(schemes.begin(), schemes.end(), "memtest"), schemes.end());
  EXPECT_NE(std::find(schemes.begin(), schemes.end(), "file"), schemes.end());
}

TEST(LocalFileSystemTest, RefusesUris) {
  auto fs = NewLocalFileSystem();
  for (const char* uri : {"s3://bucket/t/x", "file:///tmp/x"}) {
    EXPECT_TRUE(fs->Head(uri).status().IsNotSupported()) << uri;
    EXPECT_TRUE(fs->OpenForRead(uri).status().IsNotSupported()) << uri;
    EXPECT_TRUE(fs->Create(uri).status().IsNotSupported()) << uri;
    EXPECT_TRUE(fs->PutIfAbsent(uri, AsBytes("x")).IsNotSupported()) << uri;
    EXPECT_TRUE(fs->ListFrom(uri, "").status().IsNotSupported()) << uri;
    EXPECT_TRUE(fs->Delete(uri).IsNotSupported()) << uri;
  }
}

TEST(CoalesceRangesTest, MergesNearbyRangesUpToTheCap) {
  auto out = CoalesceRanges({{100, 10}, {0, 10}, {15, 5}, {5, 3}, {200, 0}}, 10, 1000);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].offset, 0u);
  EXPECT_EQ(out[0].length, 20u);
  EXPECT_EQ(out[1].offset, 100u);
  EXPECT_EQ(out[1].length, 10u);
  // The cap stops growth; a single range over the cap stays whole.
  auto capped = CoalesceRanges({{0, 10}, {12, 10}, {24, 100}}, 10, 25);
  ASSERT_EQ(capped.size(), 2u);
  EXPECT_EQ(capped[0].length, 22u);
  EXPECT_EQ(capped[1].length, 100u);
  // No merging at all with max_size 0, except for contained duplicates.
  auto none = CoalesceRanges({{0, 10}, {10, 10}, {2, 3}}, 100, 0);
  ASSERT_EQ(none.size(), 2u);
}

// A file that reports a remote profile and counts its reads.
class ProfiledFile final : public RandomAccessFile {
 public:
  ProfiledFile(std::string content, ReadProfile profile)
      : content_(std::move(content)), profile_(profile) {}
  uint64_t size() const override { return content_.size(); }
  const std::string& path() const override { return path_; }
  ReadProfile read_profile() const override { return profile_; }
  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) override {
    ++reads;
    if (offset > content_.size() || length > content_.size() - offset) return Status::IOError("past end");
    std::memcpy(out, content_.data() + offset, length);
    return Status::OK();
  }
  int reads = 0;

 private:
  std::string content_;
  ReadProfile profile_;
  std::string path_ = "profiled";
};

TEST(ReadRangesTest, CoalescesByTheFilesProfile) {
  std::string content;
  for (int i = 0; i < 1000; ++i) content.push_back(static_cast<char>('a' + i % 26));
  ProfiledFile remote(content, ReadProfile{64, 1 << 20, 0, true});
  auto r = remote.ReadRanges({{500, 4}, {0, 3}, {10, 2}, {1, 5}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ(Text((*r)[0]), content.substr(500, 4));
  EXPECT_EQ(Text((*r)[1]), content.substr(0, 3));
  EXPECT_EQ(Text((*r)[2]), content.substr(10, 2));
  EXPECT_EQ(Text((*r)[3]), content.substr(1, 5));
  EXPECT_EQ(remote.reads, 2);  // [0,12) and [500,504)

  ProfiledFile local(content, ReadProfile{});
  ASSERT_TRUE(local.ReadRanges({{0, 3}, {10, 2}}).ok());
  EXPECT_EQ(local.reads, 2);
  EXPECT_TRUE(local.ReadRanges({{999, 2}}).status().IsIOError());
  auto empty = local.ReadRanges({{1000, 0}});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)[0].size(), 0u);
}

TEST(ListFilesPageTest, WholeDirectoryStoresListFilesInOnePage) {
  auto fs = NewMemoryFileSystem();
  for (const char* p : {"/l/a", "/l/b", "/l/c", "/l/d/x", "/l/e"}) ASSERT_TRUE(fs->WriteFile(p, AsBytes("1")).ok());
  auto page = fs->ListFilesPage("/l", "/l/a", 2);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  std::vector<std::string> seen;
  for (const auto& f : page->files) seen.push_back(f.path);
  EXPECT_EQ(seen, (std::vector<std::string>{"/l/b", "/l/c", "/l/e"}));
  EXPECT_FALSE(page->more);
  EXPECT_TRUE(fs->ListFilesPage("/l", "", 0).status().IsInvalidArgument());
}

TEST(CountingFileSystemTest, CountsCallsBytesAndOpenedPaths) {
  auto base = NewMemoryFileSystem();
  CountingFileSystem fs(base.get());
  ASSERT_TRUE(fs.WriteFile("/t/a", AsBytes("hello")).ok());
  ASSERT_TRUE(fs.PutIfAbsent("/t/b", AsBytes("x")).ok());
  ASSERT_TRUE(fs.Head("/t/a").ok());
  ASSERT_TRUE(fs.ListFrom("/t", "").ok());
  auto data = fs.ReadFile("/t/a");
  ASSERT_TRUE(data.ok());
  auto file = fs.OpenForRead("/t/b");
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->ReadRanges({{0, 1}}).ok());
  ASSERT_TRUE(fs.DeleteMany({"/t/a", "/t/b"}).ok());
  EXPECT_EQ(fs.calls(FsOp::kCreate), 1);
  EXPECT_EQ(fs.calls(FsOp::kAppend), 1);
  EXPECT_EQ(fs.calls(FsOp::kClose), 1);
  EXPECT_EQ(fs.calls(FsOp::kPutIfAbsent), 1);
  EXPECT_EQ(fs.calls(FsOp::kHead), 1);
  EXPECT_EQ(fs.calls(FsOp::kList), 1);
  EXPECT_EQ(fs.calls(FsOp::kOpenForRead), 2);
  EXPECT_EQ(fs.calls(FsOp::kReadAt), 1);
  EXPECT_EQ(fs.calls(FsOp::kReadRanges), 1);
  EXPECT_EQ(fs.calls(FsOp::kDelete), 2);
  EXPECT_EQ(fs.bytes_read(), 6);
  EXPECT_EQ(fs.opened_paths(), (std::vector<std::string>{"/t/a", "/t/b"}));
  EXPECT_NE(fs.CountsJson().find("\"open\":2"), std::string::npos) << fs.CountsJson();
  fs.Reset();
  EXPECT_EQ(fs.total_calls(), 0);
  EXPECT_TRUE(fs.opened_paths().empty());
}

}  // namespace
}  // namespace lithify::io
