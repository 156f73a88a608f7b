// Generates the _delta_log of a large Delta table (no data files) for the replay
// benchmark (bench/replay_bench.mjs).
//
//   gen_delta_log DIR [--files N=1000000] [--commits K=10] [--per-commit A=2000]
//                     [--tombstones T=20000]
// `gen_delta_log --remove URI` deletes every object under URI instead.
// DIR may be an s3:// URI (the S3 backend from the environment, as the CLI reads it),
// so that bench/s3_bench.mjs replays the same log from an object store.
//
// Layout, shaped like a Spark-written, date-partitioned table:
//   - a classic Parquet checkpoint at version V=100 (snappy, Delta's checkpoint schema:
//     txn/add/remove/metaData/protocol structs, partitionValues and tags as MAPs, the
//     deletionVector struct) holding protocol, metaData, N adds with JSON stats
//     (numRecords, minValues/maxValues/nullCount of 4 columns) and T remove tombstones;
//   - `_last_checkpoint`;
//   - K commits V+1..V+K, each: commitInfo, A adds, A removes of checkpoint files, and
//     A/10 deletion-vector updates (remove path without DV + add path with a DV).
// The live file count at V+K is exactly N. Prints {"version":..,"numFiles":..,
// "sizeInBytes":..} computed here so the benchmark can check both engines.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "lithify/base/civil_time.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/registry.h"
#include "lithify/io/s3/s3_filesystem.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema_builder.h"

using namespace lithify;
using parquet::FieldSpec;
using PV = parquet::Value;

namespace {

struct Rng {
  uint64_t s;
  uint64_t Next() {  // splitmix64: deterministic output for a cached benchmark table
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

std::string Uuid(uint64_t a, uint64_t b) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff) | 0x4000,
                static_cast<unsigned>(b >> 48 & 0x3fff) | 0x8000,
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return buf;
}

std::string Date(int day) {  // 2022-01-01 + day, civil-from-days
  const CivilDate c = CivilFromDays(DaysFromCivil(2022, 1, 1) + day);
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", static_cast<int>(c.year),
                static_cast<int>(c.month), static_cast<int>(c.day));
  return buf;
}

struct File {
  std::string date;
  std::string path;
  int64_t size;
  std::string stats;
};

constexpr int kDays = 1000;

File MakeFile(Rng& rng, int64_t i) {
  File f;
  f.date = Date(static_cast<int>(i % kDays));
  f.path = "date=" + f.date + "/part-" + [&] {
    char b[8];
    std::snprintf(b, sizeof b, "%05d", static_cast<int>(rng.Next() % 200));
    return std::string(b);
  }() + "-" + Uuid(rng.Next(), rng.Next()) + "-c000.snappy.parquet";
  f.size = 50'000'000 + static_cast<int64_t>(rng.Next() % 100'000'000);
  int64_t rows = 100'000 + static_cast<int64_t>(rng.Next() % 900'000);
  int64_t id0 = i * 1'000'000;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"numRecords\":%" PRId64 ",\"minValues\":{\"id\":%" PRId64
                ",\"ts\":\"%sT00:00:01.000Z\",\"amount\":%.2f,\"customer\":\"cust-%05d\"},"
                "\"maxValues\":{\"id\":%" PRId64 ",\"ts\":\"%sT23:59:58.000Z\",\"amount\":%.2f,"
                "\"customer\":\"cust-%05d\"},\"nullCount\":{\"id\":0,\"ts\":0,\"amount\":%d,\"customer\":%d}}",
                rows, id0, f.date.c_str(), static_cast<double>(rng.Next() % 1000) / 100.0,
                static_cast<int>(rng.Next() % 50000), id0 + rows - 1, f.date.c_str(),
                1000.0 + static_cast<double>(rng.Next() % 100000) / 100.0, 50000 + static_cast<int>(rng.Next() % 49999),
                static_cast<int>(rng.Next() % 10), static_cast<int>(rng.Next() % 3));
  f.stats = buf;
  return f;
}

