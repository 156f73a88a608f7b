#include "lithify/parquet/rewrite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "lithify/base/thread_pool.h"
#include "lithify/io/fault_injection.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/encoding.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema_builder.h"
#include "lithify_test_paths.h"

namespace lithify::parquet {
namespace {

using F = FieldSpec;
using V = Value;
namespace stdfs = std::filesystem;

const stdfs::path kCorpus = stdfs::path(LITHIFY_SOURCE_DIR) / ".." / "shared" / "corpus";

Schema MustBuild(const std::vector<FieldSpec>& fields) {
  auto s = BuildSchema(fields);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(s).value();
}

// One leaf column flattened over row groups.
struct Flat {
  std::vector<int16_t> def, rep;
  std::vector<std::string> values;
  bool operator==(const Flat&) const = default;
};

void AppendFlat(const ColumnData& c, Flat* f) {
  f->def.insert(f->def.end(), c.def_levels.begin(), c.def_levels.end());
  f->rep.insert(f->rep.end(), c.rep_levels.begin(), c.rep_levels.end());
  for (int64_t i = 0; i < c.values.count; ++i) {
    if (c.values.is_byte_array()) {
      f->values.emplace_back(c.values.binary(i));
    } else {
      f->values.emplace_back(reinterpret_cast<const char*>(c.values.fixed_at(i)),
                             c.values.width());
    }
  }
}

// Every leaf of every file, row groups and files concatenated in order; `keep` (if set)
// filters rows of each row group as RewriteFiles' row filter would.
struct Contents {
  int64_t rows = 0;
  std::vector<Flat> columns;
};

Contents ReadContents(io::FileSystem* fs, const std::vector<std::string>& files,
                      const RowFilter& keep = nullptr) {
  Contents out;
  for (size_t i = 0; i < files.size(); ++i) {
    auto r = FileReader::Open(fs, files[i]);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return out;
    out.columns.resize(static_cast<size_t>((*r)->schema().num_leaves()));
    for (int rg = 0; rg < (*r)->num_row_groups(); ++rg) {
      auto b = (*r)->ReadRowGroup(rg, {});
      EXPECT_TRUE(b.ok()) << b.status().ToString();
      if (!b.ok()) return out;
      if (keep && b->num_rows > 0) {
        auto mask = keep(static_cast<int>(i), (*r)->RowGroupFirstRow(rg), b->num_rows);
        EXPECT_TRUE(mask.ok());
        FilterRows(&*b, *mask);
      }
      out.rows += b->num_rows;
      for (size_t c = 0; c < b->columns.size(); ++c) AppendFlat(b->columns[c], &out.columns[c]);
    }
  }
  return out;
}

void ExpectSameContents(const Contents& want, const Contents& got) {
  EXPECT_EQ(want.rows, got.rows);
  ASSERT_EQ(want.columns.size(), got.columns.size());
  for (size_t c = 0; c < want.columns.size(); ++c) {
    EXPECT_EQ(want.columns[c].def, got.columns[c].def) << "column " << c;
    EXPECT_EQ(want.columns[c].rep, got.columns[c].rep) << "column " << c;
    EXPECT_TRUE(want.columns[c].values == got.columns[c].values) << "column " << c;
  }
}

// Chunks must be contiguous and their sizes exact: each chunk starts where the previous
// one ended (only true if total_compressed_size counts every page written), the
// dictionary page precedes the data pages.
void ExpectChunkLayout(const FileMetaData& md) {
  int64_t expected_start = 4;  // after "PAR1"
  for (const RowGroup& rg : md.row_groups) {
    for (const ColumnChunk& cc : rg.columns) {
      const ColumnMetaData& m = *cc.meta_data;
      int64_t start = m.dictionary_page_offset ? *m.dictionary_page_offset : m.data_page_offset;
      EXPECT_EQ(start, expected_start);
      if (m.dictionary_page_offset) {
        EXPECT_LT(*m.dictionary_page_offset, m.data_page_offset);
      }
      expected_start = start + m.total_compressed_size;
    }
  }
}

// Both files hold one row group whose chunks have the same statistics and value counts.
void ExpectOneRowGroupWithStatisticsOf(const FileMetaData& want, const FileMetaData& got) {
  ASSERT_EQ(got.row_groups.size(), 1u);
  ASSERT_EQ(want.row_groups.size(), 1u);
  ASSERT_EQ(got.row_groups[0].columns.size(), want.row_groups[0].columns.size());
  for (size_t c = 0; c < got.row_groups[0].columns.size(); ++c) {
    const ColumnMetaData& g = *got.row_groups[0].columns[c].meta_data;
    const ColumnMetaData& w = *want.row_groups[0].columns[c].meta_data;
    EXPECT_EQ(g.statistics, w.statistics) << "column " << c;
    EXPECT_EQ(g.num_values, w.num_values) << "column " << c;
  }
}

class RewriteTest : public ::testing::Test {
 protected:
  void WriteInput(const std::string& path, const Schema& schema,
                  const std::vector<std::vector<Value>>& rows, WriterOptions opts = {},
                  int64_t rows_per_group = 0) {
    auto out = fs_->Create(path);
    ASSERT_TRUE(out.ok());
    auto w = FileWriter::Open(std::move(out).value(), schema, opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    RowBatchBuilder b(schema);
    for (size_t i = 0; i < rows.size(); ++i) {
      ASSERT_TRUE(b.Append(rows[i]).ok());
      if (rows_per_group > 0 && b.num_rows() == rows_per_group) {
        RowBatch batch = b.Finish();
        ASSERT_TRUE((*w)->WriteBatch(batch).ok());
        ASSERT_TRUE((*w)->FlushRowGroup().ok());
      }
    }
    RowBatch batch = b.Finish();
    ASSERT_TRUE((*w)->WriteBatch(batch).ok());
    auto md = (*w)->Close();
    ASSERT_TRUE(md.ok()) << md.status().ToString();
  }

  FileMetaData Footer(const std::string& path) {
    auto r = FileReader::Open(fs_.get(), path);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)->metadata() : FileMetaData{};
  }

  void CopyCorpusFile(const std::string& rel, const std::string& to) {
    std::ifstream in(kCorpus / rel, std::ios::binary);
    ASSERT_TRUE(in) << (kCorpus / rel);
    std::stringstream ss;
    ss << in.rdbuf();
    ASSERT_TRUE(fs_->WriteFile(to, AsBytes(ss.str())).ok());
  }

  std::unique_ptr<io::FileSystem> fs_ = io::NewMemoryFileSystem();
};

Schema FlatSchema() {
  return MustBuild({F::Long("id", false), F::Double("amount"), F::String("name"),
                    F::Timestamp("ts"), F::Boolean("flag")});
}

std::vector<std::vector<Value>> FlatRows(int n, int seed) {
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < n; ++i) {
    int64_t id = int64_t{seed} * 100000 + i;
    rows.push_back({V::Int(id), i % 7 == 0 ? V::Null() : V::Double(i * 0.5 - seed),
                    i % 5 == 0 ? V::Null() : V::String("n" + std::to_string((i * 31 + seed) % 97)),
                    V::Int(1700000000000000 + id * 1000), V::Bool(i % 3 == 0)});
  }
  return rows;
}

Schema NestedSchema() {
  return MustBuild(
      {F::Int("id", false), F::List("tags", F::String("element")),
       F::Struct("s", {F::Double("a"), F::List("inner", F::List("element", F::Long("element")))}),
       F::Map("m", F::String("key"), F::Struct("value", {F::Int("x", false), F::Binary("y")}))});
}

std::vector<std::vector<Value>> NestedRows(int n, int seed) {
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < n; ++i) {
    std::vector<Value> tags;
    for (int j = 0; j < (i + seed) % 4; ++j) {
      tags.push_back(j == 2 ? V::Null() : V::String("t" + std::to_string(i * j + seed)));
    }
    std::vector<Value> inner;
    for (int j = 0; j < i % 3; ++j) {
      inner.push_back(j == 1 ? V::Null() : V::List({V::Int(i), V::Null(), V::Int(-j - seed)}));
    }
    std::vector<std::pair<Value, Value>> m;
    for (int j = 0; j < i % 3; ++j) {
      m.emplace_back(V::String("k" + std::to_string(j)),
                     j == 1 ? V::Null() : V::Struct({V::Int(j), V::Bytes(std::string(j, 'y'))}));
    }
    rows.push_back({V::Int(seed * 10000 + i), i % 10 == 0 ? V::Null() : V::List(std::move(tags)),
                    i % 11 == 0 ? V::Null() : V::Struct({V::Double(i), V::List(std::move(inner))}),
                    i % 9 == 0 ? V::Null() : V::Map(std::move(m))});
  }
  return rows;
}

TEST_F(RewriteTest, FlatInputsConcatenateExactly) {
  Schema s = FlatSchema();
  std::vector<std::string> inputs = {"in/a.parquet", "in/b.parquet", "in/c.parquet"};
  WriteInput(inputs[0], s, FlatRows(1000, 1));
  WriteInput(inputs[1], s, FlatRows(2500, 2), {}, /*rows_per_group=*/700);
  WriterOptions snappy;
  snappy.codec = CompressionCodec::kSnappy;
  WriteInput(inputs[2], s, FlatRows(10, 3), snappy);
  RewriteOptions opts;
  opts.writer.page_size_bytes = 1024;  // many pages per chunk
  auto res = RewriteFiles(fs_.get(), inputs, "out.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->files, 3);
  EXPECT_EQ(res->rows, 3510);
  EXPECT_EQ(res->rows_in, 3510);
  EXPECT_EQ(res->row_groups, 1);
  int64_t in_bytes = 0;
  for (auto& f : inputs) in_bytes += static_cast<int64_t>(fs_->Head(f)->size);
  EXPECT_EQ(res->bytes_in, in_bytes);
  EXPECT_EQ(res->bytes_out, static_cast<int64_t>(fs_->Head("out.parquet")->size));
  ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"out.parquet"}));
  FileMetaData md = Footer("out.parquet");
  ExpectChunkLayout(md);
  EXPECT_EQ(md.num_rows, 3510);
}

TEST_F(RewriteTest, NestedInputsConcatenateExactly) {
  Schema s = NestedSchema();
  std::vector<std::string> inputs = {"a.parquet", "b.parquet"};
  WriteInput(inputs[0], s, NestedRows(1200, 1), {}, 500);
  WriteInput(inputs[1], s, NestedRows(800, 2));
  RewriteOptions opts;
  opts.writer.page_size_bytes = 512;
  opts.writer.codec = CompressionCodec::kGzip;
  opts.batch_rows = 33;
  auto res = RewriteFiles(fs_.get(), inputs, "out.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows, 2000);
  ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"out.parquet"}));
  FileMetaData md = Footer("out.parquet");
  ExpectChunkLayout(md);
  for (const ColumnChunk& cc : md.row_groups[0].columns) {
    EXPECT_EQ(cc.meta_data->codec, CompressionCodec::kGzip);
  }
}

TEST_F(RewriteTest, CorpusFilesConcatenate) {
  for (const char* name : {"alltypes_plain.parquet", "nested_lists.snappy.parquet"}) {
    SCOPED_TRACE(name);
    std::vector<std::string> inputs;
    for (int i = 0; i < 3; ++i) {
      inputs.push_back(std::string("corpus/") + std::to_string(i) + "-" + name);
      CopyCorpusFile(std::string("parquet-testing/data/") + name, inputs.back());
    }
    auto res = RewriteFiles(fs_.get(), inputs, std::string("out-") + name);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    Contents want = ReadContents(fs_.get(), inputs);
    EXPECT_GT(want.rows, 0);
    EXPECT_EQ(res->rows, want.rows);
    ExpectSameContents(want, ReadContents(fs_.get(), {std::string("out-") + name}));
    // The schema is carried over unchanged (root name aside).
    auto in = FileReader::Open(fs_.get(), inputs[0]);
    auto out = FileReader::Open(fs_.get(), std::string("out-") + name);
    ASSERT_TRUE(in.ok() && out.ok());
    EXPECT_TRUE(CompareSchemas((*in)->schema(), "in", (*out)->schema(), "out").ok());
  }
}

