// Damaged copies of corpus tables (copied to a temporary folder and mapped there): a
// missing manifest list or manifest, a bad sync marker, an unknown codec, truncated
// metadata, a sequence number going backwards, a deletion vector naming a data file that
// is not in the table, and encryption must each give a clean error naming the file or the
// feature. Also: skipping by partition values and bounds never drops a matching row.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lithify/base/temp_dir.h"
#include "lithify/expr/batch_eval.h"
#include "lithify/iceberg/avro.h"
#include "test_util.h"

namespace lithify::iceberg {
namespace {

namespace fs = std::filesystem;
using testing::Corpus;

const std::string kImpala = "/impala/testdata/data/iceberg_test/";

std::string ReadText(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const std::string& p, const std::string& s) { std::ofstream(p, std::ios::binary | std::ios::trunc) << s; }

// A copy of corpus table `rel` (under impala's iceberg_test) in `dir`, and the location
// map that sends the table's recorded locations there.
struct Copy {
  std::string root;
  LocationMap map;
};

Copy CopyTable(const TempDir& dir, const std::string& rel, const std::string& recorded_prefix) {
  Copy c;
  c.root = dir.path() + "/t";
  fs::copy(Corpus() + kImpala + rel, c.root, fs::copy_options::recursive);
  c.map = testing::CorpusMap({{recorded_prefix, c.root}});
  return c;
}

Status ScanAll(const Copy& c, const std::string& where = "") {
  auto t = IcebergTable::Open(io::NewLocalFileSystem(), where.empty() ? c.root : where, OpenOptions{c.map});
  if (!t.ok()) return t.status();
  auto snap = (*t)->Select(SnapshotSelector::Current());
  if (!snap.ok()) return snap.status();
  return testing::ReadRows(**t, *snap).status();
}

std::string Find(const std::string& dir, const std::string& needle) {
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find(needle) != std::string::npos) return e.path().string();
  }
  return "";
}

const char* kPositional = "hadoop_catalog/ice/iceberg_v2_delete_positional";
const char* kPositionalRecorded = "/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_positional";

void ExpectError(const Status& st, StatusCode code, const std::string& names) {
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_NE(st.message().find(names), std::string::npos) << "should name " << names << ": " << st.ToString();
}

TEST(IcebergMalformed, TheUndamagedCopyReads) {
  TempDir dir;
  Copy c = CopyTable(dir, kPositional, kPositionalRecorded);
  EXPECT_TRUE(ScanAll(c).ok()) << ScanAll(c).ToString();
}

TEST(IcebergMalformed, MissingManifestListAndManifest) {
  TempDir dir;
  Copy c = CopyTable(dir, kPositional, kPositionalRecorded);
  // The current snapshot's manifest list is the newest snap-*.avro the metadata names.
  Result<std::string> text = ReadMetadataText(io::NewLocalFileSystem().get(), c.root + "/metadata/v2.metadata.json");
  ASSERT_TRUE(text.ok());
  auto m = ParseTableMetadata(*text, "v2");
  ASSERT_TRUE(m.ok());
  std::string list = c.map.Apply(m->CurrentSnapshot()->manifest_list);
  ASSERT_TRUE(fs::exists(list));
  const std::string saved = ReadText(list);
  fs::remove(list);
  ExpectError(ScanAll(c), StatusCode::kNotFound, fs::path(list).filename().string());
  WriteText(list, saved);
  std::string manifest = Find(c.root + "/metadata", "-m0.avro");
  ASSERT_FALSE(manifest.empty());
  fs::remove(manifest);
  ExpectError(ScanAll(c), StatusCode::kNotFound, fs::path(manifest).filename().string());
}

TEST(IcebergMalformed, BadSyncMarkerAndUnknownCodec) {
  TempDir dir;
  Copy c = CopyTable(dir, kPositional, kPositionalRecorded);
  std::string manifest = Find(c.root + "/metadata", "-m0.avro");
  std::string bytes = ReadText(manifest);
  std::string damaged = bytes;
  damaged.back() ^= 0x5A;
  WriteText(manifest, damaged);
  ExpectError(ScanAll(c), StatusCode::kCorruption, fs::path(manifest).filename().string());
  damaged = bytes;
  // The codec's name follows the "avro.codec" key as a length-prefixed string.
  size_t at = damaged.find("avro.codec");
  ASSERT_NE(at, std::string::npos);
  at += 10;
  const size_t len = static_cast<uint8_t>(damaged[at]) / 2;
  damaged.replace(at + 1, len, std::string(len, 'z'));
  const std::string codec(len, 'z');
  WriteText(manifest, damaged);
  Status st = ScanAll(c);
  ExpectError(st, StatusCode::kNotSupported, fs::path(manifest).filename().string());
  EXPECT_NE(st.message().find("'" + codec + "'"), std::string::npos) << st.ToString();
}

