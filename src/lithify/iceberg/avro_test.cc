// The Avro container reader over every manifest list and manifest in the corpus, and
// over damaged copies of them: bad sync markers, unknown codecs and every truncation
// must give Corruption/NotSupported naming the file, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <set>

#include "lithify/base/macros.h"
#include "lithify/iceberg/avro.h"
#include "lithify_test_paths.h"

namespace lithify::iceberg::avro {
namespace {

std::string Corpus() { return std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus"; }

std::vector<std::string> CorpusAvroFiles() {
  std::vector<std::string> out;
  for (const char* src : {"/duckdb-iceberg", "/impala"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(Corpus() + src)) {
      if (e.is_regular_file() && e.path().extension() == ".avro") out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<size_t> CountRecords(std::unique_ptr<io::RandomAccessFile> file) {
  LITHIFY_ASSIGN_OR_RETURN(auto r, ContainerReader::Open(std::move(file)));
  size_t n = 0;
  Value v;
  for (;;) {
    LITHIFY_ASSIGN_OR_RETURN(bool more, r->Next(&v));
    if (!more) return n;
    ++n;
  }
}

TEST(Avro, EveryCorpusManifestDecodes) {
  auto fs = io::NewLocalFileSystem();
  std::vector<std::string> files = CorpusAvroFiles();
  ASSERT_GT(files.size(), 100u);
  std::set<std::string> codecs;
  for (const std::string& f : files) {
    auto r = ContainerReader::Open(fs.get(), f);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    codecs.insert((*r)->Meta("avro.codec").value_or("null"));
    Value v;
    size_t n = 0;
    for (;;) {
      Result<bool> more = (*r)->Next(&v);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      ASSERT_EQ(v.kind, Kind::kRecord) << f;
      ++n;
    }
    // Every manifest list / manifest here lists something.
    EXPECT_GT(n, 0u) << f;
  }
  EXPECT_TRUE(codecs.count("deflate")) << "the corpus has deflate manifests";
}

TEST(Avro, ManifestEntryFieldsById) {
  auto fs = io::NewLocalFileSystem();
  for (const std::string& f : CorpusAvroFiles()) {
    if (f.find("/snap-") != std::string::npos) continue;  // manifest lists
    auto r = ContainerReader::Open(fs.get(), f);
    ASSERT_TRUE(r.ok());
    Value v;
    ASSERT_TRUE((*r)->Next(&v).ok());
    const Schema& s = (*r)->schema();
    const Value* status = v.Field(s, 0, "status");
    ASSERT_NE(status, nullptr) << f;
    EXPECT_GE(status->i, 0);
    EXPECT_LE(status->i, 2);
    const Value* file = v.Field(s, 2, "data_file");
    ASSERT_NE(file, nullptr) << f;
    const Value* path = file->Field(s, 100, "file_path");
    ASSERT_NE(path, nullptr) << f;
    EXPECT_FALSE(path->s.empty());
    EXPECT_TRUE((*r)->Meta("partition-spec").has_value()) << f;
    return;  // one is enough for the shape; the corpus conformance test reads them all
  }
}

Buffer ReadAll(const std::string& f) {
  auto fs = io::NewLocalFileSystem();
  return *fs->ReadFile(f);
}

std::unique_ptr<io::RandomAccessFile> Bytes(const std::string& name, ByteView b) {
  return io::NewBufferFile(name, Buffer::CopyOf(b));
}

TEST(Avro, BadSyncMarkerIsCorruptionNamingTheFile) {
  std::string f = CorpusAvroFiles().front();
  Buffer b = ReadAll(f);
  std::vector<uint8_t> bytes(b.data(), b.data() + b.size());
  bytes.back() ^= 0xFF;  // the last block's sync marker
  Result<size_t> n = CountRecords(Bytes("damaged.avro", bytes));
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsCorruption()) << n.status().ToString();
  EXPECT_NE(n.status().message().find("damaged.avro"), std::string::npos);
  EXPECT_NE(n.status().message().find("sync marker"), std::string::npos) << n.status().ToString();
}

TEST(Avro, UnknownCodecIsNotSupported) {
  for (const std::string& f : CorpusAvroFiles()) {
    Buffer b = ReadAll(f);
    std::string s(AsStringView(b.view()));
    size_t at = s.find("deflate");
    if (at == std::string::npos) continue;
    s.replace(at, 7, "brotli!");
    Result<size_t> n = CountRecords(Bytes("codec.avro", AsBytes(s)));
    ASSERT_FALSE(n.ok());
    EXPECT_TRUE(n.status().IsNotSupported()) << n.status().ToString();
    EXPECT_NE(n.status().message().find("brotli!"), std::string::npos);
    EXPECT_NE(n.status().message().find("codec.avro"), std::string::npos);
    return;
  }
  FAIL() << "no deflate file in the corpus";
}

TEST(Avro, EveryTruncationFailsCleanly) {
  std::vector<std::string> files = CorpusAvroFiles();
  // A manifest list and a manifest, both small enough to cut at every byte.
  int done = 0;
  for (const std::string& f : files) {
    Buffer b = ReadAll(f);
    if (b.size() > 12000) continue;
    Result<size_t> full = CountRecords(Bytes("whole.avro", b.view()));
    ASSERT_TRUE(full.ok());
    for (size_t len = 0; len < b.size(); ++len) {
      // A cut right after the header is a valid file without blocks; any other cut fails.
      Result<size_t> n = CountRecords(Bytes("cut.avro", b.view().first(len)));
      if (n.ok()) {
        EXPECT_EQ(*n, 0u) << f << " cut at " << len;
        continue;
      }
      EXPECT_TRUE(n.status().IsCorruption() || n.status().IsNotSupported()) << n.status().ToString();
      EXPECT_NE(n.status().message().find("cut.avro"), std::string::npos) << n.status().ToString();
    }
    if (++done == 2) break;
  }
  EXPECT_EQ(done, 2);
}

TEST(Avro, HostileVarintsAndCounts) {
  Result<Schema> s = Schema::Parse(R"({"type":"array","items":"long"})");
  ASSERT_TRUE(s.ok());
  Value v;
  // A 2^40 item count with three bytes left.
  std::vector<uint8_t> huge = {0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 2, 4, 6};
  ByteView in(huge);
  EXPECT_TRUE(Decode(*s, s->root(), &in, &v).IsCorruption());
  // An 11-byte varint.
  std::vector<uint8_t> longv(11, 0x80);
  in = ByteView(longv);
  Result<Schema> l = Schema::Parse(R"("long")");
  EXPECT_TRUE(Decode(*l, l->root(), &in, &v).IsCorruption());
  // A string longer than the input.
  Result<Schema> str = Schema::Parse(R"("string")");
  std::vector<uint8_t> sb = {0x20, 'a'};
  in = ByteView(sb);
  EXPECT_TRUE(Decode(*str, str->root(), &in, &v).IsCorruption());
  // Schemas.
  EXPECT_TRUE(Schema::Parse(R"({"type":"record","name":"r","fields":[{"name":"a","type":"nope"}]})").status().IsCorruption());
  EXPECT_TRUE(Schema::Parse(R"([["null"]])").status().IsCorruption());
  EXPECT_TRUE(Schema::Parse(std::string(200, '[')).status().IsCorruption());
}

// The fast paths of hot loops accept exactly what the checked readers accept, consume the
// same bytes and give the same values; what they refuse is left unconsumed.
TEST(Avro, TryReadersAgreeWithTheCheckedReaders) {
  std::vector<std::vector<uint8_t>> cases = {
      {}, {0x00}, {0x01}, {0x7f}, {0x80}, {0x80, 0x01}, {0xff, 0xff, 0xff, 0xff, 0x0f},  // int32 edges
      {0xfe, 0xff, 0xff, 0xff, 0x0f}, {0x80, 0x80, 0x80, 0x80, 0x10},                   // just past them
      std::vector<uint8_t>(9, 0xff), std::vector<uint8_t>(10, 0x80), std::vector<uint8_t>(11, 0x80),
      {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},  // bits past the 64th
      {0x06, 'a', 'b', 'c'}, {0x08, 'a', 'b', 'c'}, {0x03, 'a'}, {0x00, 'x'}};
  uint64_t seed = 7;
  for (int k = 0; k < 2000; ++k) {  // random short strings, biased to continuation bytes
    std::vector<uint8_t> b(seed % 12);
    for (uint8_t& x : b) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      x = static_cast<uint8_t>(seed >> 56);
    }
    cases.push_back(b);
  }
  for (const std::vector<uint8_t>& c : cases) {
    const ByteView all(c);
    {
      ByteView a = all, b = all;
      int64_t v = 0;
      Result<int64_t> r = wire::ReadLong(&b);
      ASSERT_EQ(wire::TryLong(&a, &v), r.ok());
      if (r.ok()) {
        EXPECT_EQ(v, *r);
        EXPECT_EQ(a.size(), b.size());
      } else {
        EXPECT_EQ(a.size(), all.size());
      }
    }
    {
      ByteView a = all, b = all;
      int32_t v = 0;
      Result<int32_t> r = wire::ReadInt(&b);
      ASSERT_EQ(wire::TryInt(&a, &v), r.ok());
      if (r.ok()) {
        EXPECT_EQ(v, *r);
        EXPECT_EQ(a.size(), b.size());
      } else {
        EXPECT_EQ(a.size(), all.size());
      }
    }
    {
      ByteView a = all, b = all, got;
      Result<ByteView> r = wire::ReadBytes(&b);
      ASSERT_EQ(wire::TryBytes(&a, &got), r.ok());
      if (r.ok()) {
        EXPECT_EQ(got.size(), r->size());
        EXPECT_EQ(got.data(), r->data());
        EXPECT_EQ(a.size(), b.size());
      } else {
        EXPECT_EQ(a.size(), all.size());
      }
    }
  }
}

// SkipShortVarints against a varint-at-a-time reference: the same bytes stepped over,
// and refused (nothing consumed) exactly when one of the k varints is longer than 4 bytes
// or the input ends first; across 8-byte word boundaries and in the tail.
TEST(Avro, SkipShortVarintsAgreesWithOneVarintAtATime) {
  auto reference = [](ByteView in, uint64_t k) -> std::optional<size_t> {
    for (uint64_t i = 0; i < k; ++i) {
      size_t n = 0;
      while (n < in.size() && (in[n] & 0x80) != 0) ++n;
      if (n >= in.size() || n + 1 > 4) return std::nullopt;
      in = in.subspan(n + 1);
    }
    return in.size();
  };
  uint64_t seed = 11;
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> b(seed % 41);
    for (uint8_t& x : b) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      const uint8_t r = static_cast<uint8_t>(seed >> 56);
      x = (round % 3 == 0) ? r : static_cast<uint8_t>(r & (r < 100 ? 0xFF : 0x7F));  // some runs short
    }
    for (uint64_t k = 0; k <= b.size() + 1; ++k) {
      ByteView in(b);
      const std::optional<size_t> want = reference(in, k);
      ASSERT_EQ(wire::SkipShortVarints(&in, k), want.has_value()) << round << " " << k;
      EXPECT_EQ(in.size(), want.value_or(b.size()));
    }
  }
}

// The header's metadata block count INT64_MIN (zigzag 0xFFFF...FF) has no negation: a
// clean Corruption, not undefined behaviour (found by iceberg_avro_fuzz under UBSan).
TEST(Avro, HeaderCountWithoutANegationIsCorruption) {
  std::vector<uint8_t> b = {'O', 'b', 'j', 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0};
  b.resize(b.size() + 32, 0);
  auto r = ContainerReader::Open(Bytes("min.avro", ByteView(b)));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
}

TEST(Avro, FieldIdsAndMapsAsArrays) {
  Result<Schema> s = Schema::Parse(R"({"type":"record","name":"r","fields":[
    {"name":"m","field-id":109,"type":["null",{"type":"array","logicalType":"map","items":
      {"type":"record","name":"k119_v120","fields":[{"name":"key","type":"int","field-id":119},
                                                    {"name":"value","type":"long","field-id":120}]}}]}]})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // union branch 1, array block of 2: (1 -> 10), (2 -> 20), end.
  std::vector<uint8_t> bytes = {2, 4, 2, 20, 4, 40, 0};
  ByteView in(bytes);
  Value v;
  ASSERT_TRUE(Decode(*s, s->root(), &in, &v).ok());
  EXPECT_TRUE(in.empty());
  const Value* m = v.Field(*s, 109);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->items.size(), 2u);
  EXPECT_EQ(m->items[1].Field(*s, 119)->i, 2);
  EXPECT_EQ(m->items[1].Field(*s, 120)->i, 20);
  EXPECT_EQ(s->node(m->node).logical_type, "map");
}