TEST_F(RewriteTest, RowGroupsArePlannedAtInputRowGroupGranularity) {
  Schema s = FlatSchema();
  std::vector<std::string> inputs = {"a.parquet", "b.parquet"};
  WriteInput(inputs[0], s, FlatRows(3000, 1), {}, 400);  // 8 row groups
  WriteInput(inputs[1], s, FlatRows(1000, 2), {}, 300);  // 4 row groups
  std::vector<int64_t> in_rows, in_bytes;
  for (auto& f : inputs) {
    for (const RowGroup& rg : Footer(f).row_groups) {
      in_rows.push_back(rg.num_rows);
      in_bytes.push_back(*rg.total_compressed_size);
    }
  }
  ASSERT_EQ(in_rows.size(), 12u);
  // A target of about 2.5 input row groups: each output row group packs 2 of them.
  RewriteOptions opts;
  opts.writer.row_group_size_bytes = in_bytes[0] * 5 / 2;
  auto res = RewriteFiles(fs_.get(), inputs, "out.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  // Expected plan, computed the way the header states it.
  std::vector<int64_t> want;
  int64_t bytes = 0;
  for (size_t i = 0; i < in_rows.size(); ++i) {
    if (want.empty() || bytes + in_bytes[i] > opts.writer.row_group_size_bytes) {
      want.push_back(0);
      bytes = 0;
    }
    want.back() += in_rows[i];
    bytes += in_bytes[i];
  }
  ASSERT_GT(want.size(), 3u);
  FileMetaData md = Footer("out.parquet");
  std::vector<int64_t> got;
  for (const RowGroup& rg : md.row_groups) got.push_back(rg.num_rows);
  EXPECT_EQ(got, want);
  EXPECT_EQ(res->row_groups, static_cast<int64_t>(want.size()));
  ExpectChunkLayout(md);
  ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"out.parquet"}));

  // A tiny target: every input row group becomes its own output row group, never split.
  opts.writer.row_group_size_bytes = 1;
  res = RewriteFiles(fs_.get(), inputs, "out1.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  got.clear();
  for (const RowGroup& rg : Footer("out1.parquet").row_groups) got.push_back(rg.num_rows);
  EXPECT_EQ(got, in_rows);
}

// split_row_groups: a row group larger than the target is cut into slices of nearly
// equal rows (at least kMinSliceRows), packed like row groups, with every row kept in
// order, the row filter called per slice, pages copied inside slices and the chunk
// layout exact; nested data too.
TEST_F(RewriteTest, SplitRowGroupsCutsLargeRowGroups) {
  for (bool nested : {false, true}) {
    SCOPED_TRACE(nested ? "nested" : "flat");
    Schema s = nested ? NestedSchema() : FlatSchema();
    std::vector<std::string> inputs = {"big.parquet", "small.parquet"};
    WriterOptions small_pages;
    small_pages.page_size_bytes = 2048;
    small_pages.enable_dictionary = false;  // PLAIN pages: some can be copied inside slices
    WriteInput(inputs[0], s, nested ? NestedRows(9000, 1) : FlatRows(9000, 1), small_pages);  // one row group
    WriteInput(inputs[1], s, nested ? NestedRows(300, 2) : FlatRows(300, 2), small_pages);
    const int64_t big = *Footer(inputs[0]).row_groups.at(0).total_compressed_size;
    RewriteOptions opts;
    opts.writer = small_pages;
    opts.writer.row_group_size_bytes = big / 3 + 1;  // three slices of 3000 rows
    opts.batch_rows = 700;                           // batches straddle slice ends
    std::vector<std::pair<int64_t, int64_t>> calls;
    opts.row_filter = [&](int input, int64_t first, int64_t n) -> Result<std::vector<bool>> {
      if (input == 0) calls.emplace_back(first, n);
      std::vector<bool> keep(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) keep[r] = input != 0 || first + r < 6000 || (first + r) % 5 != 0;
      return keep;
    };
    // Off (the default): the large row group stays whole.
    RewriteOptions whole = opts;
    auto res = RewriteFiles(fs_.get(), inputs, "whole.parquet", whole);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_EQ(Footer("whole.parquet").row_groups.at(0).num_rows, 8400);  // filtered, not split
    calls.clear();

    opts.split_row_groups = true;
    res = RewriteFiles(fs_.get(), inputs, "split.parquet", opts);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    std::vector<std::pair<int64_t, int64_t>> want_calls = {{0, 3000}, {3000, 3000}, {6000, 3000}};
    EXPECT_EQ(calls, want_calls);
    FileMetaData md = Footer("split.parquet");
    std::vector<int64_t> got;
    for (const RowGroup& rg : md.row_groups) got.push_back(rg.num_rows);
    // Three slices (the last keeps 2400 rows), then the small input (no room beside a slice).
    EXPECT_EQ(got, (std::vector<int64_t>{3000, 3000, 2400, 300})) << testing::PrintToString(got);
    ExpectChunkLayout(md);
    ExpectSameContents(ReadContents(fs_.get(), inputs, opts.row_filter), ReadContents(fs_.get(), {"split.parquet"}));
    if (!nested) {
      EXPECT_GT(res->pages_copied, 0);
    }

    // A tiny target never makes row groups below kMinSliceRows rows.
    opts.row_filter = nullptr;
    opts.writer.row_group_size_bytes = 1;
    res = RewriteFiles(fs_.get(), inputs, "tiny.parquet", opts);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    FileMetaData tiny = Footer("tiny.parquet");
    EXPECT_EQ(tiny.row_groups.size(), 9000u / 1024 + 1);
    ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"tiny.parquet"}));
  }
}

