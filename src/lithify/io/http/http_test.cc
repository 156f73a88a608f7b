// The shared object-store pieces that need no server: encodings, dates, and the
// part-upload stream's sequencing (on an in-process store of parts).
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "lithify/io/http/crypto.h"
#include "lithify/io/http/remote_file.h"
#include "lithify/io/http/text.h"

namespace lithify::io::http {
namespace {

TEST(HttpTextTest, Base64RoundTripsAndRejectsMalformedText) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  for (const std::string& s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", std::string("\0\xff\x10", 3)}) {
    auto d = Base64Decode(Base64Encode(s));
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(*d, s);
  }
  EXPECT_TRUE(Base64Decode("abc").status().IsInvalidArgument());
  EXPECT_TRUE(Base64Decode("ab!d").status().IsInvalidArgument());
  EXPECT_EQ(Md5Base64(AsBytes("")), "1B2M2Y8AsgTpgAmY7PhCfg==");
  // RFC 4231 test case 2.
  EXPECT_EQ(Hex(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HttpTextTest, DatesAndXml) {
  EXPECT_EQ(HttpDate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(HttpDate(1796173280), "Wed, 02 Dec 2026 01:01:20 GMT");
  EXPECT_EQ(ParseHttpDateMs("Wed, 02 Dec 2026 01:01:20 GMT"), 1796173280000);
  EXPECT_EQ(ParseIso8601Ms("2026-12-02T01:01:20.002Z"), 1796173280002);
  const std::string xml = "<R><N>a&amp;b</N><N>&#x41;</N></R>";
  EXPECT_EQ(XmlAll(xml, "N").size(), 2u);
  EXPECT_EQ(XmlFirst(xml, "N"), "a&b");
  EXPECT_EQ(XmlDecode("&#x41;&lt;"), "A<");
  EXPECT_EQ(XmlEncode("<a&'>"), "&lt;a&amp;&apos;&gt;");
  EXPECT_EQ(UriEncode("a b/c", true), "a%20b/c");
}

// Parts kept in memory, so the sequencing of PartedOutputStream is visible.
class PartsInMemory final : public PartedOutputStream {
 public:
  explicit PartsInMemory(std::map<std::string, std::string>* visible)
      : PartedOutputStream("mem://x", 4, 2), visible_(visible) {}
  ~PartsInMemory() override { Abort(); }
  int wholes = 0, aborts = 0;
  std::map<size_t, std::string> parts;

 protected:
  Status PutWhole(ByteView data) override {
    ++wholes;
    (*visible_)["x"] = std::string(AsStringView(data));
    return Status::OK();
  }
  Status UploadPart(size_t number, ByteView data) override {
    std::lock_guard<std::mutex> lock(mu_);
    parts[number] = std::string(AsStringView(data));
    return Status::OK();
  }
  Status CompleteParts(size_t count) override {
    std::string all;
    for (size_t i = 1; i <= count; ++i) all += parts.at(i);
    (*visible_)["x"] = all;
    return Status::OK();
  }
  void AbortParts() override { ++aborts; }

 private:
  std::mutex mu_;
  std::map<std::string, std::string>* visible_;
};

TEST(PartedOutputStreamTest, SmallContentIsOnePutLargeIsPartsVisibleAtClose) {
  std::map<std::string, std::string> store;
  {
    PartsInMemory small(&store);
    ASSERT_TRUE(small.Append(AsBytes("abc")).ok());
    EXPECT_TRUE(store.empty());
    ASSERT_TRUE(small.Close().ok());
    EXPECT_EQ(small.wholes, 1);
    EXPECT_EQ(store["x"], "abc");
  }
  store.clear();
  PartsInMemory large(&store);
  ASSERT_TRUE(large.Append(AsBytes("0123456789")).ok());
  ASSERT_TRUE(large.Append(AsBytes("ab")).ok());
  EXPECT_TRUE(store.empty());  // parts uploaded, nothing visible
  ASSERT_TRUE(large.Close().ok());
  EXPECT_EQ(store["x"], "0123456789ab");
  EXPECT_EQ(large.parts.size(), 3u);
  EXPECT_EQ(large.wholes, 0);
  EXPECT_TRUE(large.Append(AsBytes("z")).IsInvalidArgument());

  store.clear();
  {
    PartsInMemory dropped(&store);
    ASSERT_TRUE(dropped.Append(AsBytes("0123456789")).ok());
    dropped.Abort();
    EXPECT_EQ(dropped.aborts, 1);
    EXPECT_TRUE(dropped.Close().IsInvalidArgument());
  }
  EXPECT_TRUE(store.empty());
}

}  // namespace
}  // namespace lithify::io::http