TEST(IcebergMalformed, TruncatedAndInvalidMetadata) {
  TempDir dir;
  Copy c = CopyTable(dir, kPositional, kPositionalRecorded);
  const std::string md = c.root + "/metadata/v2.metadata.json";
  const std::string text = ReadText(md);
  for (size_t len : {size_t{0}, size_t{1}, text.size() / 3, text.size() / 2, text.size() - 2}) {
    WriteText(md, text.substr(0, len));
    ExpectError(ScanAll(c), StatusCode::kCorruption, "v2.metadata.json");
  }
  WriteText(md, "{\"format-version\": \"two\"}");
  ExpectError(ScanAll(c), StatusCode::kCorruption, "v2.metadata.json");
}

TEST(IcebergMalformed, SequenceNumberGoingBackwards) {
  TempDir dir;
  Copy c = CopyTable(dir, kPositional, kPositionalRecorded);
  const std::string md = c.root + "/metadata/v2.metadata.json";
  nlohmann::json j = nlohmann::json::parse(ReadText(md));
  const int64_t current = j["current-snapshot-id"].get<int64_t>();
  for (auto& s : j["snapshots"]) {
    if (s["snapshot-id"].get<int64_t>() == current) s["sequence-number"] = 0;  // its manifests were added at 2
  }
  WriteText(md, j.dump());
  Status st = ScanAll(c);
  ExpectError(st, StatusCode::kCorruption, ".avro");
  EXPECT_NE(st.message().find("above its snapshot"), std::string::npos) << st.ToString();
}

TEST(IcebergMalformed, EncryptionIsRefusedByName) {
  TempDir dir;
  Copy c = CopyTable(dir, kPositional, kPositionalRecorded);
  const std::string md = c.root + "/metadata/v2.metadata.json";
  nlohmann::json j = nlohmann::json::parse(ReadText(md));
  j["encryption-keys"] = nlohmann::json::array({{{"key-id", "k"}, {"encrypted-key-metadata", "AA=="}}});
  WriteText(md, j.dump());
  ExpectError(ScanAll(c), StatusCode::kNotSupported, "encryption");
}

// Rewrites every block of a deflate Avro container with `from` replaced by `to` (same
// length) in the decompressed records.
std::string ReplaceInDeflateAvro(const std::string& file, const std::string& from, const std::string& to) {
  size_t pos = 4;
  auto varint = [&](const std::string& s, size_t* p) {
    uint64_t u = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = static_cast<uint8_t>(s[(*p)++]);
      u |= uint64_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) break;
    }
    return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  };
  auto put = [](std::string* out, int64_t v) {
    uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (u >= 0x80) { out->push_back(static_cast<char>(u | 0x80)); u >>= 7; }
    out->push_back(static_cast<char>(u));
  };
  for (;;) {  // header metadata map
    int64_t n = varint(file, &pos);
    if (n == 0) break;
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = varint(file, &pos);
      pos += k;
      int64_t v = varint(file, &pos);
      pos += v;
    }
  }
  const std::string sync = file.substr(pos, 16);
  pos += 16;
  std::string out = file.substr(0, pos);
  while (pos < file.size()) {
    int64_t count = varint(file, &pos);
    int64_t size = varint(file, &pos);
    std::string raw(1 << 20, '\0');
    z_stream z{};
    inflateInit2(&z, -MAX_WBITS);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(file.data() + pos));
    z.avail_in = static_cast<uInt>(size);
    z.next_out = reinterpret_cast<Bytef*>(raw.data());
    z.avail_out = static_cast<uInt>(raw.size());
    inflate(&z, Z_FINISH);
    raw.resize(z.total_out);
    inflateEnd(&z);
    for (size_t at = raw.find(from); at != std::string::npos; at = raw.find(from, at + 1)) raw.replace(at, from.size(), to);
    std::string packed(raw.size() + 1024, '\0');
    z_stream d{};
    deflateInit2(&d, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    d.next_in = reinterpret_cast<Bytef*>(raw.data());
    d.avail_in = static_cast<uInt>(raw.size());
    d.next_out = reinterpret_cast<Bytef*>(packed.data());
    d.avail_out = static_cast<uInt>(packed.size());
    deflate(&d, Z_FINISH);
    packed.resize(d.total_out);
    deflateEnd(&d);
    put(&out, count);
    put(&out, static_cast<int64_t>(packed.size()));
    out += packed;
    out += sync;
    pos += size + 16;
  }
  return out;
}