TEST_F(RewriteTest, EmptyInputs) {
  Schema s = FlatSchema();
  WriteInput("e1.parquet", s, {});
  WriteInput("e2.parquet", s, {});
  WriteInput("full.parquet", s, FlatRows(50, 4));
  auto res = RewriteFiles(fs_.get(), {"e1.parquet", "full.parquet", "e2.parquet"}, "out.parquet");
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows, 50);
  EXPECT_EQ(res->row_groups, 1);
  ExpectSameContents(ReadContents(fs_.get(), {"full.parquet"}),
                     ReadContents(fs_.get(), {"out.parquet"}));

  res = RewriteFiles(fs_.get(), {"e1.parquet", "e2.parquet"}, "none.parquet");
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows, 0);
  EXPECT_EQ(res->row_groups, 0);
  FileMetaData md = Footer("none.parquet");
  EXPECT_EQ(md.num_rows, 0);
  EXPECT_TRUE(md.row_groups.empty());
  auto r = FileReader::Open(fs_.get(), "none.parquet");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->schema().num_leaves(), s.num_leaves());

  EXPECT_EQ(RewriteFiles(fs_.get(), {}, "x.parquet").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RewriteFiles(fs_.get(), {"full.parquet"}, "full.parquet").status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(RewriteTest, RowFilterDropsEveryThirdRowOfNestedData) {
  Schema s = NestedSchema();
  std::vector<std::string> inputs = {"a.parquet", "b.parquet", "c.parquet"};
  WriteInput(inputs[0], s, NestedRows(1000, 1), {}, 333);
  WriteInput(inputs[1], s, NestedRows(7, 2));
  WriteInput(inputs[2], s, NestedRows(600, 3), {}, 250);
  std::vector<std::pair<int, int64_t>> calls;
  RowFilter drop_third = [&calls](int input, int64_t first_row,
                                  int64_t num_rows) -> Result<std::vector<bool>> {
    calls.emplace_back(input, first_row);
    std::vector<bool> keep(static_cast<size_t>(num_rows));
    for (int64_t r = 0; r < num_rows; ++r) keep[r] = (first_row + r) % 3 != 2;
    return keep;
  };
  RewriteOptions opts;
  opts.row_filter = drop_third;
  opts.batch_rows = 7;  // masks are sliced per input batch
  opts.writer.page_size_bytes = 700;
  opts.writer.row_group_size_bytes = 1;  // one output row group per input row group
  auto res = RewriteFiles(fs_.get(), inputs, "out.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows_in, 1607);
  int64_t want_rows = 0;
  for (int64_t n : {1000, 7, 600}) {
    for (int64_t r = 0; r < n; ++r) want_rows += r % 3 != 2;
  }
  EXPECT_EQ(res->rows, want_rows);
  // Called once per input row group, with file row indexes.
  std::vector<std::pair<int, int64_t>> want_calls = {{0, 0},   {0, 333}, {0, 666}, {0, 999},
                                                     {1, 0},   {2, 0},   {2, 250}, {2, 500}};
  EXPECT_EQ(calls, want_calls);
  ExpectSameContents(ReadContents(fs_.get(), inputs, drop_third),
                     ReadContents(fs_.get(), {"out.parquet"}));
  FileMetaData md = Footer("out.parquet");
  int64_t sum = 0;
  for (const RowGroup& rg : md.row_groups) sum += rg.num_rows;
  EXPECT_EQ(sum, want_rows);
  ExpectChunkLayout(md);
}

TEST_F(RewriteTest, RowFilterDroppingEverythingAndBadMasks) {
  Schema s = FlatSchema();
  WriteInput("a.parquet", s, FlatRows(100, 1), {}, 40);
  RewriteOptions opts;
  opts.writer.row_group_size_bytes = 1;
  // Drop all rows of the second row group only: that output row group is skipped.
  opts.row_filter = [](int, int64_t first_row, int64_t n) -> Result<std::vector<bool>> {
    return std::vector<bool>(static_cast<size_t>(n), first_row != 40);
  };
  auto res = RewriteFiles(fs_.get(), {"a.parquet"}, "out.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows, 60);
  EXPECT_EQ(res->row_groups, 2);
  ExpectSameContents(ReadContents(fs_.get(), {"a.parquet"}, opts.row_filter),
                     ReadContents(fs_.get(), {"out.parquet"}));

  opts.row_filter = [](int, int64_t, int64_t n) -> Result<std::vector<bool>> {
    return std::vector<bool>(static_cast<size_t>(n + 1), true);
  };
  EXPECT_EQ(RewriteFiles(fs_.get(), {"a.parquet"}, "bad.parquet", opts).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs_->Head("bad.parquet").ok());
  opts.row_filter = [](int, int64_t, int64_t) -> Result<std::vector<bool>> {
    return Status::IOError("deletion vector unreadable");
  };
  auto err = RewriteFiles(fs_.get(), {"a.parquet"}, "bad.parquet", opts);
  EXPECT_EQ(err.status().code(), StatusCode::kIOError);
  EXPECT_NE(err.status().ToString().find("deletion vector unreadable"), std::string::npos);
  EXPECT_FALSE(fs_->Head("bad.parquet").ok());
}

TEST_F(RewriteTest, SchemaMismatchNamesFileAndColumn) {
  WriteInput("a.parquet", FlatSchema(), FlatRows(10, 1));
  WriteInput("b.parquet", FlatSchema(), FlatRows(10, 2));
  Schema other = MustBuild({F::Long("id", false), F::Double("amount"), F::Binary("name"),
                            F::Timestamp("ts"), F::Boolean("flag")});
  RowBatchBuilder b(other);
  ASSERT_TRUE(b.Append({V::Int(1), V::Double(1), V::Bytes("x"), V::Int(2), V::Bool(true)}).ok());
  {
    auto out = fs_->Create("c.parquet");
    auto w = FileWriter::Open(std::move(out).value(), other);
    ASSERT_TRUE((*w)->WriteBatch(b.Finish()).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto res = RewriteFiles(fs_.get(), {"a.parquet", "b.parquet", "c.parquet"}, "out.parquet");
  ASSERT_EQ(res.status().code(), StatusCode::kInvalidArgument);
  const std::string msg = res.status().ToString();
  EXPECT_NE(msg.find("c.parquet"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'name'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("b.parquet"), std::string::npos) << msg;
  EXPECT_FALSE(fs_->Head("out.parquet").ok());

  WriteInput("d.parquet", MustBuild({F::Long("id", false)}), {{V::Int(1)}});
  res = RewriteFiles(fs_.get(), {"a.parquet", "d.parquet"}, "out.parquet");
  ASSERT_EQ(res.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(res.status().ToString().find("d.parquet"), std::string::npos);
  EXPECT_FALSE(fs_->Head("out.parquet").ok());
}

TEST_F(RewriteTest, StatisticsMatchRowOrientedWriter) {
  Schema s = FlatSchema();
  std::vector<std::string> inputs = {"a.parquet", "b.parquet"};
  auto rows_a = FlatRows(900, 1), rows_b = FlatRows(1100, 2);
  WriteInput(inputs[0], s, rows_a, {}, 300);
  WriteInput(inputs[1], s, rows_b);
  RewriteOptions opts;
  opts.writer.page_size_bytes = 2048;
  ASSERT_TRUE(RewriteFiles(fs_.get(), inputs, "out.parquet", opts).ok());
  // The same rows through the row-oriented API in one row group.
  auto all = rows_a;
  all.insert(all.end(), rows_b.begin(), rows_b.end());
  WriteInput("ref.parquet", s, all, opts.writer);
  FileMetaData got = Footer("out.parquet"), want = Footer("ref.parquet");
  ASSERT_NO_FATAL_FAILURE(ExpectOneRowGroupWithStatisticsOf(want, got));
  for (size_t c = 0; c < got.row_groups[0].columns.size(); ++c) {
    EXPECT_EQ(got.row_groups[0].columns[c].meta_data->encodings, want.row_groups[0].columns[c].meta_data->encodings)
        << "column " << c;
  }
  // And they are the true extremes: id spans both inputs.
  const Statistics& id = *got.row_groups[0].columns[0].meta_data->statistics;
  int64_t min = 0, max = 0;
  ASSERT_TRUE(id.min_value && id.max_value);
  std::memcpy(&min, id.min_value->data(), 8);
  std::memcpy(&max, id.max_value->data(), 8);
  EXPECT_EQ(min, 100000);
  EXPECT_EQ(max, 200000 + 1099);
  EXPECT_EQ(*got.row_groups[0].columns[1].meta_data->statistics->null_count,
            (900 + 6) / 7 + (1100 + 6) / 7);
}

// Dictionary-encoded inputs reach the writer as indices (ValueForm::kDictionaryIndices):
// each input entry is mapped into the output dictionary once. Inputs with different
// dictionaries, a row filter, an output dictionary that overflows mid-chunk (the rest
// PLAIN, from the same indices), NaNs (counted per value, not per entry), nulls, and an
// input chunk that itself falls back to PLAIN: the rows and the footer statistics are
// those of the row-oriented writer given the kept rows.
TEST_F(RewriteTest, DictionaryEncodedInputsPassThroughAsIndices) {
  Schema s = MustBuild({F::Long("k", false), F::Double("x"), F::String("cat"), F::String("note"), F::Int("d")});
  auto rows_of = [](int n, int seed) {
    std::vector<std::vector<Value>> rows;
    for (int i = 0; i < n; ++i) {
      const int k = seed * 100000 + i;
      V x = i % 9 == 0 ? V::Null() : i % 4 == 0 ? V::Double(std::nan("")) : V::Double((k % 23) * 0.5 - 3);
      // Notes repeat at first, then are unique: the input chunk falls back to PLAIN.
      std::string note = i < 400 ? "a repeated note, number " + std::to_string(k % 50) : "unique note " + std::to_string(k * 7919);
      rows.push_back({V::Int(i < 800 ? i % 60 : i % 400 + seed), std::move(x), i % 7 == 0 ? V::Null() : V::String("c" + std::to_string((k * 13) % (20 + seed))),
                      V::String(std::move(note)), V::Int(k % 17 - seed)});
    }
    return rows;
  };
  std::vector<std::string> inputs = {"a.parquet", "b.parquet"};
  WriterOptions in_opts;
  in_opts.page_size_bytes = 256;
  in_opts.dictionary_page_size_limit = 4 << 10;
  auto rows_a = rows_of(1500, 1), rows_b = rows_of(1200, 2);
  WriteInput(inputs[0], s, rows_a, in_opts, 700);
  WriteInput(inputs[1], s, rows_b, in_opts);
  // The inputs' cat and k chunks are dictionary-encoded, the note chunks start so.
  const FileMetaData in_md = Footer(inputs[0]);
  ASSERT_TRUE(in_md.row_groups[0].columns[3].meta_data->dictionary_page_offset.has_value());
  RowFilter drop = [](int input, int64_t first, int64_t n) -> Result<std::vector<bool>> {
    std::vector<bool> keep(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) keep[r] = (first + r + input) % 5 != 3;
    return keep;
  };
  for (int64_t dict_limit : {int64_t{1} << 20, int64_t{2000}}) {
    SCOPED_TRACE(dict_limit);
    RewriteOptions opts;
    opts.row_filter = drop;
    opts.batch_rows = 333;
    opts.writer.page_size_bytes = 256;
    opts.writer.dictionary_page_size_limit = dict_limit;  // 2000: the output overflows mid-chunk
    auto res = RewriteFiles(fs_.get(), inputs, "out.parquet", opts);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    ExpectSameContents(ReadContents(fs_.get(), inputs, drop), ReadContents(fs_.get(), {"out.parquet"}));
    std::vector<std::vector<Value>> kept;
    for (int input = 0; input < 2; ++input) {
      const auto& rows = input == 0 ? rows_a : rows_b;
      for (size_t r = 0; r < rows.size(); ++r) {
        if ((static_cast<int64_t>(r) + input) % 5 != 3) kept.push_back(rows[r]);
      }
    }
    WriteInput("ref.parquet", s, kept, opts.writer);
    FileMetaData got = Footer("out.parquet"), want = Footer("ref.parquet");
    ASSERT_NO_FATAL_FAILURE(ExpectOneRowGroupWithStatisticsOf(want, got));
    const Statistics& x = *got.row_groups[0].columns[1].meta_data->statistics;
    ASSERT_TRUE(x.nan_count.has_value());
    int64_t nans = 0;
    for (const auto& row : kept) nans += row[1].kind() == Value::Kind::kDouble && std::isnan(row[1].double_value());
    EXPECT_EQ(*x.nan_count, nans);
    EXPECT_GT(nans, 100);
    // With the small limit the k chunk (over 400 distinct longs, 3200 bytes of dictionary) has
    // dictionary pages, then PLAIN ones written from the same indices.
    const ColumnMetaData& k = *got.row_groups[0].columns[0].meta_data;
    int64_t plain = 0, dict = 0;
    for (const PageEncodingStats& e : k.encoding_stats) {
      if (e.page_type != PageType::kDataPage) continue;
      (e.encoding == Encoding::kPlain ? plain : dict) += e.count;
    }
    EXPECT_GT(dict, 0);
    EXPECT_EQ(plain > 0, dict_limit < 3200);
  }
}

TEST_F(RewriteTest, FailureMidwayLeavesNoOutput) {
  Schema s = FlatSchema();
  std::vector<std::string> inputs = {"in/a.parquet", "in/b.parquet", "in/c.parquet"};
  for (int i = 0; i < 3; ++i) WriteInput(inputs[i], s, FlatRows(500, i), {}, 200);
  io::FaultInjectingFileSystem faulty(fs_.get());
  // A read of c.parquet's data fails, after its footer was read in planning and several
  // columns of the output were already streamed.
  {
    io::Fault f;
    f.op = io::FsOp::kReadAt;
    f.path_contains = "c.parquet";
    f.skip = 10;
    faulty.Inject(f);
  }
  int columns_done = 0;
  RewriteOptions opts;
  // One thread: the failing read then comes after earlier columns were finished. With
  // column tasks in parallel, c.parquet's 11th read may come before any column completes
  // (it did once under ASan in CI); ParallelColumnsTest covers failures on that path.
  opts.threads = 1;
  opts.progress = [&](const RewriteProgress& p) { columns_done = std::max(columns_done, p.columns_done); };
  auto res = RewriteFiles(&faulty, inputs, "out/x.parquet", opts);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), StatusCode::kIOError) << res.status().ToString();
  EXPECT_EQ(faulty.fired(), 1);
  EXPECT_GT(columns_done, 0);  // it really failed mid-way
  EXPECT_FALSE(fs_->Head("out/x.parquet").ok());
  auto listing = fs_->ListRecursive("out");
  ASSERT_TRUE(listing.ok());
  EXPECT_TRUE(listing->empty());

  // An append to the output fails.
  faulty.Clear();
  {
    io::Fault f;
    f.op = io::FsOp::kAppend;
    f.path_contains = "x.parquet";
    f.skip = 3;
    faulty.Inject(f);
  }
  res = RewriteFiles(&faulty, inputs, "out/x.parquet", opts);
  ASSERT_FALSE(res.ok());
  EXPECT_FALSE(fs_->Head("out/x.parquet").ok());
  // The final Close fails.
  faulty.Clear();
  {
    io::Fault f;
    f.op = io::FsOp::kClose;
    f.path_contains = "x.parquet";
    faulty.Inject(f);
  }
  res = RewriteFiles(&faulty, inputs, "out/x.parquet", opts);
  ASSERT_FALSE(res.ok());
  EXPECT_FALSE(fs_->Head("out/x.parquet").ok());
  // And without faults it works, with a small limit of open inputs.
  faulty.Clear();
  opts.max_open_inputs = 1;
  res = RewriteFiles(&faulty, inputs, "out/x.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"out/x.parquet"}));
}

// ------------------------------------------------------------ row group copy fast path

// The bytes [start, start + n) of `path`.
std::string Bytes(io::FileSystem* fs, const std::string& path, int64_t start, int64_t n) {
  auto f = fs->OpenForRead(path);
  EXPECT_TRUE(f.ok());
  std::string out(static_cast<size_t>(n), '\0');
  EXPECT_TRUE((*f)->ReadAt(static_cast<uint64_t>(start), out.size(), reinterpret_cast<uint8_t*>(out.data())).ok());
  return out;
}

int64_t ChunkStartOf(const ColumnMetaData& m) {
  return m.dictionary_page_offset ? std::min(*m.dictionary_page_offset, m.data_page_offset) : m.data_page_offset;
}

// Output row group `out_rg` of `out` is input row group `in_rg` of `in`, copied: same
// chunk bytes, statistics, encodings, codec and value counts; offsets moved.
void ExpectCopied(io::FileSystem* fs, const std::string& in, int in_rg, const std::string& out, int out_rg) {
  auto ri = FileReader::Open(fs, in);
  auto ro = FileReader::Open(fs, out);
  ASSERT_TRUE(ri.ok() && ro.ok());
  const RowGroup& a = (*ri)->metadata().row_groups[in_rg];
  const RowGroup& b = (*ro)->metadata().row_groups[out_rg];
  EXPECT_EQ(a.num_rows, b.num_rows);
  ASSERT_EQ(a.columns.size(), b.columns.size());
  for (size_t c = 0; c < a.columns.size(); ++c) {
    SCOPED_TRACE("column " + std::to_string(c));
    const ColumnMetaData& x = *a.columns[c].meta_data;
    const ColumnMetaData& y = *b.columns[c].meta_data;
    EXPECT_EQ(x.statistics, y.statistics);
    EXPECT_EQ(x.encodings, y.encodings);
    EXPECT_EQ(x.codec, y.codec);
    EXPECT_EQ(x.num_values, y.num_values);
    EXPECT_EQ(x.total_compressed_size, y.total_compressed_size);
    EXPECT_EQ(x.total_uncompressed_size, y.total_uncompressed_size);
    EXPECT_EQ(x.data_page_offset - ChunkStartOf(x), y.data_page_offset - ChunkStartOf(y));
    EXPECT_EQ(Bytes(fs, in, ChunkStartOf(x), x.total_compressed_size),
              Bytes(fs, out, ChunkStartOf(y), y.total_compressed_size));
  }
}

TEST_F(RewriteTest, CopyFastPathCopiesLargeRowGroupsAndDecodesSmallOnes) {
  Schema s = FlatSchema();
  std::vector<std::string> inputs = {"a.parquet", "b.parquet", "c.parquet"};
  WriteInput(inputs[0], s, FlatRows(6000, 1), {}, 3000);  // 2 large row groups
  WriteInput(inputs[1], s, FlatRows(50, 2));              // 1 small
  WriterOptions snappy;
  snappy.codec = CompressionCodec::kSnappy;
  snappy.page_size_bytes = 4096;                          // many pages in its chunks
  WriteInput(inputs[2], s, FlatRows(4000, 3), snappy);    // 1 large, another codec
  const int64_t small = *Footer(inputs[1]).row_groups[0].total_compressed_size;
  RewriteOptions opts;
  opts.copy_row_group_min_bytes = small * 4;
  ASSERT_LT(opts.copy_row_group_min_bytes, *Footer(inputs[0]).row_groups[1].total_compressed_size);
  // By default a row group in another codec is re-encoded into the output's.
  {
    auto same = RewriteFiles(fs_.get(), inputs, "same-codec.parquet", opts);
    ASSERT_TRUE(same.ok()) << same.status().ToString();
    EXPECT_EQ(same->row_groups_copied, 2);
    FileMetaData m = Footer("same-codec.parquet");
    for (const RowGroup& rg : m.row_groups) EXPECT_EQ(rg.columns[0].meta_data->codec, CompressionCodec::kZstd);
    ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"same-codec.parquet"}));
  }
  opts.copy_other_codecs = true;
  auto res = RewriteFiles(fs_.get(), inputs, "out.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows, 10050);
  EXPECT_EQ(res->row_groups, 4);
  EXPECT_EQ(res->row_groups_copied, 3);
  // Read back value for value, in order; chunks contiguous and exactly sized.
  ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"out.parquet"}));
  FileMetaData md = Footer("out.parquet");
  ExpectChunkLayout(md);
  EXPECT_EQ(md.num_rows, 10050);
  ExpectCopied(fs_.get(), inputs[0], 0, "out.parquet", 0);
  ExpectCopied(fs_.get(), inputs[0], 1, "out.parquet", 1);
  ExpectCopied(fs_.get(), inputs[2], 0, "out.parquet", 3);
  EXPECT_EQ(md.row_groups[3].columns[0].meta_data->codec, CompressionCodec::kSnappy);
  EXPECT_EQ(md.row_groups[2].columns[0].meta_data->codec, CompressionCodec::kZstd);  // decoded
  // The carried-over statistics are the true extremes of the copied rows.
  for (int rg : {0, 1}) {
    const Statistics& id = *md.row_groups[static_cast<size_t>(rg)].columns[0].meta_data->statistics;
    int64_t min = 0, max = 0;
    ASSERT_TRUE(id.min_value && id.max_value);
    std::memcpy(&min, id.min_value->data(), 8);
    std::memcpy(&max, id.max_value->data(), 8);
    EXPECT_EQ(min, 100000 + rg * 3000);
    EXPECT_EQ(max, 100000 + rg * 3000 + 2999);
  }
  EXPECT_EQ(*md.row_groups[3].columns[1].meta_data->statistics->null_count, (4000 + 6) / 7);
}

TEST_F(RewriteTest, CopyFastPathNestedAndCorpusFiles) {
  // Nested levels and foreign writers' chunks (dictionary pages, v1/v2 pages, other codecs).
  std::vector<std::string> inputs = {"n0.parquet", "n1.parquet"};
  WriteInput(inputs[0], NestedSchema(), NestedRows(1200, 1), {}, 500);
  WriteInput(inputs[1], NestedSchema(), NestedRows(800, 2));
  RewriteOptions opts;
  opts.copy_row_group_min_bytes = 1;
  opts.copy_other_codecs = true;
  auto res = RewriteFiles(fs_.get(), inputs, "n-out.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->row_groups_copied, 4);
  ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"n-out.parquet"}));
  ExpectChunkLayout(Footer("n-out.parquet"));
  for (const char* name : {"alltypes_plain.parquet", "alltypes_dictionary.parquet", "nested_lists.snappy.parquet",
                           "datapage_v2.snappy.parquet", "alltypes_tiny_pages.parquet"}) {
    SCOPED_TRACE(name);
    std::vector<std::string> in;
    for (int i = 0; i < 2; ++i) {
      in.push_back(std::string("corpus/") + std::to_string(i) + "-" + name);
      CopyCorpusFile(std::string("parquet-testing/data/") + name, in.back());
    }
    const std::string out = std::string("out-") + name;
    auto r = RewriteFiles(fs_.get(), in, out, opts);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->row_groups_copied, r->row_groups);
    Contents want = ReadContents(fs_.get(), in);
    EXPECT_GT(want.rows, 0);
    ExpectSameContents(want, ReadContents(fs_.get(), {out}));
    ExpectCopied(fs_.get(), in[1], 0, out, static_cast<int>(Footer(in[0]).row_groups.size()));
  }
}

