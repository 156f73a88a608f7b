// Hostile Delta logs (issue "Delta tables, read side", acceptance 4): every case copies a
// small corpus table into a temporary directory, damages it the way a crashed writer, a
// bad copy or a malicious log would, and checks that loading fails with a clear status
// (Corruption, or NotFound where the table is simply absent) whose message names the
// file and the problem, or, where the protocol says a reader must cope, that it copes.
// Deletion vectors are only read by scans, so the DV cases load the snapshot (which
// must still succeed) and then the DV.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/test_util.h"

namespace lithify::delta {
namespace {

namespace fsys = std::filesystem;
using testing::DeltaRsTable;
using testing::KernelTable;
using testing::TempTable;

constexpr const char* kSimple = "simple_table";  // delta-rs: commits 0..4, no checkpoint
constexpr const char* kDvSmall = "table-with-dv-small";  // kernel: one file, 'u' DV of 2 rows
constexpr const char* kDvFile = "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteAll(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  ASSERT_TRUE(out.good()) << path;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Asserts `st` has `code` and its message contains every needle.
void ExpectError(const Status& st, StatusCode code, const std::vector<std::string>& needles) {
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), code) << st.ToString();
  for (const auto& n : needles) {
    EXPECT_NE(st.message().find(n), std::string::npos) << "'" << n << "' not in: " << st.message();
  }
}

Status LoadStatus(const std::string& root, VersionSpec spec = VersionSpec::Latest()) {
  auto fs = io::NewLocalFileSystem();
  auto snap = Snapshot::Load(fs.get(), root, spec);
  return snap.ok() ? Status::OK() : snap.status();
}

// ---- commit files ----------------------------------------------------------------------

TEST(MalformedLogTest, TruncatedLastLineIsCorruptionNamingFileAndLine) {
  TempTable t(DeltaRsTable(kSimple));
  const std::string commit = t.log("00000000000000000004.json");
  std::string text = ReadAll(commit);
  ASSERT_GT(text.size(), 100u);
  // A writer that died mid-line: the last line loses its second half and newline.
  std::vector<std::string> lines = Lines(text);
  const size_t last = lines.size();
  lines.back().resize(lines.back().size() / 2);
  std::string damaged = JoinLines(lines);
  damaged.pop_back();
  WriteAll(commit, damaged);
  ExpectError(LoadStatus(t.root()), StatusCode::kCorruption,
              {"_delta_log/00000000000000000004.json line " + std::to_string(last), "malformed JSON"});
  // Earlier versions do not read the damaged commit.
  EXPECT_TRUE(LoadStatus(t.root(), VersionSpec::AtVersion(3)).ok());
}

TEST(MalformedLogTest, TruncatedLineInTheMiddleIsCorruptionNamingTheLine) {
  TempTable t(DeltaRsTable(kSimple));
  const std::string commit = t.log("00000000000000000002.json");
  std::vector<std::string> lines = Lines(ReadAll(commit));
  ASSERT_GT(lines.size(), 5u);
  lines[2].resize(lines[2].size() - 7);
  WriteAll(commit, JoinLines(lines));
  ExpectError(LoadStatus(t.root()), StatusCode::kCorruption,
              {"_delta_log/00000000000000000002.json line 3", "malformed JSON"});
}

TEST(MalformedLogTest, GarbageLinesAreCorruption) {
  const std::vector<std::string> garbage = {
      "this is not json",
      std::string("\x00\x01\xff\xfe{\"add\":", 10),
      "[1,2,3]",                                                   // JSON, not an object
      "{\"add\":[]}",                                              // action is not an object
      "{\"add\":{\"path\":\"x.parquet\",\"size\":\"ten\"}}",       // mistyped field
      "{\"add\":{\"size\":1}}",                                    // missing path
      "{\"protocol\":{\"minReaderVersion\":99999999999,\"minWriterVersion\":2}}",
      "{\"add\":{\"path\":\"x.parquet\",\"size\":-1}}",
      "{\"add\":{\"path\":\"x.parquet\",\"size\":1,\"deletionVector\":{\"storageType\":\"u\","
      "\"pathOrInlineDv\":\"short\",\"sizeInBytes\":1,\"cardinality\":1}}}",
      std::string(100000, '[') + std::string(100000, ']'),  // absurd nesting
  };
  for (const std::string& line : garbage) {
    TempTable t(DeltaRsTable(kSimple));
    const std::string commit = t.log("00000000000000000003.json");
    std::vector<std::string> lines = Lines(ReadAll(commit));
    lines.insert(lines.begin() + 1, line);
    WriteAll(commit, JoinLines(lines));
    SCOPED_TRACE(line.substr(0, 80));
    ExpectError(LoadStatus(t.root()), StatusCode::kCorruption,
                {"_delta_log/00000000000000000003.json line 2"});
  }
}