const char* kSchemaString =
    "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"ts\",\"type\":\"timestamp\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"amount\",\"type\":\"double\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"customer\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"date\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}";

constexpr int64_t kBaseTime = 1'700'000'000'000;

std::vector<FieldSpec> CheckpointSchema() {
  auto smap = [](std::string n) {
    return FieldSpec::Map(std::move(n), FieldSpec::String("key", false), FieldSpec::String("value"));
  };
  auto dv = [] {
    return FieldSpec::Struct("deletionVector",
                             {FieldSpec::String("storageType"), FieldSpec::String("pathOrInlineDv"),
                              FieldSpec::Int("offset"), FieldSpec::Int("sizeInBytes"),
                              FieldSpec::Long("cardinality"), FieldSpec::Long("maxRowIndex")});
  };
  return {
      FieldSpec::Struct("txn", {FieldSpec::String("appId"), FieldSpec::Long("version"), FieldSpec::Long("lastUpdated")}),
      FieldSpec::Struct("add", {FieldSpec::String("path"), smap("partitionValues"), FieldSpec::Long("size"),
                                FieldSpec::Long("modificationTime"), FieldSpec::Boolean("dataChange"),
                                FieldSpec::String("stats"), smap("tags"), dv(), FieldSpec::Long("baseRowId"),
                                FieldSpec::Long("defaultRowCommitVersion"), FieldSpec::String("clusteringProvider")}),
      FieldSpec::Struct("remove", {FieldSpec::String("path"), FieldSpec::Long("deletionTimestamp"),
                                   FieldSpec::Boolean("dataChange"), FieldSpec::Boolean("extendedFileMetadata"),
                                   smap("partitionValues"), FieldSpec::Long("size"), dv(),
                                   FieldSpec::Long("baseRowId"), FieldSpec::Long("defaultRowCommitVersion")}),
      FieldSpec::Struct("metaData", {FieldSpec::String("id"), FieldSpec::String("name"),
                                     FieldSpec::String("description"),
                                     FieldSpec::Struct("format", {FieldSpec::String("provider"), smap("options")}),
                                     FieldSpec::String("schemaString"),
                                     FieldSpec::List("partitionColumns", FieldSpec::String("element")),
                                     smap("configuration"), FieldSpec::Long("createdTime")}),
      FieldSpec::Struct("protocol", {FieldSpec::Int("minReaderVersion"), FieldSpec::Int("minWriterVersion"),
                                     FieldSpec::List("readerFeatures", FieldSpec::String("element")),
                                     FieldSpec::List("writerFeatures", FieldSpec::String("element"))}),
  };
}

PV Map1(const std::string& k, const std::string& v) { return PV::Map({{PV::String(k), PV::String(v)}}); }

std::vector<PV> Row(int which, PV v) {
  std::vector<PV> r(5);
  r[which] = std::move(v);
  return r;
}