TEST_F(RewriteTest, CopyFastPathDecodesRowGroupsTheFilterThins) {
  Schema s = FlatSchema();
  std::vector<std::string> inputs = {"a.parquet", "b.parquet"};
  WriteInput(inputs[0], s, FlatRows(3000, 1), {}, 1000);
  WriteInput(inputs[1], s, FlatRows(2000, 2));
  // Drops rows of a.parquet's second row group only.
  RowFilter keep = [](int input, int64_t first, int64_t n) -> Result<std::vector<bool>> {
    std::vector<bool> k(static_cast<size_t>(n), true);
    if (input == 0 && first == 1000) {
      for (int64_t i = 0; i < n; i += 3) k[static_cast<size_t>(i)] = false;
    }
    return k;
  };
  RewriteOptions opts;
  opts.copy_row_group_min_bytes = 1;
  opts.row_filter = keep;
  auto res = RewriteFiles(fs_.get(), inputs, "out.parquet", opts);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->row_groups, 4);
  EXPECT_EQ(res->row_groups_copied, 3);
  EXPECT_EQ(res->rows, 5000 - 334);
  ExpectSameContents(ReadContents(fs_.get(), inputs, keep), ReadContents(fs_.get(), {"out.parquet"}));
  ExpectCopied(fs_.get(), inputs[0], 2, "out.parquet", 2);
  ExpectChunkLayout(Footer("out.parquet"));
}

TEST_F(RewriteTest, RowGroupCopyRefusesBadMetadataAndStaysUsable) {
  Schema s = FlatSchema();
  WriteInput("a.parquet", s, FlatRows(2000, 1));
  FileMetaData in = Footer("a.parquet");
  auto src = fs_->OpenForRead("a.parquet");
  ASSERT_TRUE(src.ok());
  auto out = fs_->Create("out.parquet");
  ASSERT_TRUE(out.ok());
  auto w = FileWriter::Open(std::move(out).value(), s);
  ASSERT_TRUE(w.ok());
  auto refuse = [&](RowGroup rg, StatusCode code, const std::string& text) {
    Status st = (*w)->AppendRowGroupCopy(src->get(), rg);
    EXPECT_EQ(st.code(), code) << st.ToString();
    EXPECT_NE(st.message().find(text), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("a.parquet"), std::string::npos) << st.ToString();
  };
  RowGroup bad = in.row_groups[0];
  bad.columns[2].meta_data->total_compressed_size -= 1;  // pages no longer tile the chunk
  refuse(bad, StatusCode::kCorruption, "column 'name'");
  bad = in.row_groups[0];
  bad.columns[1].meta_data->num_values += 1;
  refuse(bad, StatusCode::kCorruption, "values");
  bad = in.row_groups[0];
  bad.columns[0].meta_data->data_page_offset = 1 << 30;
  bad.columns[0].meta_data->dictionary_page_offset.reset();
  refuse(bad, StatusCode::kCorruption, "outside the file");
  bad = in.row_groups[0];
  bad.columns[3].file_path = "other.parquet";
  refuse(bad, StatusCode::kNotSupported, "another file");
  bad = in.row_groups[0];
  bad.columns.pop_back();
  refuse(bad, StatusCode::kInvalidArgument, "column chunks");
  // Nothing was written by the refusals: the good copy plus rows make a valid file.
  ASSERT_TRUE((*w)->AppendRowGroupCopy(src->get(), in.row_groups[0]).ok());
  RowBatchBuilder b(s);
  for (const auto& row : FlatRows(10, 9)) ASSERT_TRUE(b.Append(row).ok());
  ASSERT_TRUE((*w)->WriteBatch(b.Finish()).ok());
  auto md = (*w)->Close();
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->num_rows, 2010);
  ExpectChunkLayout(Footer("out.parquet"));
  ExpectCopied(fs_.get(), "a.parquet", 0, "out.parquet", 0);
  Contents got = ReadContents(fs_.get(), {"out.parquet"});
  EXPECT_EQ(got.rows, 2010);
}

// ------------------------------------------------------------ page copy

// The demo table's shape: a high-cardinality note string (mostly PLAIN after the
// dictionary overflows), low-cardinality strings, numbers, dates, nulls.
Schema DemoSchema() {
  return MustBuild({F::Timestamp("event_time"), F::Date("event_date"), F::Long("customer_id"),
                    F::Decimal("amount", 12, 2), F::String("category"), F::String("country"),
                    F::String("note")});
}

std::vector<std::vector<Value>> DemoRows(int n, int seed) {
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < n; ++i) {
    const int64_t k = int64_t{seed} * 1000003 + i;
    // The first 2500 notes repeat 256 values of 8 bytes, so that the chunk starts
    // dictionary-encoded (the writer keeps a dictionary only when its first page is smaller
    // with it) and a first page of small pages is cut before the dictionary is full; the
    // rest are unique and make it fall back to PLAIN.
    std::string note = i < 2500 ? std::to_string(10000000 + k % 256)
                               : "note " + std::to_string(k * 7919 % 1000003) + " " +
                                     std::string(static_cast<size_t>(10 + k % 40),
                                                 static_cast<char>('a' + k % 26));
    rows.push_back({V::Int(1700000000000000 + k * 1000), V::Int(19000 + k % 400),
                    i % 13 == 0 ? V::Null() : V::Int(k % 5000), V::Decimal(k * 37 - 5000),
                    V::String("cat" + std::to_string(k % 12)),
                    i % 17 == 0 ? V::Null() : V::String(k % 2 ? "NL" : "DE"),
                    i % 11 == 0 ? V::Null() : V::String(std::move(note))});
  }
  return rows;
}

// Small pages and dictionaries so that a few thousand rows make many pages and the
// note column falls back to PLAIN within the chunk.
WriterOptions SmallPages(CompressionCodec codec = CompressionCodec::kZstd) {
  WriterOptions o;
  o.codec = codec;
  o.page_size_bytes = 2048;
  o.byte_array_page_size_bytes = 2048;
  o.dictionary_page_size_limit = 8 << 10;
  return o;
}

// Footer facts that must not depend on how pages were produced.
void ExpectSameFooterStatistics(const FileMetaData& want, const FileMetaData& got) {
  EXPECT_EQ(want.num_rows, got.num_rows);
  ASSERT_EQ(want.row_groups.size(), got.row_groups.size());
  for (size_t rg = 0; rg < want.row_groups.size(); ++rg) {
    EXPECT_EQ(want.row_groups[rg].num_rows, got.row_groups[rg].num_rows);
    for (size_t c = 0; c < want.row_groups[rg].columns.size(); ++c) {
      const ColumnMetaData& w = *want.row_groups[rg].columns[c].meta_data;
      const ColumnMetaData& g = *got.row_groups[rg].columns[c].meta_data;
      EXPECT_EQ(w.statistics, g.statistics) << "row group " << rg << " column " << c;
      EXPECT_EQ(w.num_values, g.num_values) << "row group " << rg << " column " << c;
      EXPECT_EQ(w.codec, g.codec);
    }
  }
}

class PageCopyTest : public RewriteTest {
 protected:
  // Rewrites `inputs` twice, with and without page copy, and checks that both outputs
  // hold the inputs' rows (filtered by opts.row_filter) with identical footer
  // statistics. Returns the page-copy result.
  RewriteResult RewriteBothWays(const std::vector<std::string>& inputs, RewriteOptions opts) {
    opts.copy_plain_pages = false;
    auto plain = RewriteFiles(fs_.get(), inputs, "decoded.parquet", opts);
    EXPECT_TRUE(plain.ok()) << plain.status().ToString();
    opts.copy_plain_pages = true;
    auto copied = RewriteFiles(fs_.get(), inputs, "copied.parquet", opts);
    EXPECT_TRUE(copied.ok()) << copied.status().ToString();
    if (!plain.ok() || !copied.ok()) return {};
    EXPECT_EQ(plain->pages_copied, 0);
    EXPECT_EQ(plain->rows, copied->rows);
    Contents want = ReadContents(fs_.get(), inputs, opts.row_filter);
    ExpectSameContents(want, ReadContents(fs_.get(), {"decoded.parquet"}));
    ExpectSameContents(want, ReadContents(fs_.get(), {"copied.parquet"}));
    FileMetaData d = Footer("decoded.parquet"), c = Footer("copied.parquet");
    ExpectSameFooterStatistics(d, c);
    ExpectChunkLayout(c);
    // Copied pages were cut by another writer with the same page size: about the same file.
    EXPECT_LT(static_cast<double>(copied->bytes_out), 1.1 * static_cast<double>(plain->bytes_out));
    return *copied;
  }