TEST(MalformedLogTest, BadStatsAreCorruptionNamingTheFile) {
  TempTable t(DeltaRsTable(kSimple));
  WriteAll(t.log("00000000000000000005.json"),
           "{\"add\":{\"path\":\"x.parquet\",\"partitionValues\":{},\"size\":1,"
           "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":\"}}\n");
  ExpectError(LoadStatus(t.root()), StatusCode::kCorruption,
              {"_delta_log/00000000000000000005.json", "x.parquet", "stats"});
}

TEST(MalformedLogTest, HugeRecordCountsDoNotOverflowTheLiveRowSum) {
  TempTable t(KernelTable(kDvSmall));  // one file: numRecords 10, 2 rows deleted
  auto fs = io::NewLocalFileSystem();
  auto intact = Snapshot::Load(fs.get(), t.root());
  ASSERT_TRUE(intact.ok()) << intact.status().ToString();
  EXPECT_EQ((*intact)->NumLiveRecords(), 8);
  std::string commit;
  for (const char* name : {"a.parquet", "b.parquet"}) {
    commit += std::string("{\"add\":{\"path\":\"") + name +
              "\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true,"
              "\"stats\":\"{\\\"numRecords\\\":9223372036854775807}\"}}\n";
  }
  WriteAll(t.log("00000000000000000002.json"), commit);
  auto snap = Snapshot::Load(fs.get(), t.root());
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ((*snap)->files().size(), 3u);
  EXPECT_FALSE((*snap)->NumLiveRecords().has_value());  // unknown, not signed overflow
}

TEST(MalformedLogTest, MissingCommitInTheMiddleIsCorruptionNamingIt) {
  TempTable t(DeltaRsTable(kSimple));
  fsys::remove(t.log("00000000000000000002.json"));
  ExpectError(LoadStatus(t.root()), StatusCode::kCorruption,
              {"commit 2", "00000000000000000002.json", "gap"});
  ExpectError(LoadStatus(t.root(), VersionSpec::AtVersion(3)), StatusCode::kCorruption, {"commit 2"});
  EXPECT_TRUE(LoadStatus(t.root(), VersionSpec::AtVersion(1)).ok());
}

TEST(MalformedLogTest, EmptyOrMissingLogIsNotFound) {
  TempTable t(DeltaRsTable(kSimple));
  for (const auto& e : fsys::directory_iterator(t.root() + "/_delta_log")) fsys::remove_all(e.path());
  ExpectError(LoadStatus(t.root()), StatusCode::kNotFound, {"_delta_log"});
  fsys::remove_all(t.root() + "/_delta_log");
  ExpectError(LoadStatus(t.root()), StatusCode::kNotFound, {});
}

// ---- checkpoints -----------------------------------------------------------------------

constexpr const char* kMultiPart = "v1-multi-part-struct-stats-only";  // 3-part checkpoint at 5
constexpr const char* kMissingPart = "00000000000000000005.checkpoint.0000000002.0000000003.parquet";

TEST(MalformedLogTest, MultiPartCheckpointMissingAPartWithoutCommitsIsCorruption) {
  TempTable t(KernelTable(kMultiPart));
  fsys::remove(t.log(kMissingPart));
  for (int v = 0; v <= 4; ++v) fsys::remove(t.log(fmt::format("{:020}.json", v)));
  // Commit 5 is present, but the state before it is only in the broken checkpoint.
  ExpectError(LoadStatus(t.root()), StatusCode::kCorruption,
              {"checkpoint at version 5", "missing parts", kMissingPart});
  // Without any commit the log is nothing but the broken checkpoint: still Corruption
  // (not "no Delta table").
  fsys::remove(t.log("00000000000000000005.json"));
  ExpectError(LoadStatus(t.root()), StatusCode::kCorruption,
              {"checkpoint at version 5", "missing parts", kMissingPart});
}