// Whether two decoded values are equal (kind, scalars, items and keys, recursively).
bool SameValue(const Value& a, const Value& b) {
  if (a.kind != b.kind || a.b != b.b || a.i != b.i || a.s != b.s || a.keys != b.keys) return false;
  if (!(a.d == b.d || (a.d != a.d && b.d != b.d)) || a.items.size() != b.items.size()) return false;
  for (size_t i = 0; i < a.items.size(); ++i) {
    if (!SameValue(a.items[i], b.items[i])) return false;
  }
  return true;
}

// The array node under a record field (directly or as a union branch), or -1.
int ArrayUnder(const Schema& s, int node) {
  if (s.node(node).kind == Kind::kArray) return node;
  for (int b : s.node(node).branches) {
    if (s.node(b).kind == Kind::kArray) return b;
  }
  return -1;
}

// A projection that steps over `value_counts` and keeps only field 1 of `lower_bounds`
// decodes every manifest of the corpus to the same entries as a full decode, except those
// two fields: value_counts null, lower_bounds the full decode's items with key 1.
TEST(Avro, ProjectionStepsOverWhatItSkips) {
  auto fs = io::NewLocalFileSystem();
  int manifests = 0, filtered = 0;
  for (const std::string& f : CorpusAvroFiles()) {
    if (f.find("/snap-") != std::string::npos) continue;
    auto full = ContainerReader::Open(fs.get(), f);
    auto proj = ContainerReader::Open(fs.get(), f);
    ASSERT_TRUE(full.ok() && proj.ok());
    const Schema& s = (*full)->schema();
    const Node& entry = s.node(s.root());
    int df = -1;
    for (const Node::Field& fld : entry.fields) {
      if (fld.field_id == 2) df = fld.node;
    }
    ASSERT_GE(df, 0) << f;
    int vc = -1, lb = -1;
    for (size_t i = 0; i < s.node(df).fields.size(); ++i) {
      if (s.node(df).fields[i].field_id == 109) vc = static_cast<int>(i);
      if (s.node(df).fields[i].field_id == 125) lb = static_cast<int>(i);
    }
    Projection p((*proj)->schema());
    if (vc >= 0) p.SkipField(df, static_cast<size_t>(vc));
    if (lb >= 0) p.KeepKeys(ArrayUnder(s, s.node(df).fields[lb].node), {1});
    (*proj)->SetProjection(p);
    ++manifests;
    Value a, b;
    for (;;) {
      Result<bool> ma = (*full)->Next(&a);
      Result<bool> mb = (*proj)->Next(&b);
      ASSERT_TRUE(ma.ok() && mb.ok()) << f;
      ASSERT_EQ(*ma, *mb) << f;
      if (!*ma) break;
      const Value* fa = a.Field(s, 2);
      const Value* fb = b.Field(s, 2);
      ASSERT_TRUE(fa != nullptr && fb != nullptr);
      for (size_t i = 0; i < fa->items.size(); ++i) {
        if (static_cast<int>(i) == vc) {
          EXPECT_EQ(fb->Field(s, 109), nullptr);
        } else if (static_cast<int>(i) == lb && fa->items[i].kind == Kind::kArray) {
          std::vector<const Value*> want;
          for (const Value& kv : fa->items[i].items) {
            if (kv.items[0].i == 1) want.push_back(&kv);
          }
          ASSERT_EQ(fb->items[i].items.size(), want.size()) << f;
          for (size_t k = 0; k < want.size(); ++k) EXPECT_TRUE(SameValue(fb->items[i].items[k], *want[k]));
          filtered += fa->items[i].items.size() > want.size();
        } else {
          EXPECT_TRUE(SameValue(fa->items[i], fb->items[i])) << f << " field " << i;
        }
      }
    }
  }
  EXPECT_GT(manifests, 50);
  EXPECT_GT(filtered, 50);
}