  int64_t PlainPages(const FileMetaData& md, int leaf) {
    int64_t n = 0;
    for (const RowGroup& rg : md.row_groups) {
      for (const PageEncodingStats& e : rg.columns[static_cast<size_t>(leaf)].meta_data->encoding_stats) {
        if (e.encoding == Encoding::kPlain && e.page_type != PageType::kDictionaryPage) n += e.count;
      }
    }
    return n;
  }
};

TEST_F(PageCopyTest, FlatColumnsWithMixedDictionaryAndPlainPages) {
  Schema s = DemoSchema();
  std::vector<std::string> inputs = {"a.parquet", "b.parquet", "c.parquet"};
  WriteInput(inputs[0], s, DemoRows(3000, 1), SmallPages());
  WriteInput(inputs[1], s, DemoRows(2500, 2), SmallPages(), /*rows_per_group=*/1000);
  WriteInput(inputs[2], s, DemoRows(40, 3), SmallPages());
  // The inputs' note chunks mix dictionary and PLAIN pages.
  const FileMetaData in0 = Footer(inputs[0]);
  ASSERT_TRUE(in0.row_groups[0].columns[6].meta_data->dictionary_page_offset.has_value());
  ASSERT_GT(PlainPages(in0, 6), 0);
  RewriteOptions opts;
  opts.writer = SmallPages();
  opts.batch_rows = 700;
  RewriteResult r = RewriteBothWays(inputs, opts);
  EXPECT_GT(r.pages_copied, 20);
  EXPECT_EQ(r.rows, 5540);
  FileMetaData md = Footer("copied.parquet");
  const ColumnMetaData& note = *md.row_groups[0].columns[6].meta_data;
  EXPECT_TRUE(note.dictionary_page_offset.has_value());  // dictionary pages first, then PLAIN
  EXPECT_EQ(note.encodings, Footer("decoded.parquet").row_groups[0].columns[6].meta_data->encodings);
  // Footer statistics are the true extremes of customer_id over every input row.
  int64_t want_min = INT64_MAX, want_max = INT64_MIN;
  for (auto [n, seed] : {std::pair{3000, 1}, std::pair{2500, 2}, std::pair{40, 3}}) {
    for (const auto& row : DemoRows(n, seed)) {
      if (row[2].is_null()) continue;
      want_min = std::min(want_min, row[2].int_value());
      want_max = std::max(want_max, row[2].int_value());
    }
  }
  int64_t min = 0, max = 0;
  const Statistics& id = *md.row_groups[0].columns[2].meta_data->statistics;
  ASSERT_TRUE(id.min_value && id.max_value);
  std::memcpy(&min, id.min_value->data(), 8);
  std::memcpy(&max, id.max_value->data(), 8);
  EXPECT_EQ(min, want_min);
  EXPECT_EQ(max, want_max);
  EXPECT_EQ(*md.row_groups[0].columns[6].meta_data->statistics->null_count,
            (3000 + 10) / 11 + (2500 + 10) / 11 + (40 + 10) / 11);
}

TEST_F(PageCopyTest, StructLeavesAreCopiedListLeavesDecoded) {
  Schema s = MustBuild({F::Int("id", false),
                        F::Struct("s", {F::Double("a"), F::String("b"), F::Struct("t", {F::Long("x")})}),
                        F::List("tags", F::String("element"))});
  auto rows = [](int n, int seed) {
    std::vector<std::vector<Value>> out;
    for (int i = 0; i < n; ++i) {
      std::vector<Value> tags;
      for (int j = 0; j < i % 3; ++j) tags.push_back(V::String("t" + std::to_string(i * j + seed)));
      out.push_back({V::Int(seed * 100000 + i),
                     i % 10 == 0 ? V::Null()
                                 : V::Struct({i % 4 == 0 ? V::Null() : V::Double(i * 0.25 - seed),
                                              V::String("b-" + std::to_string(i * 7 + seed)),
                                              i % 6 == 0 ? V::Null() : V::Struct({V::Int(i * seed)})}),
                     i % 9 == 0 ? V::Null() : V::List(std::move(tags))});
    }
    return out;
  };
  WriterOptions no_dict = SmallPages();
  no_dict.enable_dictionary = false;
  std::vector<std::string> inputs = {"a.parquet", "b.parquet"};
  WriteInput(inputs[0], s, rows(3000, 1), no_dict);
  WriteInput(inputs[1], s, rows(1500, 2), no_dict, 800);
  RewriteOptions opts;
  opts.writer = no_dict;
  RewriteResult r = RewriteBothWays(inputs, opts);
  // Every page of the four flat leaves is copied; the list leaf's v1 pages are not.
  // (A chunk's last page may be too small to copy.)
  int64_t flat_pages = 0, flat_chunks = 0;
  for (const std::string& in : inputs) {
    FileMetaData md = Footer(in);
    for (int leaf = 0; leaf < 4; ++leaf) flat_pages += PlainPages(md, leaf);
    flat_chunks += 4 * static_cast<int64_t>(md.row_groups.size());
  }
  EXPECT_LE(r.pages_copied, flat_pages);
  EXPECT_GE(r.pages_copied, flat_pages - flat_chunks);
  EXPECT_GT(r.pages_copied, 10);
}

TEST_F(PageCopyTest, RowFilterThinnedPagesAreDecodedTheOthersCopied) {
  Schema s = DemoSchema();
  std::vector<std::string> inputs = {"a.parquet", "b.parquet"};
  WriteInput(inputs[0], s, DemoRows(4000, 1), SmallPages());
  WriteInput(inputs[1], s, DemoRows(3000, 2), SmallPages());
  RewriteOptions opts;
  opts.writer = SmallPages();
  RewriteResult all = RewriteBothWays(inputs, opts);
  // Drop rows 2000..2049 of the first input and every 5th row of the second input's
  // first 300 rows: pages holding them are decoded, the rest still copied.
  opts.row_filter = [](int input, int64_t first, int64_t n) -> Result<std::vector<bool>> {
    std::vector<bool> k(static_cast<size_t>(n), true);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = first + i;
      if (input == 0 && row >= 2000 && row < 2050) k[static_cast<size_t>(i)] = false;
      if (input == 1 && row < 300 && row % 5 == 0) k[static_cast<size_t>(i)] = false;
    }
    return k;
  };
  RewriteResult thinned = RewriteBothWays(inputs, opts);
  EXPECT_EQ(thinned.rows, 7000 - 50 - 60);
  EXPECT_GT(thinned.pages_copied, 0);
  EXPECT_LT(thinned.pages_copied, all.pages_copied);
}

TEST_F(PageCopyTest, OnlyPagesInTheOutputCodecAreCopied) {
  Schema s = DemoSchema();
  WriterOptions snappy = SmallPages(CompressionCodec::kSnappy);
  snappy.enable_dictionary = false;
  std::vector<std::string> inputs = {"a.parquet", "b.parquet"};
  WriteInput(inputs[0], s, DemoRows(2000, 1), snappy);
  WriteInput(inputs[1], s, DemoRows(2000, 2), snappy);
  RewriteOptions opts;
  opts.writer = SmallPages(CompressionCodec::kZstd);
  opts.writer.enable_dictionary = false;
  EXPECT_EQ(RewriteBothWays(inputs, opts).pages_copied, 0);
  opts.writer.codec = CompressionCodec::kSnappy;
  RewriteResult same = RewriteBothWays(inputs, opts);
  // No dictionary anywhere: every page is copied but perhaps a chunk's small last one.
  int64_t pages = 0;
  for (const std::string& in : inputs) {
    for (int leaf = 0; leaf < 7; ++leaf) pages += PlainPages(Footer(in), leaf);
  }
  EXPECT_LE(same.pages_copied, pages);
  EXPECT_GE(same.pages_copied, pages - 2 * 7);
  // Without page checksums in the input, the copies get computed ones (the read-back
  // above verified them); without them in the output, none are written.
  WriterOptions no_crc = snappy;
  no_crc.write_page_checksums = false;
  WriteInput("nocrc.parquet", s, DemoRows(500, 4), no_crc);
  RewriteResult r = RewriteBothWays({"nocrc.parquet", inputs[0]}, opts);
  EXPECT_GT(r.pages_copied, 0);
}

TEST_F(PageCopyTest, ForeignV1AndV2PagesMatchTheDecodePath) {
  // concatenated_gzip_members: PLAIN v2 pages (gzip of several members, copied as
  // they are); datapage_v2_empty_datapage: a v2 page without rows;
  // alltypes_tiny_pages_plain: many small PLAIN v1 pages of another writer.
  struct Case {
    const char* name;
    CompressionCodec codec;
    int copies;  // 0: some pages copied, -1: none
  };
  for (const Case& k : {Case{"concatenated_gzip_members.parquet", CompressionCodec::kGzip, 0},
                        Case{"datapage_v2_empty_datapage.snappy.parquet", CompressionCodec::kSnappy, -1},
                        Case{"alltypes_tiny_pages_plain.parquet", CompressionCodec::kUncompressed, 0}}) {
    SCOPED_TRACE(k.name);
    std::vector<std::string> in;
    for (int i = 0; i < 2; ++i) {
      in.push_back(std::string("corpus/") + std::to_string(i) + "-" + k.name);
      CopyCorpusFile(std::string("parquet-testing/data/") + k.name, in.back());
    }
    RewriteOptions opts;
    opts.writer.codec = k.codec;
    opts.writer.enable_dictionary = false;
    opts.writer.page_size_bytes = 128;  // the tiny pages are at least an eighth of it
    RewriteResult r = RewriteBothWays(in, opts);
    if (k.copies == 0) {
      EXPECT_GT(r.pages_copied, 0);
    } else {
      EXPECT_EQ(r.pages_copied, 0);  // a page without rows is decoded (to nothing)
    }
  }
  // Pages far below the output's page size are decoded, so that a file of tiny pages
  // does not pass them on: the output is as large as the decode path's.
  std::vector<std::string> in = {"tiny0.parquet", "tiny1.parquet"};
  for (const std::string& f : in) CopyCorpusFile("parquet-testing/data/alltypes_tiny_pages_plain.parquet", f);
  RewriteOptions opts;
  opts.writer.codec = CompressionCodec::kUncompressed;
  opts.writer.enable_dictionary = false;
  EXPECT_EQ(RewriteBothWays(in, opts).pages_copied, 0);
}

// A v2 page of a list column (levels RLE without length prefix, values PLAIN INT32,
// uncompressed), built from the rows' levels form.
void AppendV2ListPage(FileWriter* w, const Schema& s, const std::vector<std::vector<Value>>& rows) {
  RowBatchBuilder b(s);
  for (const auto& row : rows) ASSERT_TRUE(b.Append(row).ok());
  RowBatch batch = b.Finish();
  const ColumnData& col = batch.columns[0];
  const ColumnDescriptor& d = s.leaf(0);
  Buffer body;
  RleBitPackedEncoder rep(BitWidth(static_cast<uint64_t>(d.max_rep)));
  rep.PutLevels(col.rep_levels.data(), col.rep_levels.size());
  rep.Flush(&body);
  const size_t rep_len = body.size();
  RleBitPackedEncoder def(BitWidth(static_cast<uint64_t>(d.max_def)));
  def.PutLevels(col.def_levels.data(), col.def_levels.size());
  def.Flush(&body);
  const size_t def_len = body.size() - rep_len;
  body.Append(col.values.fixed.view());
  PageHeader h;
  h.type = PageType::kDataPageV2;
  h.uncompressed_page_size = h.compressed_page_size = static_cast<int32_t>(body.size());
  h.data_page_header_v2.emplace();
  DataPageHeaderV2& v2 = *h.data_page_header_v2;
  v2.num_values = static_cast<int32_t>(col.num_levels);
  v2.num_nulls = static_cast<int32_t>(col.num_levels - col.values.count);
  v2.num_rows = static_cast<int32_t>(batch.num_rows);
  v2.repetition_levels_byte_length = static_cast<int32_t>(rep_len);
  v2.definition_levels_byte_length = static_cast<int32_t>(def_len);
  v2.is_compressed = false;
  ASSERT_TRUE(w->AppendEncodedPage(h, body.view(), col, batch.num_rows).ok());
}