TEST(MalformedLogTest, MultiPartCheckpointMissingAPartFallsBackToCommits) {
  TempTable t(KernelTable(kMultiPart));
  auto fs = io::NewLocalFileSystem();
  auto whole = Snapshot::Load(fs.get(), t.root());
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_EQ((*whole)->log_segment().checkpoint_version, 5);
  fsys::remove(t.log(kMissingPart));
  auto replayed = Snapshot::Load(fs.get(), t.root());
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  EXPECT_FALSE((*replayed)->log_segment().checkpoint_version.has_value());
  EXPECT_EQ((*replayed)->files().size(), (*whole)->files().size());
}

constexpr const char* kWithCheckpoint = "simple_table_with_checkpoint";  // checkpoint at 10
constexpr const char* kCheckpoint = "00000000000000000010.checkpoint.parquet";

TEST(MalformedLogTest, TruncatedCheckpointIsCorruptionNamingIt) {
  for (double keep : {0.5, 0.0}) {
    TempTable t(DeltaRsTable(kWithCheckpoint));
    const std::string cp = t.log(kCheckpoint);
    fsys::resize_file(cp, static_cast<uintmax_t>(fsys::file_size(cp) * keep));
    SCOPED_TRACE(keep);
    ExpectError(LoadStatus(t.root()), StatusCode::kCorruption, {kCheckpoint});
  }
}

TEST(MalformedLogTest, GarbageCheckpointIsCorruptionNamingIt) {
  TempTable t(DeltaRsTable(kWithCheckpoint));
  const std::string cp = t.log(kCheckpoint);
  std::string bytes = ReadAll(cp);
  // Keep the magic at both ends; smash the footer's Thrift bytes.
  for (size_t i = bytes.size() - 200; i < bytes.size() - 8; ++i) bytes[i] = static_cast<char>(0xA5);
  WriteAll(cp, bytes);
  ExpectError(LoadStatus(t.root()), StatusCode::kCorruption, {kCheckpoint});
}

TEST(MalformedLogTest, LastCheckpointNamingAMissingCheckpointFallsBack) {
  TempTable t(DeltaRsTable(kWithCheckpoint));
  auto fs = io::NewLocalFileSystem();
  auto good = Snapshot::Load(fs.get(), t.root());
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  // The hint names checkpoint 10, which is gone: every commit is still there.
  fsys::remove(t.log(kCheckpoint));
  auto fallback = Snapshot::Load(fs.get(), t.root());
  ASSERT_TRUE(fallback.ok()) << fallback.status().ToString();
  EXPECT_EQ((*fallback)->version(), 10);
  EXPECT_FALSE((*fallback)->log_segment().checkpoint_version.has_value());
  EXPECT_EQ((*fallback)->files().size(), (*good)->files().size());
  // Hints naming a version that never had a checkpoint, or beyond the log, or garbage.
  for (const char* hint : {"{\"version\":7,\"size\":13}", "{\"version\":999,\"size\":1}",
                           "{\"version\":-3}", "not json", ""}) {
    WriteAll(t.log("_last_checkpoint"), hint);
    auto r = Snapshot::Load(fs.get(), t.root());
    ASSERT_TRUE(r.ok()) << hint << ": " << r.status().ToString();
    EXPECT_EQ((*r)->version(), 10) << hint;
    EXPECT_EQ((*r)->files().size(), (*good)->files().size()) << hint;
  }
}

// ---- deletion vectors --------------------------------------------------------------------

// Loads the DV table at `root`; returns the status of loading its single file's DV.
Status LoadOnlyDv(const std::string& root) {
  auto fs = io::NewLocalFileSystem();
  auto snap = Snapshot::Load(fs.get(), root);
  if (!snap.ok()) return snap.status();
  if ((*snap)->files().size() != 1 || !(*snap)->files()[0].deletion_vector) {
    return Status::Internal("expected one file with a deletion vector");
  }
  auto dv = LoadDeletionVector(fs.get(), (*snap)->table_root(), *(*snap)->files()[0].deletion_vector);
  return dv.ok() ? Status::OK() : dv.status();
}