TEST(IcebergMalformed, DeletionVectorNamingAnUnknownDataFile) {
  TempDir dir;
  Copy c;
  c.root = dir.path() + "/t";
  fs::copy(Corpus() + kImpala + "iceberg_v3/iceberg_v3_deletion_vectors", c.root, fs::copy_options::recursive);
  c.map = testing::CorpusMap({{"hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors", c.root}});
  ASSERT_TRUE(ScanAll(c).ok()) << ScanAll(c).ToString();
  // The delete manifest is the one that mentions the Puffin file.
  std::string manifest;
  for (const auto& e : fs::directory_iterator(c.root + "/metadata")) {
    const std::string name = e.path().filename().string();
    if (name.find("-m0.avro") == std::string::npos) continue;
    auto r = avro::ContainerReader::Open(io::NewLocalFileSystem().get(), e.path().string());
    ASSERT_TRUE(r.ok());
    if ((*r)->Meta("content") == std::optional<std::string>("deletes")) manifest = e.path().string();
  }
  ASSERT_FALSE(manifest.empty());
  // Point the DVs at "00009-..." data files, which the table does not have.
  WriteText(manifest, ReplaceInDeflateAvro(ReadText(manifest), "/data/0000", "/data/9999"));
  Status st = ScanAll(c);
  ExpectError(st, StatusCode::kCorruption, "not live in snapshot");
  EXPECT_NE(st.message().find("/data/9999"), std::string::npos) << st.ToString();
}

// Skipping never drops a file that holds a matching row, and does skip.
TEST(IcebergSkipping, PartitionAndBoundsSkipConservatively) {
  const LocationMap map = testing::CorpusMap();
  struct Case { std::string table; std::string where; };
  for (const Case& k : {Case{"impala/testdata/data/iceberg_test/iceberg_partitioned", "action = 'click'"},
                        Case{"impala/testdata/data/iceberg_test/iceberg_partitioned", "id > 15"},
                        Case{"impala/testdata/data/iceberg_test/iceberg_non_partitioned", "id <= 3"},
                        Case{"duckdb-iceberg/data/persistent/partition_integer", "partition_col = 1337"}}) {
    SCOPED_TRACE(k.table + " WHERE " + k.where);
    auto t = IcebergTable::Open(io::NewLocalFileSystem(), Corpus() + "/" + k.table, OpenOptions{map});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    const Snapshot* snap = *(*t)->Select(SnapshotSelector::Current());
    auto all = (*t)->PlanAll(snap);
    ASSERT_TRUE(all.ok());
    PlanOptions o;
    o.where = *expr::Parse(k.where);
    PlanStats stats;
    auto kept = (*t)->PlanAll(snap, o, &stats);
    ASSERT_TRUE(kept.ok()) << kept.status().ToString();
    EXPECT_GT(stats.skipped_files, 0);
    EXPECT_EQ(kept->size() + stats.skipped_files, all->size());
    // Every skipped file has no matching row.
    auto out = OutputSchema::Build((*t)->metadata().current_schema());
    ASSERT_TRUE(out.ok());
    std::vector<expr::BoundColumn> cols;
    for (int l = 0; l < out->schema().num_leaves(); ++l) {
      auto lt = expr::LogicalTypeOf(out->schema().leaf(l));
      if (lt.ok()) cols.push_back({out->schema().leaf(l).path, *lt});
    }
    auto bound = expr::Bind(*o.where, expr::ResolverFromColumns(cols));
    ASSERT_TRUE(bound.ok());
    std::vector<expr::BatchColumn> bcs;
    for (const auto& bc : bound->columns()) {
      for (int l = 0; l < out->schema().num_leaves(); ++l) {
        if (out->schema().leaf(l).path == bc.path) bcs.push_back(*expr::DescribeLeaf(out->schema().leaf(l), l));
      }
    }
    int64_t matching_in_skipped = 0, matching = 0;
    for (const PlannedFile& p : *all) {
      bool skipped = std::none_of(kept->begin(), kept->end(),
                                  [&](const PlannedFile& q) { return q.file.path == p.file.path; });
      auto reader = LiveRowsReader::Open(**t, *out, p);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      LiveBatch b;
      while (*(*reader)->Next(&b)) {
        auto sel = expr::EvaluateBatch(*bound, b.batch, bcs);
        ASSERT_TRUE(sel.ok()) << sel.status().ToString();
        const int64_t n = std::count(sel->begin(), sel->end(), true);
        matching += n;
        if (skipped) matching_in_skipped += n;
      }
    }
    EXPECT_EQ(matching_in_skipped, 0);
    EXPECT_GT(matching, 0);
  }
}

}  // namespace
}  // namespace lithify::iceberg