TEST_F(PageCopyTest, V2PagesOfARepeatedColumnAreCopiedWhole) {
  Schema s = MustBuild({F::List("l", F::Int("element"))});
  auto rows = [](int n, int seed) {
    std::vector<std::vector<Value>> out;
    for (int i = 0; i < n; ++i) {
      std::vector<Value> items;
      for (int j = 0; j < (i + seed) % 4; ++j) items.push_back(j == 1 ? V::Null() : V::Int(i * 10 + j + seed));
      out.push_back({i % 7 == 0 ? V::Null() : V::List(std::move(items))});
    }
    return out;
  };
  WriterOptions none;
  none.codec = CompressionCodec::kUncompressed;
  none.enable_dictionary = false;
  std::vector<std::string> inputs = {"v2a.parquet", "v2b.parquet"};
  for (int f = 0; f < 2; ++f) {
    auto out = fs_->Create(inputs[static_cast<size_t>(f)]);
    ASSERT_TRUE(out.ok());
    auto w = FileWriter::Open(std::move(out).value(), s, none);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->BeginRowGroup(700).ok());
    ASSERT_TRUE((*w)->BeginColumn(0).ok());
    AppendV2ListPage(w->get(), s, rows(300, f));
    AppendV2ListPage(w->get(), s, rows(400, f + 5));
    ASSERT_TRUE((*w)->EndColumn().ok());
    ASSERT_TRUE((*w)->EndRowGroup().ok());
    auto md = (*w)->Close();
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    ASSERT_EQ(md->row_groups[0].columns[0].meta_data->encoding_stats.back().page_type, PageType::kDataPageV2);
  }
  RewriteOptions opts;
  opts.writer = none;
  opts.writer.page_size_bytes = 1024;
  EXPECT_EQ(RewriteBothWays(inputs, opts).pages_copied, 4);
  // A filter thinning the second page of each input: those two are decoded.
  opts.row_filter = [](int, int64_t first, int64_t n) -> Result<std::vector<bool>> {
    std::vector<bool> k(static_cast<size_t>(n), true);
    for (int64_t i = 0; i < n; ++i) k[static_cast<size_t>(i)] = (first + i) != 500;
    return k;
  };
  EXPECT_EQ(RewriteBothWays(inputs, opts).pages_copied, 2);
}

// ------------------------------------------------------------ column-at-a-time API

// Column c of `batch`, only the rows with keep[r].
RowBatch Slice(const RowBatch& batch, int c, const std::vector<bool>& keep) {
  const ColumnData& src = batch.columns[static_cast<size_t>(c)];
  RowBatch one;
  one.num_rows = batch.num_rows;
  one.columns.emplace_back();
  ColumnData& dst = one.columns.back();
  dst.leaf_index = src.leaf_index;
  dst.descr = src.descr;
  dst.num_levels = src.num_levels;
  dst.def_levels = src.def_levels;
  dst.rep_levels = src.rep_levels;
  dst.values.type = src.values.type;
  dst.values.type_length = src.values.type_length;
  dst.values.AppendRange(src.values, 0, src.values.count);
  FilterRows(&one, keep);
  return one;
}

// The whole file at `path`.
std::string FileBytes(io::FileSystem* fs, const std::string& path) {
  auto size = fs->Head(path);
  EXPECT_TRUE(size.ok()) << path;
  return size.ok() ? Bytes(fs, path, 0, static_cast<int64_t>(size->size)) : std::string();
}

class ColumnApiTest : public RewriteTest {
 protected:
  std::unique_ptr<FileWriter> Open(const Schema& s, WriterOptions opts = {}) {
    auto out = faulty_.Create("col.parquet");
    EXPECT_TRUE(out.ok());
    auto w = FileWriter::Open(std::move(out).value(), s, opts);
    EXPECT_TRUE(w.ok());
    return std::move(w).value();
  }
  // The buffer tests' table: a required long and a string, 100 rows.
  static Schema LongAndString() { return MustBuild({F::Long("a", false), F::String("b")}); }
  static RowBatch HundredRows(const Schema& s) {
    RowBatchBuilder b(s);
    for (int i = 0; i < 100; ++i) EXPECT_TRUE(b.Append({V::Int(i), V::String("s" + std::to_string(i % 9))}).ok());
    return b.Finish();
  }
  // The bytes of `row_groups` row groups of `batch` written through open columns (the
  // reference the buffered writes must equal).
  std::string StreamedBytes(const Schema& s, const RowBatch& batch, int row_groups) {
    auto w = Open(s);
    for (int rg = 0; rg < row_groups; ++rg) {
      EXPECT_TRUE(w->BeginRowGroup(batch.num_rows).ok());
      for (int c = 0; c < static_cast<int>(batch.columns.size()); ++c) {
        EXPECT_TRUE(w->BeginColumn(c).ok());
        EXPECT_TRUE(w->WriteColumn(batch.columns[c], batch.num_rows).ok());
        EXPECT_TRUE(w->EndColumn().ok());
      }
      EXPECT_TRUE(w->EndRowGroup().ok());
    }
    EXPECT_TRUE(w->Close().ok());
    return FileBytes(fs_.get(), "col.parquet");
  }
  io::FaultInjectingFileSystem faulty_{fs_.get()};
};

TEST_F(ColumnApiTest, PagesStreamWhileAColumnIsOpen) {
  Schema s = MustBuild({F::Long("plain", false), F::String("low"), F::String("high", false)});
  RowBatchBuilder b(s);
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(b.Append({V::Int(i * 7919), i % 4 == 0 ? V::Null() : V::String(i % 2 ? "a" : "b"),
                          V::String("unique-" + std::to_string(i))}).ok());
  }
  RowBatch batch = b.Finish();
  WriterOptions opts;
  opts.page_size_bytes = 4096;
  opts.byte_array_page_size_bytes = 4096;
  opts.dictionary_page_size_limit = 16 << 10;
  opts.enable_dictionary = true;
  WriterOptions no_dict = opts;
  no_dict.enable_dictionary = false;
  // Column 0 without dictionary in a separate writer: every page streams.
  {
    Schema one = MustBuild({F::Long("plain", false)});
    auto w = Open(one, no_dict);
    ASSERT_TRUE(w->BeginRowGroup(20000).ok());
    ASSERT_TRUE(w->BeginColumn(0).ok());
    int64_t before = faulty_.calls(io::FsOp::kAppend);
    ASSERT_TRUE(w->WriteColumn(batch.columns[0], 20000).ok());
    EXPECT_GT(faulty_.calls(io::FsOp::kAppend) - before, 10);  // 160 KB in 4 KB pages
    ASSERT_TRUE(w->EndColumn().ok());
    ASSERT_TRUE(w->EndRowGroup().ok());
    ASSERT_TRUE(w->Close().ok());
  }
  auto w = Open(s, opts);
  ASSERT_TRUE(w->BeginRowGroup(20000).ok());
  int64_t appends[3];
  for (int c = 0; c < 3; ++c) {
    ASSERT_TRUE(w->BeginColumn(c).ok());
    int64_t before = faulty_.calls(io::FsOp::kAppend);
    // In two calls, to exercise appending to an open column.
    std::vector<bool> keep_first(20000, false);
    for (int i = 0; i < 12345; ++i) keep_first[i] = true;
    RowBatch copy_a = Slice(batch, c, keep_first);
    std::vector<bool> keep_second(20000);
    for (int i = 0; i < 20000; ++i) keep_second[i] = !keep_first[i];
    RowBatch copy_b = Slice(batch, c, keep_second);
    ASSERT_TRUE(w->WriteColumn(copy_a.columns[0], copy_a.num_rows).ok());
    ASSERT_TRUE(w->WriteColumn(copy_b.columns[0], copy_b.num_rows).ok());
    appends[c] = faulty_.calls(io::FsOp::kAppend) - before;
    ASSERT_TRUE(w->EndColumn().ok());
  }
  ASSERT_TRUE(w->EndRowGroup().ok());
  auto md = w->Close();
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_GT(appends[0], 0);   // int64: dictionary overflows 16 KB early, then streams
  EXPECT_EQ(appends[1], 0);   // 2 distinct values: buffered until the chunk ends
  EXPECT_GT(appends[2], 0);   // strings: falls back to PLAIN, streams
  ExpectChunkLayout(*md);
  const ColumnMetaData& low = *md->row_groups[0].columns[1].meta_data;
  EXPECT_TRUE(low.dictionary_page_offset.has_value());
  // Read back equal to the input.
  Contents got = ReadContents(fs_.get(), {"col.parquet"});
  Contents want;
  want.rows = 20000;
  want.columns.resize(3);
  for (int c = 0; c < 3; ++c) AppendFlat(batch.columns[c], &want.columns[c]);
  ExpectSameContents(want, got);
}

TEST_F(ColumnApiTest, EncodedPagesOnlyIntoPlainChunks) {
  Schema s = MustBuild({F::Long("a", false)});
  RowBatchBuilder b(s);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(b.Append({V::Int(i)}).ok());
  RowBatch batch = b.Finish();
  PageHeader h;
  h.type = PageType::kDataPage;
  h.data_page_header.emplace();
  h.data_page_header->num_values = 100;
  h.uncompressed_page_size = 800;
  h.compressed_page_size = 800;
  std::vector<uint8_t> body(800);
  std::memcpy(body.data(), batch.columns[0].values.fixed.data(), 800);
  WriterOptions none;
  none.codec = CompressionCodec::kUncompressed;
  {
    // Dictionary mode: refused (values would precede the dictionary-encoded ones).
    auto w = Open(s, none);
    ASSERT_TRUE(w->BeginRowGroup(100).ok());
    EXPECT_FALSE(w->ColumnAcceptsEncodedPages());  // no column open
    ASSERT_TRUE(w->BeginColumn(0).ok());
    EXPECT_FALSE(w->ColumnAcceptsEncodedPages());
    EXPECT_EQ(w->AppendEncodedPage(h, ByteView(body.data(), body.size()), batch.columns[0], 100).code(),
              StatusCode::kInvalidArgument);
  }
  none.enable_dictionary = false;
  auto w = Open(s, none);
  ASSERT_TRUE(w->BeginRowGroup(100).ok());
  ASSERT_TRUE(w->BeginColumn(0).ok());
  ASSERT_TRUE(w->ColumnAcceptsEncodedPages());
  PageHeader dict = h;
  dict.data_page_header->encoding = Encoding::kRleDictionary;
  EXPECT_EQ(w->AppendEncodedPage(dict, ByteView(body.data(), body.size()), batch.columns[0], 100).code(),
            StatusCode::kInvalidArgument);
  auto w2 = Open(s, none);
  ASSERT_TRUE(w2->BeginRowGroup(100).ok());
  ASSERT_TRUE(w2->BeginColumn(0).ok());
  ASSERT_TRUE(w2->AppendEncodedPage(h, ByteView(body.data(), body.size()), batch.columns[0], 100).ok());
  ASSERT_TRUE(w2->EndColumn().ok());
  ASSERT_TRUE(w2->EndRowGroup().ok());
  auto md = w2->Close();
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const Statistics& st = *md->row_groups[0].columns[0].meta_data->statistics;
  int64_t mn = -1, mx = -1;
  ASSERT_TRUE(st.min_value && st.max_value);
  std::memcpy(&mn, st.min_value->data(), 8);
  std::memcpy(&mx, st.max_value->data(), 8);
  EXPECT_EQ(mn, 0);
  EXPECT_EQ(mx, 99);
  Contents got = ReadContents(fs_.get(), {"col.parquet"});
  Contents want;
  want.rows = 100;
  want.columns.resize(1);
  AppendFlat(batch.columns[0], &want.columns[0]);
  ExpectSameContents(want, got);
}