// The DV of table-with-dv-small sits at offset 1: [1 version byte][4 size][36 bitmap][4 crc].
constexpr size_t kDvOffset = 1;
constexpr size_t kDvSize = 36;

void FlipByte(const std::string& path, size_t at) {
  std::string bytes = ReadAll(path);
  ASSERT_LT(at, bytes.size());
  bytes[at] = static_cast<char>(bytes[at] ^ 0x40);
  WriteAll(path, bytes);
}

TEST(MalformedDvTest, IntactTableLoads) {
  TempTable t(KernelTable(kDvSmall));
  EXPECT_TRUE(LoadOnlyDv(t.root()).ok()) << LoadOnlyDv(t.root()).ToString();
  EXPECT_EQ(fsys::file_size(t.root() + "/" + kDvFile), kDvOffset + 4 + kDvSize + 4);
}

TEST(MalformedDvTest, WrongChecksumIsCorruptionNamingTheFile) {
  for (size_t at : {kDvOffset + 4 + 10, kDvOffset + 4 + kDvSize + 2}) {  // a bitmap byte, a CRC byte
    TempTable t(KernelTable(kDvSmall));
    FlipByte(t.root() + "/" + kDvFile, at);
    ExpectError(LoadOnlyDv(t.root()), StatusCode::kCorruption, {kDvFile, "offset 1", "checksum mismatch"});
  }
}

TEST(MalformedDvTest, WrongSizePrefixIsCorruption) {
  TempTable t(KernelTable(kDvSmall));
  FlipByte(t.root() + "/" + kDvFile, kDvOffset + 3);
  ExpectError(LoadOnlyDv(t.root()), StatusCode::kCorruption, {kDvFile, "size", "36"});
}

TEST(MalformedDvTest, TruncatedDvFileIsCorruption) {
  TempTable t(KernelTable(kDvSmall));
  fsys::resize_file(t.root() + "/" + kDvFile, kDvOffset + 4 + kDvSize);  // CRC gone
  ExpectError(LoadOnlyDv(t.root()), StatusCode::kCorruption, {kDvFile, "past the end"});
}

// Rewrites the single add's deletionVector field `key` (a JSON number) to `value`.
void EditDvDescriptor(const TempTable& t, const std::string& key, const std::string& value) {
  const std::string commit = t.log("00000000000000000001.json");
  std::string text = ReadAll(commit);
  const std::string needle = "\"" + key + "\":";
  size_t at = text.find(needle, text.find("\"deletionVector\""));
  ASSERT_NE(at, std::string::npos) << key;
  at += needle.size();
  size_t end = text.find_first_of(",}", at);
  text.replace(at, end - at, value);
  WriteAll(commit, text);
}

TEST(MalformedDvTest, OffsetBeyondTheFileIsCorruption) {
  for (const char* offset : {"45", "4096", "2147483647"}) {
    TempTable t(KernelTable(kDvSmall));
    EditDvDescriptor(t, "offset", offset);
    SCOPED_TRACE(offset);
    ExpectError(LoadOnlyDv(t.root()), StatusCode::kCorruption,
                {kDvFile, std::string("offset ") + offset, "past the end"});
  }
}

TEST(MalformedDvTest, DescriptorSizeMismatchIsCorruption) {
  TempTable t(KernelTable(kDvSmall));
  EditDvDescriptor(t, "sizeInBytes", "32");
  ExpectError(LoadOnlyDv(t.root()), StatusCode::kCorruption, {kDvFile, "size 36", "32"});
}

TEST(MalformedDvTest, CardinalityMismatchIsCorruption) {
  TempTable t(KernelTable(kDvSmall));
  EditDvDescriptor(t, "cardinality", "3");
  ExpectError(LoadOnlyDv(t.root()), StatusCode::kCorruption, {kDvFile, "holds 2 rows", "says 3"});
}

TEST(MalformedDvTest, OutOfRangeDescriptorFieldsAreCorruptionAtLoad) {
  for (auto [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"offset", "-1"}, {"sizeInBytes", "-5"}, {"cardinality", "-1"}, {"offset", "4294967296"}}) {
    TempTable t(KernelTable(kDvSmall));
    EditDvDescriptor(t, key, value);
    SCOPED_TRACE(key + "=" + value);
    ExpectError(LoadStatus(t.root()), StatusCode::kCorruption,
                {"_delta_log/00000000000000000001.json", "deletion"});
  }
}

