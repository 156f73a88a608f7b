#include "lithify/delta/deletion_vector.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>

#include "lithify/delta/snapshot.h"
#include "lithify/delta/test_util.h"

namespace lithify::delta {
namespace {

using testing::KernelTable;
using testing::TempTable;

TEST(Z85Test, RoundTripsAndRejectsBadInput) {
  // ZeroMQ RFC 32 test vector.
  std::string bytes("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8);
  EXPECT_EQ(*Z85Encode(bytes), "HelloWorld");
  EXPECT_EQ(*Z85Decode("HelloWorld"), bytes);
  EXPECT_TRUE(Z85Decode("Hell").status().IsCorruption());
  EXPECT_TRUE(Z85Decode("Hell~").status().IsCorruption());
  // > 2^32: the low 32 bits are kept, as Delta's reader does.
  EXPECT_EQ(*Z85Decode("#####"), *Z85Decode(*Z85Encode(std::string("\x08\x78\x0e\xc4", 4))));
  EXPECT_TRUE(Z85Encode("abc").status().IsInvalidArgument());
}

TEST(DescriptorTest, RelativePathFromSpecExample) {
  // PROTOCOL.md "JSON Example 1".
  DeletionVectorDescriptor dv;
  dv.storage_type = 'u';
  dv.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
  dv.offset = 4;
  dv.size_in_bytes = 40;
  dv.cardinality = 6;
  EXPECT_EQ(*RelativeDvFilePath(dv), "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
  EXPECT_EQ(dv.UniqueId(), "uab^-aqEH.-t@S}K{vb[*k^@4");
  dv.offset.reset();
  EXPECT_EQ(dv.UniqueId(), "uab^-aqEH.-t@S}K{vb[*k^");
  dv.path_or_inline_dv = "short";
  EXPECT_TRUE(RelativeDvFilePath(dv).status().IsCorruption());
}

TEST(DeletionVectorTest, InlineSpecExampleHasDocumentedRows) {
  // PROTOCOL.md "JSON Example 3": rows 3, 4, 7, 11, 18, 29.
  DeletionVectorDescriptor dv;
  dv.storage_type = 'i';
  dv.path_or_inline_dv = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
  dv.size_in_bytes = 40;
  dv.cardinality = 6;
  auto v = LoadDeletionVector(nullptr, "/unused", dv);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->ToVector(), (std::vector<uint64_t>{3, 4, 7, 11, 18, 29}));
  EXPECT_TRUE(v->Contains(18));
  EXPECT_FALSE(v->Contains(19));
  auto keep = v->KeepMask(2, 4);  // rows 2..5
  EXPECT_EQ(keep, (std::vector<bool>{true, false, false, true}));
  dv.cardinality = 5;
  EXPECT_TRUE(LoadDeletionVector(nullptr, "/unused", dv).status().IsCorruption());
}

TEST(DeletionVectorTest, SerializeRoundTripsAcrossHighBuckets) {
  std::vector<uint64_t> rows = {0, 1, 65536, (uint64_t{1} << 32) + 5, (uint64_t{3} << 32)};
  DeletionVector dv = DeletionVector::FromRows(rows);
  auto back = DeletionVector::Deserialize(AsBytes(dv.Serialize()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToVector(), rows);
  EXPECT_EQ(back->cardinality(), 5u);
  EXPECT_TRUE(back->Contains((uint64_t{1} << 32) + 5));
  EXPECT_FALSE(back->Contains(5));
  auto keep = back->KeepMask((uint64_t{1} << 32) + 4, 3);
  EXPECT_EQ(keep, (std::vector<bool>{true, false, true}));
}

TEST(DeletionVectorTest, MalformedBitmapsAreCorruption) {
  std::string good = DeletionVector::FromRows({1, 2, 3}).Serialize();
  EXPECT_TRUE(DeletionVector::Deserialize(AsBytes(std::string("abc"))).status().IsCorruption());
  std::string bad_magic = good;
  bad_magic[0] ^= 1;
  EXPECT_TRUE(DeletionVector::Deserialize(AsBytes(bad_magic)).status().IsCorruption());
  for (size_t cut = 4; cut < good.size(); ++cut) {
    EXPECT_FALSE(DeletionVector::Deserialize(AsBytes(good.substr(0, cut))).ok()) << cut;
  }
  EXPECT_TRUE(DeletionVector::Deserialize(AsBytes(good + "x")).status().IsCorruption());
  std::string huge_count = good;
  huge_count[4] = '\xff';
  huge_count[11] = '\x7f';
  EXPECT_TRUE(DeletionVector::Deserialize(AsBytes(huge_count)).status().IsCorruption());
}

TEST(DeletionVectorTest, LoadsRelativeDvFromCorpus) {
  auto fs = io::NewLocalFileSystem();
  auto snap = Snapshot::Load(fs.get(), KernelTable("table-with-dv-small"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ((*snap)->files().size(), 1u);
  const auto& f = (*snap)->files()[0];
  ASSERT_TRUE(f.deletion_vector.has_value());
  auto dv = LoadDeletionVector(fs.get(), (*snap)->table_root(), *f.deletion_vector);
  ASSERT_TRUE(dv.ok()) << dv.status().ToString();
  // Upstream: 10 rows (values 0..9), the DV hides the first and the last.
  EXPECT_EQ(dv->ToVector(), (std::vector<uint64_t>{0, 9}));
  auto keep = dv->KeepMask(0, 10);
  EXPECT_EQ(std::count(keep.begin(), keep.end(), true), 8);
}

TEST(DeletionVectorTest, LoadsInlineDvsFromCorpus) {
  auto fs = io::NewLocalFileSystem();
  // Inline DVs are live only in some versions of this table: visit them all.
  int inline_dvs = 0;
  for (int64_t v = 0; v <= 6; ++v) {
    auto snap = Snapshot::Load(fs.get(), KernelTable("cdf-table-with-dv"), VersionSpec::AtVersion(v));
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    for (const auto& f : (*snap)->files()) {
      if (!f.deletion_vector) continue;
      auto dv = LoadDeletionVector(fs.get(), (*snap)->table_root(), *f.deletion_vector);
      ASSERT_TRUE(dv.ok()) << dv.status().ToString();
      EXPECT_EQ(dv->cardinality(), static_cast<uint64_t>(f.deletion_vector->cardinality));
      inline_dvs += f.deletion_vector->storage_type == "i";
    }
  }
  EXPECT_GE(inline_dvs, 1);
}

// Flips one byte of the DV file at `at` bytes after the DV's offset.
void CorruptDvFile(const std::string& path, std::streamoff at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f.good());
  f.seekg(at);
  char c;
  f.read(&c, 1);
  c ^= 0x40;
  f.seekp(at);
  f.write(&c, 1);
}

TEST(DeletionVectorTest, ChecksumAndSizeMismatchesAreCorruption) {
  TempTable t(KernelTable("table-with-dv-small"));
  auto fs = io::NewLocalFileSystem();
  auto snap = Snapshot::Load(fs.get(), t.root());
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  const auto ref = *(*snap)->files()[0].deletion_vector;
  const std::string file = t.root() + "/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin";
  const std::streamoff offset = ref.offset.value_or(0);

  CorruptDvFile(file, offset + 4 + 10);  // a bitmap byte: CRC no longer matches
  auto r = LoadDeletionVector(fs.get(), t.root(), ref);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("checksum mismatch"), std::string::npos) << r.status().message();
  CorruptDvFile(file, offset + 4 + 10);  // restore

  ASSERT_TRUE(LoadDeletionVector(fs.get(), t.root(), ref).ok());
  CorruptDvFile(file, offset + 3);  // the size prefix
  r = LoadDeletionVector(fs.get(), t.root(), ref);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("size"), std::string::npos) << r.status().message();

  table::DeletionVectorRef past_end = ref;
  past_end.offset = 1 << 20;
  EXPECT_TRUE(LoadDeletionVector(fs.get(), t.root(), past_end).status().IsCorruption());
  std::filesystem::remove(file);
  EXPECT_TRUE(LoadDeletionVector(fs.get(), t.root(), ref).status().IsNotFound());
}

}  // namespace
}  // namespace lithify::delta