TEST_F(ColumnApiTest, MisuseIsRejectedAndSticky) {
  Schema s = MustBuild({F::Long("a", false), F::List("l", F::Int("element"))});
  RowBatchBuilder b(s);
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(b.Append({V::Int(i), V::List({V::Int(i), V::Int(i + 1)})}).ok());
  }
  RowBatch batch = b.Finish();
  {
    auto w = Open(s);
    EXPECT_EQ(w->BeginColumn(0).code(), StatusCode::kInvalidArgument);  // no row group
  }
  {
    auto w = Open(s);
    EXPECT_EQ(w->BeginRowGroup(0).code(), StatusCode::kInvalidArgument);
  }
  {
    auto w = Open(s);
    ASSERT_TRUE(w->BeginRowGroup(10).ok());
    EXPECT_EQ(w->BeginColumn(1).code(), StatusCode::kInvalidArgument);  // out of order
    EXPECT_FALSE(w->BeginColumn(0).ok());                                // sticky
    EXPECT_FALSE(w->Close().ok());
  }
  EXPECT_FALSE(fs_->Head("col.parquet").ok());
  {
    auto w = Open(s);
    ASSERT_TRUE(w->BeginRowGroup(10).ok());
    ASSERT_TRUE(w->BeginColumn(0).ok());
    EXPECT_EQ(w->WriteBatch(batch).code(), StatusCode::kInvalidArgument);  // row group open
  }
  {
    auto w = Open(s);
    ASSERT_TRUE(w->BeginRowGroup(9).ok());
    ASSERT_TRUE(w->BeginColumn(0).ok());
    EXPECT_EQ(w->WriteColumn(batch.columns[0], 10).code(), StatusCode::kInvalidArgument);
  }
  {
    auto w = Open(s);
    ASSERT_TRUE(w->BeginRowGroup(11).ok());
    ASSERT_TRUE(w->BeginColumn(0).ok());
    ASSERT_TRUE(w->WriteColumn(batch.columns[0], 10).ok());
    Status st = w->EndColumn();  // 10 of 11 rows
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.ToString().find("'a'"), std::string::npos) << st.ToString();
  }
  {
    auto w = Open(s);
    ASSERT_TRUE(w->BeginRowGroup(10).ok());
    ASSERT_TRUE(w->BeginColumn(0).ok());
    // The list column's levels claim 10 rows, but it is leaf 1.
    EXPECT_EQ(w->WriteColumn(batch.columns[1], 10).code(), StatusCode::kInvalidArgument);
  }
  {
    auto w = Open(s);
    ASSERT_TRUE(w->BeginRowGroup(10).ok());
    ASSERT_TRUE(w->BeginColumn(0).ok());
    ASSERT_TRUE(w->WriteColumn(batch.columns[0], 10).ok());
    ASSERT_TRUE(w->EndColumn().ok());
    EXPECT_EQ(w->EndRowGroup().code(), StatusCode::kInvalidArgument);  // leaf 1 missing
  }
  EXPECT_FALSE(fs_->Head("col.parquet").ok());
  // Mixing modes between row groups works.
  {
    auto w = Open(s);
    ASSERT_TRUE(w->WriteBatch(batch).ok());  // pending rows: flushed by BeginRowGroup
    ASSERT_TRUE(w->BeginRowGroup(10).ok());
    for (int c = 0; c < 2; ++c) {
      ASSERT_TRUE(w->BeginColumn(c).ok());
      ASSERT_TRUE(w->WriteColumn(batch.columns[c], 10).ok());
      ASSERT_TRUE(w->EndColumn().ok());
    }
    ASSERT_TRUE(w->EndRowGroup().ok());
    ASSERT_TRUE(w->WriteBatch(batch).ok());
    auto md = w->Close();
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    ASSERT_EQ(md->row_groups.size(), 3u);
    ExpectChunkLayout(*md);
    Contents got = ReadContents(fs_.get(), {"col.parquet"});
    EXPECT_EQ(got.rows, 30);
    Contents one;
    one.columns.resize(2);
    for (int c = 0; c < 2; ++c) AppendFlat(batch.columns[c], &one.columns[c]);
    for (int c = 0; c < 2; ++c) {
      Flat f;
      for (int k = 0; k < 3; ++k) {
        f.def.insert(f.def.end(), one.columns[c].def.begin(), one.columns[c].def.end());
        f.rep.insert(f.rep.end(), one.columns[c].rep.begin(), one.columns[c].rep.end());
        f.values.insert(f.values.end(), one.columns[c].values.begin(), one.columns[c].values.end());
      }
      EXPECT_TRUE(f == got.columns[c]) << c;
    }
  }
}

// ------------------------------------------------------------ column chunks in parallel

class ParallelColumnsTest : public RewriteTest {
 protected:
  // Rewrites `inputs` with one thread and with several, and checks that every output is
  // byte for byte the one-thread output, with the same counts and the same progress
  // reports. Returns the one-thread result.
  RewriteResult ExpectSameBytes(const std::vector<std::string>& inputs, RewriteOptions opts) {
    using Report = std::tuple<int, int, int, int, int64_t>;
    std::vector<Report> reports;
    opts.progress = [&reports](const RewriteProgress& p) {
      reports.emplace_back(p.row_groups_done, p.row_groups_total, p.columns_done, p.columns_total, p.rows_written);
    };
    opts.threads = 1;
    auto one = RewriteFiles(fs_.get(), inputs, "one.parquet", opts);
    EXPECT_TRUE(one.ok()) << one.status().ToString();
    if (!one.ok()) return {};
    const std::string want = FileBytes(fs_.get(), "one.parquet");
    const std::vector<Report> want_reports = std::move(reports);
    for (int threads : {2, 3, 16, 0}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      opts.threads = threads;
      reports.clear();
      auto many = RewriteFiles(fs_.get(), inputs, "many.parquet", opts);
      EXPECT_TRUE(reports == want_reports);
      EXPECT_TRUE(many.ok()) << many.status().ToString();
      if (!many.ok()) continue;
      EXPECT_EQ(many->rows, one->rows);
      EXPECT_EQ(many->row_groups, one->row_groups);
      EXPECT_EQ(many->pages_copied, one->pages_copied);
      EXPECT_EQ(many->row_groups_copied, one->row_groups_copied);
      EXPECT_EQ(many->bytes_out, one->bytes_out);
      EXPECT_TRUE(FileBytes(fs_.get(), "many.parquet") == want);
    }
    return *one;
  }
};

TEST_F(ParallelColumnsTest, FlatAndNestedOutputsAreTheOneThreadBytes) {
  for (bool nested : {false, true}) {
    SCOPED_TRACE(nested ? "nested" : "flat");
    Schema s = nested ? NestedSchema() : FlatSchema();
    std::vector<std::string> inputs = {"a.parquet", "b.parquet", "c.parquet"};
    WriteInput(inputs[0], s, nested ? NestedRows(1200, 1) : FlatRows(1200, 1), {}, 500);
    WriteInput(inputs[1], s, nested ? NestedRows(3000, 2) : FlatRows(3000, 2));
    WriteInput(inputs[2], s, nested ? NestedRows(40, 3) : FlatRows(40, 3));
    RewriteOptions opts;
    opts.writer.page_size_bytes = 1024;
    opts.writer.row_group_size_bytes = 8 << 10;  // several output row groups
    opts.batch_rows = 333;
    RewriteResult r = ExpectSameBytes(inputs, opts);
    EXPECT_GT(r.row_groups, 1);
    EXPECT_EQ(r.rows, 4240);
    ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"many.parquet"}));
  }
}

TEST_F(ParallelColumnsTest, FilteredSplitCopiedAndReopenedInputsAreTheOneThreadBytes) {
  Schema s = FlatSchema();
  std::vector<std::string> inputs = {"big.parquet", "small.parquet", "large-rgs.parquet"};
  WriterOptions plain;
  plain.page_size_bytes = 2048;
  plain.enable_dictionary = false;  // PLAIN pages: page copy, inside slices too
  WriteInput(inputs[0], s, FlatRows(9000, 1), plain);  // one row group, to split
  WriteInput(inputs[1], s, FlatRows(300, 2), plain);
  WriteInput(inputs[2], s, FlatRows(6000, 3), plain, 3000);
  RewriteOptions opts;
  opts.writer = plain;
  opts.writer.row_group_size_bytes = *Footer(inputs[0]).row_groups.at(0).total_compressed_size / 3 + 1;
  opts.split_row_groups = true;
  opts.batch_rows = 700;
  opts.row_filter = [](int input, int64_t first, int64_t n) -> Result<std::vector<bool>> {
    std::vector<bool> keep(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) keep[r] = input == 2 || (first + r) % 7 != 3;
    return keep;
  };
  RewriteResult r = ExpectSameBytes(inputs, opts);
  EXPECT_GT(r.pages_copied, 0);
  // Whole row groups copied, and every input reopened per leaf (one reader kept).
  opts.row_filter = nullptr;
  opts.copy_row_group_min_bytes = 1;
  opts.max_open_inputs = 1;
  r = ExpectSameBytes({inputs[1], inputs[2]}, opts);
  EXPECT_GT(r.row_groups_copied, 0);
  opts.copy_row_group_min_bytes = 0;
  r = ExpectSameBytes(inputs, opts);
  ExpectSameContents(ReadContents(fs_.get(), inputs), ReadContents(fs_.get(), {"many.parquet"}));
}

// Many small output row groups, fewer leaves than the window: leaves of consecutive row
// groups are in flight together, the row groups' dictionaries and statistics carried
// from one to the next in leaf order. Row groups the filter empties and row groups copied
// whole sit between them.
TEST_F(ParallelColumnsTest, ManySmallRowGroupsAreTheOneThreadBytes) {
  Schema s = MustBuild({F::Long("id", false), F::String("name"), F::Double("x")});
  auto rows = [](int n, int seed) {
    std::vector<std::vector<Value>> out;
    for (int i = 0; i < n; ++i) {
      out.push_back({V::Int(int64_t{seed} * 100000 + i),
                     i % 4 == 0 ? V::Null() : V::String("v" + std::to_string((i * 7 + seed) % 23)),
                     V::Double(i * 0.25 + seed)});
    }
    return out;
  };
  std::vector<std::string> inputs;
  for (int i = 0; i < 6; ++i) {
    inputs.push_back("in" + std::to_string(i) + ".parquet");
    WriteInput(inputs.back(), s, rows(900 + 37 * i, i), {}, 150);
  }
  RewriteOptions opts;
  opts.writer.page_size_bytes = 512;
  opts.writer.row_group_size_bytes = 1;  // each input row group an output row group of its own
  opts.batch_rows = 64;
  // Input 2 entirely and a few rows of inputs 0, 3 and 5 dropped.
  opts.row_filter = [](int input, int64_t first, int64_t n) -> Result<std::vector<bool>> {
    std::vector<bool> keep(static_cast<size_t>(n), input != 2);
    if (input % 3 == 0 || input == 5) {
      for (int64_t r = 0; r < n; ++r) keep[r] = (first + r) % 11 != 4;
    }
    return keep;
  };
  RewriteResult r = ExpectSameBytes(inputs, opts);
  EXPECT_GT(r.row_groups, 30);
  ExpectSameContents(ReadContents(fs_.get(), inputs, opts.row_filter), ReadContents(fs_.get(), {"many.parquet"}));
  // Inputs the filter keeps whole copied, the others decoded between them.
  opts.copy_row_group_min_bytes = 1;
  r = ExpectSameBytes(inputs, opts);
  EXPECT_GT(r.row_groups_copied, 0);
  ExpectSameContents(ReadContents(fs_.get(), inputs, opts.row_filter), ReadContents(fs_.get(), {"many.parquet"}));
}

// The error returned is the first in (group, leaf) order, as on one thread: leaves of
// the first row group fail reading while the row filter fails for the next one, which
// the pipeline calls before those leaves are appended.
TEST_F(ParallelColumnsTest, TheFirstFailureInRowGroupOrderIsReturned) {
  Schema s = FlatSchema();
  WriteInput("a.parquet", s, FlatRows(1200, 1), {}, 300);
  RewriteOptions opts;
  opts.writer.row_group_size_bytes = 1;
  int filtered = 0;
  opts.row_filter = [&filtered](int, int64_t first, int64_t n) -> Result<std::vector<bool>> {
    ++filtered;
    if (first > 0) return Status::InvalidArgument("filter of a later row group");
    return std::vector<bool>(static_cast<size_t>(n), true);
  };
  io::FaultInjectingFileSystem faulty(fs_.get());
  // The fewest reads let through for the plan (footers) to succeed: then every read of
  // the first row group's chunks fails.
  int skip = 0;
  for (;; ++skip) {
    ASSERT_LT(skip, 50);
    faulty.Clear();
    faulty.Inject({io::FsOp::kReadAt, "a.parquet", Status::IOError("injected"), skip, -1});
    filtered = 0;
    opts.threads = 1;
    auto res = RewriteFiles(&faulty, {"a.parquet"}, "x.parquet", opts);
    ASSERT_FALSE(res.ok());
    if (filtered > 0) {
      EXPECT_EQ(res.status().code(), StatusCode::kIOError) << res.status().ToString();
      break;
    }
  }
  for (int threads : {2, 3, 5}) {
    faulty.Clear();
    faulty.Inject({io::FsOp::kReadAt, "a.parquet", Status::IOError("injected"), skip, -1});
    opts.threads = threads;
    auto res = RewriteFiles(&faulty, {"a.parquet"}, "x.parquet", opts);
    ASSERT_FALSE(res.ok());
    EXPECT_EQ(res.status().code(), StatusCode::kIOError) << threads << ": " << res.status().ToString();
    EXPECT_FALSE(fs_->Head("x.parquet").ok());
  }
}