TEST(MalformedDvTest, MissingDvFileIsNotFound) {
  TempTable t(KernelTable(kDvSmall));
  fsys::remove(t.root() + "/" + kDvFile);
  ExpectError(LoadOnlyDv(t.root()), StatusCode::kNotFound, {kDvFile});
}

// An add with an inline DV (PROTOCOL.md's example: rows 3, 4, 7, 11, 18, 29) on top of
// simple_table; `z85` replaces the DV text.
std::string InlineDvTable(const TempTable& t, const std::string& z85, int size, int cardinality) {
  const std::string live = "part-00000-2befed33-c358-4768-a43c-3eda0d2a499d-c000.snappy.parquet";
  WriteAll(t.log("00000000000000000005.json"),
           "{\"remove\":{\"path\":\"" + live + "\",\"deletionTimestamp\":1,\"dataChange\":true}}\n"
           "{\"add\":{\"path\":\"" + live + "\",\"partitionValues\":{},\"size\":262,"
           "\"modificationTime\":1,\"dataChange\":true,\"deletionVector\":{\"storageType\":\"i\","
           "\"pathOrInlineDv\":\"" + z85 + "\",\"sizeInBytes\":" + std::to_string(size) +
           ",\"cardinality\":" + std::to_string(cardinality) + "}}}\n");
  return t.root();
}

Status LoadDvOf(const std::string& root, const std::string& data_file) {
  auto fs = io::NewLocalFileSystem();
  auto snap = Snapshot::Load(fs.get(), root);
  if (!snap.ok()) return snap.status();
  for (const auto& f : (*snap)->files()) {
    if (f.path != data_file) continue;
    if (!f.deletion_vector) return Status::Internal("no deletion vector");
    auto dv = LoadDeletionVector(fs.get(), (*snap)->table_root(), *f.deletion_vector);
    return dv.ok() ? Status::OK() : dv.status();
  }
  return Status::Internal("file not found");
}