int Fail(const Status& st) {
  std::fprintf(stderr, "gen_delta_log: %s\n", st.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // Cleanup for benchmarks on an object store: deletes every object under URI.
  if (argc == 3 && !std::strcmp(argv[1], "--remove")) {
    io::s3::RegisterS3FileSystem();
    auto opened = io::OpenFileSystem(argv[2]);
    if (!opened.ok()) return Fail(opened.status());
    auto all = opened->fs->ListRecursive(opened->path);
    if (!all.ok()) return Fail(all.status());
    std::vector<std::string> paths;
    for (const auto& f : *all) paths.push_back(f.path);
    Status st = opened->fs->DeleteMany(paths);
    if (!st.ok()) return Fail(st);
    std::printf("{\"removed\":%zu}\n", paths.size());
    return 0;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: gen_delta_log DIR [--files N] [--commits K] [--per-commit A] [--tombstones T]\n");
    return 2;
  }
  std::string dir = argv[1];
  int64_t n = 1'000'000, k = 10, per = 2000, tomb = 20000;
  for (int i = 2; i + 1 < argc; i += 2) {
    int64_t v = std::strtoll(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--files")) n = v;
    else if (!std::strcmp(argv[i], "--commits")) k = v;
    else if (!std::strcmp(argv[i], "--per-commit")) per = v;
    else if (!std::strcmp(argv[i], "--tombstones")) tomb = v;
    else { std::fprintf(stderr, "unknown flag %s\n", argv[i]); return 2; }
  }
  if (per * k > n) { std::fprintf(stderr, "per-commit * commits must be <= files\n"); return 2; }
  const int64_t v0 = 100;
  const std::string log = dir + "/_delta_log";
  io::s3::RegisterS3FileSystem();
  auto opened = io::OpenFileSystem(dir);
  if (!opened.ok()) return Fail(opened.status());
  std::shared_ptr<io::FileSystem> fs = opened->fs;
  if (dir.find("://") == std::string::npos) std::filesystem::create_directories(log);
  Rng rng{42};

  // Live state as the generator knows it: index -> file (checkpoint files), removed flags.
  std::vector<File> files;
  files.reserve(n);
  for (int64_t i = 0; i < n; ++i) files.push_back(MakeFile(rng, i));

  // ---- checkpoint
  {
    auto schema = parquet::BuildSchema(CheckpointSchema());
    if (!schema.ok()) return Fail(schema.status());
    char name[64];
    std::snprintf(name, sizeof name, "/%020" PRId64 ".checkpoint.parquet", v0);
    auto out = fs->Create(log + name);
    if (!out.ok()) return Fail(out.status());
    parquet::WriterOptions wo;
    wo.codec = parquet::CompressionCodec::kSnappy;
    auto w = parquet::FileWriter::Open(std::move(*out), *schema, wo);
    if (!w.ok()) return Fail(w.status());
    parquet::RowBatchBuilder b((*w)->schema());
    auto flush = [&]() -> Status {
      if (b.num_rows() == 0) return Status::OK();
      return (*w)->WriteBatch(b.Finish());
    };
    Status st = b.Append(Row(4, PV::Struct({PV::Int(1), PV::Int(2), PV::Null(), PV::Null()})));
    if (st.ok()) {
      st = b.Append(Row(3, PV::Struct({PV::String(Uuid(7, 7)), PV::Null(), PV::Null(),
                                       PV::Struct({PV::String("parquet"), PV::Map({})}), PV::String(kSchemaString),
                                       PV::List({PV::String("date")}),
                                       Map1("delta.checkpoint.writeStatsAsStruct", "false"), PV::Int(kBaseTime)})));
    }
    if (st.ok()) st = b.Append(Row(0, PV::Struct({PV::String("streaming-app"), PV::Int(v0), PV::Int(kBaseTime)})));
    for (int64_t i = 0; st.ok() && i < n; ++i) {
      const File& f = files[i];
      st = b.Append(Row(1, PV::Struct({PV::String(f.path), Map1("date", f.date), PV::Int(f.size),
                                       PV::Int(kBaseTime + i), PV::Bool(false), PV::String(f.stats), PV::Null(),
                                       PV::Null(), PV::Null(), PV::Null(), PV::Null()})));
      if (st.ok() && b.num_rows() >= 8192) st = flush();
    }
    for (int64_t i = 0; st.ok() && i < tomb; ++i) {
      File t = MakeFile(rng, n + i);
      st = b.Append(Row(2, PV::Struct({PV::String(t.path), PV::Int(kBaseTime - 1000 + i), PV::Bool(true),
                                       PV::Bool(true), Map1("date", t.date), PV::Int(t.size), PV::Null(),
                                       PV::Null(), PV::Null()})));
      if (st.ok() && b.num_rows() >= 8192) st = flush();
    }
    if (st.ok()) st = flush();
    if (!st.ok()) return Fail(st);
    auto meta = (*w)->Close();
    if (!meta.ok()) return Fail(meta.status());
    std::string last = "{\"version\":" + std::to_string(v0) + ",\"size\":" + std::to_string(n + tomb + 3) + "}";
    st = fs->WriteFile(log + "/_last_checkpoint", ByteView(reinterpret_cast<const uint8_t*>(last.data()), last.size()));
    if (!st.ok()) return Fail(st);
  }

  // ---- commits
  int64_t live = n, bytes = 0;
  for (const File& f : files) bytes += f.size;
  int64_t next = n + tomb;  // file numbering for new files
  int64_t victim = 0;       // checkpoint files are removed in a scattered order
  for (int64_t c = 1; c <= k; ++c) {
    const int64_t version = v0 + c;
    const int64_t ts = kBaseTime + c * 60'000;
    std::string text = "{\"commitInfo\":{\"timestamp\":" + std::to_string(ts) +
                       ",\"operation\":\"WRITE\",\"operationParameters\":{\"mode\":\"Append\"},"
                       "\"isBlindAppend\":false}}\n";
    for (int64_t j = 0; j < per; ++j) {
      // Remove a checkpoint file: scattered over the table.
      int64_t idx = (victim++ * 7919) % n;
      File& old = files[idx];
      if (old.size < 0) continue;  // already removed (cannot happen with 7919 prime to n... usually)
      text += "{\"remove\":{\"path\":\"" + old.path + "\",\"deletionTimestamp\":" + std::to_string(ts) +
              ",\"dataChange\":true,\"extendedFileMetadata\":true,\"partitionValues\":{\"date\":\"" + old.date +
              "\"},\"size\":" + std::to_string(old.size) + "}}\n";
      bytes -= old.size;
      old.size = -1;
      --live;
      File f = MakeFile(rng, next++);
      text += "{\"add\":{\"path\":\"" + f.path + "\",\"partitionValues\":{\"date\":\"" + f.date +
              "\"},\"size\":" + std::to_string(f.size) + ",\"modificationTime\":" + std::to_string(ts) +
              ",\"dataChange\":true,\"stats\":\"" + [&] {
                std::string e;
                for (char ch : f.stats) { if (ch == '"') e += '\\'; e += ch; }
                return e;
              }() + "\"}}\n";
      bytes += f.size;
      ++live;
    }
    // DV updates of checkpoint files: remove (no DV) + add with a DV on the same path.
    for (int64_t j = 0; j < per / 10; ++j) {
      int64_t idx = (victim++ * 7919) % n;
      File& f = files[idx];
      if (f.size < 0) continue;
      text += "{\"remove\":{\"path\":\"" + f.path + "\",\"deletionTimestamp\":" + std::to_string(ts) +
              ",\"dataChange\":true,\"size\":" + std::to_string(f.size) + "}}\n";
      std::string dvid = Uuid(rng.Next(), rng.Next());
      // 'u' storage: <prefix (0..)><20-char z85 UUID>; any 20 Z85 characters are valid here.
      std::string z85 = "ab^-aqEH.-t@S}K{vb[*";
      z85[0] = "0123456789abcdefghij"[j % 20];
      z85[1] = "klmnopqrstuvwxyzABCD"[(j / 20) % 20];
      z85[2] = "EFGHIJKLMNOPQRSTUVWX"[c % 20];
      text += "{\"add\":{\"path\":\"" + f.path + "\",\"partitionValues\":{\"date\":\"" + f.date +
              "\"},\"size\":" + std::to_string(f.size) + ",\"modificationTime\":" + std::to_string(ts) +
              ",\"dataChange\":true,\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"" + z85 +
              "\",\"offset\":1,\"sizeInBytes\":36,\"cardinality\":" + std::to_string(1 + j % 50) + "}}}\n";
    }
    char name[64];
    std::snprintf(name, sizeof name, "/%020" PRId64 ".json", version);
    Status st = fs->WriteFile(log + name, ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    if (!st.ok()) return Fail(st);
  }
  std::printf("{\"version\":%" PRId64 ",\"numFiles\":%" PRId64 ",\"sizeInBytes\":%" PRId64 "}\n", v0 + k, live,
              bytes);
  return 0;
}