// Rewrites running as CPU-pool tasks (as executor bins may) wait for their column tasks
// on a pool of one thread: the waiters run them, nothing deadlocks.
TEST_F(ParallelColumnsTest, NestedInTasksOfAOneThreadPool) {
  Schema s = FlatSchema();
  std::vector<std::string> inputs = {"a.parquet", "b.parquet"};
  WriteInput(inputs[0], s, FlatRows(2000, 1), {}, 700);
  WriteInput(inputs[1], s, FlatRows(2000, 2));
  RewriteOptions opts;
  opts.writer.row_group_size_bytes = 8 << 10;
  opts.threads = 1;
  ASSERT_TRUE(RewriteFiles(fs_.get(), inputs, "one.parquet", opts).ok());
  const std::string want = FileBytes(fs_.get(), "one.parquet");
  ReplaceCpuPoolForTesting(1);
  opts.threads = 4;
  Status st = ParallelFor(CpuPool(), 4, 4, [&](size_t i) {
    return RewriteFiles(fs_.get(), inputs, "bin" + std::to_string(i) + ".parquet", opts).status();
  });
  ReplaceCpuPoolForTesting(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(FileBytes(fs_.get(), "bin" + std::to_string(i) + ".parquet") == want) << i;
}

TEST_F(ParallelColumnsTest, AFailingColumnLeavesNoOutput) {
  Schema s = FlatSchema();
  std::vector<std::string> inputs = {"in/a.parquet", "in/b.parquet", "in/c.parquet"};
  for (int i = 0; i < 3; ++i) WriteInput(inputs[i], s, FlatRows(500, i), {}, 200);
  io::FaultInjectingFileSystem faulty(fs_.get());
  for (io::FsOp op : {io::FsOp::kReadAt, io::FsOp::kAppend}) {
    faulty.Clear();
    io::Fault f;
    f.op = op;
    f.path_contains = op == io::FsOp::kReadAt ? "c.parquet" : "x.parquet";
    f.skip = op == io::FsOp::kReadAt ? 10 : 3;
    faulty.Inject(f);
    RewriteOptions opts;
    opts.threads = 3;
    auto res = RewriteFiles(&faulty, inputs, "out/x.parquet", opts);
    ASSERT_FALSE(res.ok());
    EXPECT_EQ(res.status().code(), StatusCode::kIOError) << res.status().ToString();
    EXPECT_FALSE(fs_->Head("out/x.parquet").ok());
  }
}

TEST_F(ColumnApiTest, ColumnBuffersAppendInLeafOrderOnly) {
  const Schema s = LongAndString();
  const RowBatch batch = HundredRows(s);
  // The same row group written through an open column and through buffers.
  const std::string want = StreamedBytes(s, batch, 1);

  auto w = Open(s);
  ASSERT_TRUE(w->BeginRowGroup(100).ok());
  auto b1 = w->BeginColumnBuffer(1);
  ASSERT_TRUE(b1.ok()) << b1.status().ToString();
  auto b0 = w->BeginColumnBuffer(0);
  ASSERT_TRUE(b0.ok());
  ASSERT_TRUE((*b1)->WriteColumn(batch.columns[1], 100).ok());
  ASSERT_TRUE((*b1)->Finish().ok());
  EXPECT_EQ((*b0)->Finish().code(), StatusCode::kInvalidArgument);  // 0 of 100 rows
  EXPECT_EQ((*b0)->WriteColumn(batch.columns[0], 100).code(), StatusCode::kInvalidArgument);  // sticky
  EXPECT_EQ(w->BeginColumnBuffer(1).status().code(), StatusCode::kInvalidArgument);  // one per leaf

  // Encoded out of order, appended in order: the streamed file's bytes.
  auto w2 = Open(s);
  ASSERT_TRUE(w2->BeginRowGroup(100).ok());
  auto c1 = w2->BeginColumnBuffer(1);
  auto c0 = w2->BeginColumnBuffer(0);
  ASSERT_TRUE(c0.ok() && c1.ok());
  ASSERT_TRUE((*c1)->WriteColumn(batch.columns[1], 100).ok());
  ASSERT_TRUE((*c1)->Finish().ok());
  ASSERT_TRUE((*c0)->WriteColumn(batch.columns[0], 100).ok());
  ASSERT_TRUE((*c0)->Finish().ok());
  ASSERT_TRUE(w2->AppendColumnBuffer(std::move(*c0)).ok());
  ASSERT_TRUE(w2->AppendColumnBuffer(std::move(*c1)).ok());
  ASSERT_TRUE(w2->EndRowGroup().ok());
  ASSERT_TRUE(w2->Close().ok());
  EXPECT_TRUE(FileBytes(fs_.get(), "col.parquet") == want);

  // Out of leaf order: refused, and sticky.
  auto w3 = Open(s);
  ASSERT_TRUE(w3->BeginRowGroup(100).ok());
  auto e1 = w3->BeginColumnBuffer(1);
  ASSERT_TRUE(e1.ok());
  ASSERT_TRUE((*e1)->WriteColumn(batch.columns[1], 100).ok());
  ASSERT_TRUE((*e1)->Finish().ok());
  EXPECT_EQ(w->AppendColumnBuffer(std::move(*b1)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w3->AppendColumnBuffer(std::move(*e1)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w3->BeginColumnBuffer(0).status().code(), StatusCode::kInvalidArgument);
}

// A leaf's buffer of the next row group, begun once its chunk of the open one is
// appended: the file is the one written row group after row group.
TEST_F(ColumnApiTest, BuffersOfTheNextRowGroup) {
  const Schema s = LongAndString();
  const RowBatch batch = HundredRows(s);
  auto write = [&](ColumnBuffer* buf, int c) {
    EXPECT_TRUE(buf->WriteColumn(batch.columns[c], 100).ok());
    EXPECT_TRUE(buf->Finish().ok());
  };
  const std::string want = StreamedBytes(s, batch, 2);

  auto w = Open(s);
  ASSERT_TRUE(w->BeginRowGroup(100).ok());
  auto a0 = w->BeginColumnBuffer(0);
  auto a1 = w->BeginColumnBuffer(1);
  ASSERT_TRUE(a0.ok() && a1.ok());
  write(a0->get(), 0);
  write(a1->get(), 1);
  ASSERT_TRUE(w->AppendColumnBuffer(std::move(*a0)).ok());
  auto n0 = w->BeginNextRowGroupBuffer(0, 100);
  ASSERT_TRUE(n0.ok()) << n0.status().ToString();
  write(n0->get(), 0);
  ASSERT_TRUE(w->AppendColumnBuffer(std::move(*a1)).ok());
  ASSERT_TRUE(w->EndRowGroup().ok());
  // Nothing but the next row group while its buffers are out (not sticky).
  EXPECT_EQ(w->WriteBatch(batch).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w->Close().status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(w->BeginRowGroup(100).ok());
  auto n1 = w->BeginColumnBuffer(1);
  ASSERT_TRUE(n1.ok());
  write(n1->get(), 1);
  ASSERT_TRUE(w->AppendColumnBuffer(std::move(*n0)).ok());
  ASSERT_TRUE(w->AppendColumnBuffer(std::move(*n1)).ok());
  ASSERT_TRUE(w->EndRowGroup().ok());
  ASSERT_TRUE(w->Close().ok());
  EXPECT_TRUE(FileBytes(fs_.get(), "col.parquet") == want);

  // Refused, and sticky: a leaf whose chunk of the open row group is not appended yet
  // (its column writer is still busy with it) ...
  auto w2 = Open(s);
  ASSERT_TRUE(w2->BeginRowGroup(100).ok());
  auto b0 = w2->BeginColumnBuffer(0);
  ASSERT_TRUE(b0.ok());
  EXPECT_EQ(w2->BeginNextRowGroupBuffer(0, 100).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w2->BeginNextRowGroupBuffer(1, 100).status().code(), StatusCode::kInvalidArgument);
  // ... a next row group of another row count than its buffers' ...
  auto w3 = Open(s);
  ASSERT_TRUE(w3->BeginRowGroup(100).ok());
  auto c0 = w3->BeginColumnBuffer(0);
  ASSERT_TRUE(c0.ok());
  write(c0->get(), 0);
  ASSERT_TRUE(w3->AppendColumnBuffer(std::move(*c0)).ok());
  auto d0 = w3->BeginNextRowGroupBuffer(0, 100);
  ASSERT_TRUE(d0.ok());
  EXPECT_EQ(w3->BeginNextRowGroupBuffer(0, 100).status().code(), StatusCode::kInvalidArgument);  // one per leaf
  auto w4 = Open(s);
  ASSERT_TRUE(w4->BeginRowGroup(100).ok());
  ASSERT_TRUE(w4->BeginColumn(0).ok());
  ASSERT_TRUE(w4->WriteColumn(batch.columns[0], 100).ok());
  ASSERT_TRUE(w4->EndColumn().ok());
  auto e0 = w4->BeginNextRowGroupBuffer(0, 50);  // a streamed chunk frees its leaf too
  ASSERT_TRUE(e0.ok()) << e0.status().ToString();
  ASSERT_TRUE(w4->BeginColumn(1).ok());
  ASSERT_TRUE(w4->WriteColumn(batch.columns[1], 100).ok());
  ASSERT_TRUE(w4->EndColumn().ok());
  ASSERT_TRUE(w4->EndRowGroup().ok());
  EXPECT_EQ(w4->BeginRowGroup(100).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w4->BeginRowGroup(50).code(), StatusCode::kInvalidArgument);  // sticky
  // ... and a buffer of the next row group appended to the open one.
  auto w5 = Open(s);
  ASSERT_TRUE(w5->BeginRowGroup(100).ok());
  auto f0 = w5->BeginColumnBuffer(0);
  ASSERT_TRUE(f0.ok());
  write(f0->get(), 0);
  ASSERT_TRUE(w5->AppendColumnBuffer(std::move(*f0)).ok());
  auto g0 = w5->BeginNextRowGroupBuffer(0, 100);
  ASSERT_TRUE(g0.ok());
  write(g0->get(), 0);
  EXPECT_EQ(w5->AppendColumnBuffer(std::move(*g0)).code(), StatusCode::kInvalidArgument);
}

TEST_F(ColumnApiTest, BufferSizeHintsChangeNoByte) {
  Schema s = MustBuild({F::Long("a", false), F::String("b")});
  RowBatchBuilder b(s);
  for (int i = 0; i < 5000; ++i) {
    ASSERT_TRUE(b.Append({V::Int(i * 7919), V::String("value-" + std::to_string(i * 31))}).ok());
  }
  RowBatch batch = b.Finish();
  // Three row groups through buffers with the given hints (0: none, so later row groups
  // take the last chunk's size; too small; far too big): the same file every time.
  auto write = [&](size_t hint) {
    auto w = Open(s);
    for (int rg = 0; rg < 3; ++rg) {
      EXPECT_TRUE(w->BeginRowGroup(5000).ok());
      std::vector<std::unique_ptr<ColumnBuffer>> bufs;
      for (int c = 0; c < 2; ++c) {
        auto buf = w->BeginColumnBuffer(c, hint);
        EXPECT_TRUE(buf.ok());
        EXPECT_TRUE((*buf)->WriteColumn(batch.columns[c], 5000).ok());
        EXPECT_TRUE((*buf)->Finish().ok());
        bufs.push_back(std::move(*buf));
      }
      for (auto& buf : bufs) EXPECT_TRUE(w->AppendColumnBuffer(std::move(buf)).ok());
      EXPECT_TRUE(w->EndRowGroup().ok());
    }
    EXPECT_TRUE(w->Close().ok());
    return FileBytes(fs_.get(), "col.parquet");
  };
  const std::string want = write(0);
  EXPECT_GT(want.size(), 20000u);
  EXPECT_TRUE(write(16) == want);
  EXPECT_TRUE(write(size_t{64} << 20) == want);
}

}  // namespace
}  // namespace lithify::parquet