TEST(MalformedDvTest, InlineDvWithBadZ85IsCorruption) {
  const std::string live = "part-00000-2befed33-c358-4768-a43c-3eda0d2a499d-c000.snappy.parquet";
  const std::string good = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
  {
    TempTable t(DeltaRsTable(kSimple));
    Status st = LoadDvOf(InlineDvTable(t, good, 40, 6), live);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  struct Case { std::string z85; int size; int cardinality; const char* needle; };
  const Case cases[] = {
      {good + "~", 40, 6, "not a multiple of 5"},
      {good.substr(0, 49) + "~", 40, 6, "invalid character"},
      {good.substr(0, 49) + "\\\"", 40, 6, "invalid character"},  // JSON-escaped '"'
      {good, 40, 5, "says 5"},
      {good, 48, 6, "sizeInBytes 48"},
      {"00000" + good.substr(5), 40, 6, "magic"},
  };
  for (const Case& c : cases) {
    TempTable t(DeltaRsTable(kSimple));
    SCOPED_TRACE(c.z85);
    ExpectError(LoadDvOf(InlineDvTable(t, c.z85, c.size, c.cardinality), live), StatusCode::kCorruption,
                {"inline deletion vector", c.needle});
  }
}

// Hand-made RoaringBitmapArrays (portable format: magic, bucket count, key 0, then one
// 32-bit roaring bitmap), most of which CRoaring 0.2 accepts although they are malformed.
// The fuzzer found the unsorted array (KeepMask over it wrote outside its mask) and the
// run container without runs (a null dereference in CRoaring's iterator).
std::string Le16(uint16_t v) { return {static_cast<char>(v), static_cast<char>(v >> 8)}; }
std::string Le32(uint32_t v) { return Le16(static_cast<uint16_t>(v)) + Le16(static_cast<uint16_t>(v >> 16)); }

std::string OneBucket(const std::string& roaring) {
  return Le32(1681511377) + Le32(1) + Le32(0) + Le32(0) + roaring;
}
// No run containers: cookie 12346, one container (key 0) whose body is `body`.
std::string ArrayOrBitset(uint16_t cardinality, const std::string& body) {
  return Le32(12346) + Le32(1) + Le16(0) + Le16(static_cast<uint16_t>(cardinality - 1)) + Le32(16) + body;
}
// One run container (key 0): cookie 12347 with size-1 = 0, run flags, then the runs.
std::string Runs(uint16_t cardinality, const std::vector<std::pair<uint16_t, uint16_t>>& runs) {
  std::string s = Le32(12347) + std::string(1, '\x01') + Le16(0) +
                  Le16(static_cast<uint16_t>(cardinality - 1)) + Le16(static_cast<uint16_t>(runs.size()));
  for (auto [start, len_minus_1] : runs) s += Le16(start) + Le16(len_minus_1);
  return s;
}

TEST(MalformedDvTest, MalformedRoaringContainersAreCorruption) {
  auto parse = [](const std::string& roaring) {
    return DeletionVector::Deserialize(AsBytes(OneBucket(roaring)));
  };
  // Well-formed controls.
  auto ok_array = parse(ArrayOrBitset(2, Le16(3) + Le16(5)));
  ASSERT_TRUE(ok_array.ok()) << ok_array.status().ToString();
  EXPECT_EQ(ok_array->ToVector(), (std::vector<uint64_t>{3, 5}));
  auto ok_runs = parse(Runs(20, {{0, 9}, {20, 9}}));
  ASSERT_TRUE(ok_runs.ok()) << ok_runs.status().ToString();
  EXPECT_EQ(ok_runs->cardinality(), 20u);

  std::string sparse_bitset(8192, '\0');
  sparse_bitset[0] = 0x07;  // rows 0, 1, 2, but the header claims 5000
  const std::pair<const char*, std::string> bad[] = {
      {"unsorted array", ArrayOrBitset(2, Le16(5) + Le16(3))},
      {"duplicate array values", ArrayOrBitset(3, Le16(3) + Le16(3) + Le16(4))},
      {"overlapping runs", Runs(20, {{0, 9}, {5, 9}})},
      {"run past 0xFFFF", Runs(21, {{65530, 20}})},
      {"bitset cardinality mismatch", ArrayOrBitset(5000, sparse_bitset)},
      {"run container without runs", Runs(1, {})},  // CRoaring's iterator read null here
      {"run cardinality mismatch", Runs(7, {{0, 9}})},
      {"keys not ascending", Le32(12346) + Le32(2) + Le16(5) + Le16(0) + Le16(2) + Le16(0) +
                                 Le32(24) + Le32(26) + Le16(1) + Le16(1)},
      {"truncated array", ArrayOrBitset(3, Le16(1) + Le16(2))},
      {"unknown cookie", Le32(4242) + Le32(0)},
  };
  for (const auto& [what, roaring] : bad) {
    SCOPED_TRACE(what);
    auto r = parse(roaring);
    ExpectError(r.status(), StatusCode::kCorruption, {"malformed roaring bitmap"});
  }
}

// ---- paths escaping the table root --------------------------------------------------------

TEST(MalformedLogTest, AddPathsEscapingTheRootAreCorruption) {
  TempTable probe(DeltaRsTable(kSimple));
  const std::string outside_dir = fsys::path(probe.root()).parent_path().string();
  struct Case { std::string path; const char* problem; };
  const Case cases[] = {
      {"../outside.parquet", "escapes the table root"},
      {"a/../../outside.parquet", "escapes the table root"},
      {"%2E%2E/outside.parquet", "escapes the table root"},  // percent-encoded ".."
      {"%2e%2e/%2E%2E/outside.parquet", "escapes the table root"},
  };
  for (const Case& c : cases) {
    TempTable t(DeltaRsTable(kSimple));
    WriteAll(t.log("00000000000000000005.json"),
             "{\"add\":{\"path\":\"" + c.path +
                 "\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n");
    SCOPED_TRACE(c.path);
    ExpectError(LoadStatus(t.root()), StatusCode::kCorruption,
                {"_delta_log/00000000000000000005.json", c.problem});
  }
  // Absolute paths outside the root are what PROTOCOL.md allows (shallow clones): they
  // load, live under their canonical absolute key, and a scan of them fails naming the
  // missing file rather than the log.
  const std::pair<std::string, std::string> absolute[] = {
      {"/etc/passwd", "/etc/passwd"},
      {outside_dir + "/outside.parquet", outside_dir + "/outside.parquet"},
      {"file://" + outside_dir + "/outside.parquet", outside_dir + "/outside.parquet"},
      {"file:/etc/passwd", "/etc/passwd"},
      {"s3://bucket/outside.parquet", "s3://bucket/outside.parquet"},
      {probe.root() + "x/y.parquet", probe.root() + "x/y.parquet"},  // a sibling sharing the prefix
  };
  for (const auto& [path, key] : absolute) {
    TempTable t(DeltaRsTable(kSimple));
    WriteAll(t.log("00000000000000000005.json"),
             "{\"add\":{\"path\":\"" + path +
                 "\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n");
    SCOPED_TRACE(path);
    auto fs = io::NewLocalFileSystem();
    auto snap = Snapshot::Load(fs.get(), t.root());
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    int found = 0;
    for (const auto& f : (*snap)->files()) found += f.path == key;
    EXPECT_EQ(found, 1);
  }
  // An absolute path inside the root is fine and becomes relative.
  TempTable t(DeltaRsTable(kSimple));
  WriteAll(t.log("00000000000000000005.json"),
           "{\"add\":{\"path\":\"" + t.root() +
               "/sub/inside.parquet\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n");
  auto fs = io::NewLocalFileSystem();
  auto snap = Snapshot::Load(fs.get(), t.root());
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  bool found = false;
  for (const auto& f : (*snap)->files()) found = found || f.path == "sub/inside.parquet";
  EXPECT_TRUE(found);
}

// Reconciliation compares canonical paths: an add outside the root that a newer remove
// cancels (under any spelling: /x, file:/x, file:///x, ../x) is not live, so the load
// succeeds; the same add left live is a file of the table when its path is absolute, and
// Corruption when it is a relative path escaping the root.
TEST(MalformedLogTest, RemovedPathsOutsideTheRootAreReconciledCanonically) {
  struct Case { std::string add; std::string remove; };
  const Case cases[] = {
      {"/some/abs/path", "file:/some/abs/path"},
      {"/some/abs/path", "file:///some/abs/path"},
      {"/some/with%20space/p@%23h", "file:///some/with%20space/p@%23h"},
      {"file:/some/abs/path", "/some/abs/path"},
      {"../outside.parquet", "<parent>/outside.parquet"},  // resolved against the root
      {"s3://bucket/x.parquet", "s3://bucket/x.parquet"},
  };
  auto fs = io::NewLocalFileSystem();
  for (Case c : cases) {
    TempTable t(DeltaRsTable(kSimple));
    const std::string parent = fsys::path(t.root()).parent_path().string();
    if (c.remove.rfind("<parent>", 0) == 0) c.remove = parent + c.remove.substr(8);
    SCOPED_TRACE(c.add + " / " + c.remove);
    auto before = Snapshot::Load(fs.get(), t.root());  // v4: before the add
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    WriteAll(t.log("00000000000000000005.json"),
             "{\"add\":{\"path\":\"" + c.add +
                 "\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n");
    WriteAll(t.log("00000000000000000006.json"),
             "{\"remove\":{\"path\":\"" + c.remove + "\",\"deletionTimestamp\":2,\"dataChange\":true}}\n");
    auto snap = Snapshot::Load(fs.get(), t.root());
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    EXPECT_EQ((*snap)->files().size(), (*before)->files().size());
    for (const auto& f : (*snap)->files()) EXPECT_EQ(f.path.find("outside"), std::string::npos);
    // At version 5 the add is live: an absolute path is a file of the table (PROTOCOL.md),
    // a relative one escaping the root is Corruption.
    auto at5 = Snapshot::Load(fs.get(), t.root(), VersionSpec::AtVersion(5));
    if (IsAbsoluteActionPath(c.add)) {
      ASSERT_TRUE(at5.ok()) << at5.status().ToString();
      EXPECT_EQ((*at5)->files().size(), (*before)->files().size() + 1);
    } else {
      ExpectError(LoadStatus(t.root(), VersionSpec::AtVersion(5)), StatusCode::kCorruption,
                  {"_delta_log/00000000000000000005.json", "the table root"});
    }
  }
}

}  // namespace
}  // namespace lithify::delta