// Skipped bytes are checked as decoded ones are: a string that runs past the datum, an
// out-of-range union branch and a bad boolean are Corruption whether or not the field is
// projected away.
TEST(Avro, ProjectionStillRefusesMalformedSkippedBytes) {
  auto schema = Schema::Parse(R"({"type":"record","name":"r","fields":[
      {"name":"a","type":"string"},{"name":"u","type":["null","long"]},{"name":"t","type":"boolean"},
      {"name":"m","type":{"type":"array","items":{"type":"record","name":"kv","fields":[
        {"name":"key","type":"int"},{"name":"value","type":"bytes"}]}}}]})");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  Projection skip_all(*schema);
  for (size_t f = 0; f < 4; ++f) skip_all.SkipField(schema->root(), f);
  Projection keep_key(*schema);
  keep_key.KeepKeys(schema->node(schema->node(schema->root()).fields[3].node).kind == Kind::kArray
                        ? schema->node(schema->root()).fields[3].node : -1, {7});
  // a = "hi", u = long 5, t = true, m = [{1, "x"}, {7, "y"}]
  const std::vector<uint8_t> good = {4, 'h', 'i', 2, 10, 1, 4, 2, 2, 'x', 14, 2, 'y', 0};
  for (const Projection* p : std::vector<const Projection*>{nullptr, &skip_all, &keep_key}) {
    ByteView in(good.data(), good.size());
    Value v;
    ASSERT_TRUE(Decode(*schema, schema->root(), &in, &v, p).ok());
    EXPECT_TRUE(in.empty());
    if (p == &keep_key) {
      ASSERT_EQ(v.items[3].items.size(), 1u);
      EXPECT_EQ(v.items[3].items[0].items[0].i, 7);
      EXPECT_EQ(v.items[3].items[0].items[1].s, "y");
    }
    if (p == &skip_all) EXPECT_EQ(v.Field(*schema, 0, "a"), nullptr);
  }
  const std::vector<std::vector<uint8_t>> bad = {
      {40, 'h', 'i', 2, 10, 1, 0},                 // string length 20, 2 bytes there
      {4, 'h', 'i', 6, 10, 1, 0},                  // union branch 3 of 2
      {4, 'h', 'i', 2, 10, 2, 0},                  // boolean byte 2
      {4, 'h', 'i', 2, 10, 1, 4, 2, 40, 'x', 0},   // skipped map value runs past the end
  };
  for (const auto& bytes : bad) {
    for (const Projection* p : std::vector<const Projection*>{nullptr, &skip_all, &keep_key}) {
      ByteView in(bytes.data(), bytes.size());
      Value v;
      Status st = Decode(*schema, schema->root(), &in, &v, p);
      EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
    }
  }
}

}  // namespace
}  // namespace lithify::iceberg::avro
