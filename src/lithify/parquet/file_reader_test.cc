// FileReader tests over the shared conformance corpus (read in place) and hand-made
// malformed files.
#include "lithify/parquet/file_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/encoding.h"
#include "lithify/parquet/metadata.h"
#include "lithify_test_paths.h"

namespace lithify::parquet {
namespace {

const std::string kCorpus = std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus";
const std::string kData = kCorpus + "/parquet-testing/data/";

io::FileSystem* Fs() {
  static std::unique_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  return fs.get();
}

Result<std::unique_ptr<FileReader>> OpenPath(const std::string& path, ReadOptions opts = {}) {
  return FileReader::Open(Fs(), path, opts);
}

std::unique_ptr<FileReader> OpenOk(const std::string& name, ReadOptions opts = {}) {
  auto r = OpenPath(kData + name, opts);
  EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

// Appends `src` to `dst` (same leaf), for reading a column across row groups.
void AppendColumn(ColumnData* dst, const ColumnData& src) {
  dst->leaf_index = src.leaf_index;
  dst->descr = src.descr;
  dst->num_levels += src.num_levels;
  dst->def_levels.insert(dst->def_levels.end(), src.def_levels.begin(), src.def_levels.end());
  dst->rep_levels.insert(dst->rep_levels.end(), src.rep_levels.begin(), src.rep_levels.end());
  if (dst->values.count == 0) {
    dst->values.type = src.values.type;
    dst->values.type_length = src.values.type_length;
  }
  dst->values.AppendRange(src.values, 0, src.values.count);
}

// Reads every row group of one column, or fails the test.
ColumnData ReadColumn(FileReader* reader, const std::string& name, int64_t* rows = nullptr) {
  ColumnData out;
  auto leaves = ResolveColumns(reader->schema(), {name});
  EXPECT_TRUE(leaves.ok()) << leaves.status().ToString();
  if (!leaves.ok() || leaves->size() != 1) return out;
  int64_t total = 0;
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    auto batch = reader->ReadRowGroup(rg, *leaves);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) return out;
    total += batch->num_rows;
    AppendColumn(&out, batch->columns[0]);
  }
  if (rows) *rows = total;
  return out;
}

// Renders a flat column as strings, "<null>" for nulls: the comparison form of the tests.
std::string ValueString(const ColumnValues& v, int64_t i) {
  switch (v.type) {
    case PhysicalType::kBoolean: return v.fixed[i] ? "true" : "false";
    case PhysicalType::kInt32: return std::to_string(v.value<int32_t>(i));
    case PhysicalType::kInt64: return std::to_string(v.value<int64_t>(i));
    case PhysicalType::kFloat: {
      std::ostringstream os;
      os << v.value<float>(i);
      return os.str();
    }
    case PhysicalType::kDouble: {
      std::ostringstream os;
      os << v.value<double>(i);
      return os.str();
    }
    case PhysicalType::kByteArray: return std::string(v.binary(i));
    default:
      return std::string(reinterpret_cast<const char*>(v.fixed_at(i)), v.width());
  }
}

std::vector<std::string> FlatStrings(const ColumnData& c) {
  std::vector<std::string> out;
  int16_t max_def = c.descr ? c.descr->max_def : 0;
  int64_t vi = 0;
  for (int64_t i = 0; i < c.num_levels; ++i) {
    if (c.IsValid(i, max_def)) {
      out.push_back(ValueString(c.values, vi++));
    } else {
      out.push_back("<null>");
    }
  }
  EXPECT_EQ(vi, c.values.count);
  return out;
}

std::vector<std::string> ReadFlat(FileReader* reader, const std::string& name) {
  return FlatStrings(ReadColumn(reader, name));
}

// Minimal CSV: quoted fields may hold commas; an unquoted empty field is null.
std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false, in_quotes = false;
    for (size_t i = 0; i <= line.size(); ++i) {
      char ch = i < line.size() ? line[i] : ',';
      if (in_quotes) {
        if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else if (ch == '"') {
          in_quotes = false;
        } else {
          cur += ch;
        }
      } else if (ch == '"') {
        in_quotes = quoted = true;
      } else if (ch == ',') {
        fields.push_back(!quoted && cur.empty() ? "<null>" : cur);
        cur.clear();
        quoted = false;
      } else {
        cur += ch;
      }
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

// Compares every leaf (in schema order) with the CSV column at the same position.
void ExpectMatchesCsv(const std::string& parquet, const std::string& csv) {
  auto reader = OpenOk(parquet);
  ASSERT_TRUE(reader);
  auto rows = ReadCsv(kData + csv);
  ASSERT_GT(rows.size(), 1u);
  size_t columns = rows[0].size();
  ASSERT_EQ(static_cast<size_t>(reader->schema().num_leaves()), columns);
  ASSERT_EQ(reader->metadata().num_rows, static_cast<int64_t>(rows.size() - 1));
  for (size_t c = 0; c < columns; ++c) {
    const std::string& name = reader->schema().leaf(static_cast<int>(c)).dotted_path;
    std::vector<std::string> got = ReadFlat(reader.get(), name);
    ASSERT_EQ(got.size(), rows.size() - 1) << name;
    for (size_t r = 1; r < rows.size(); ++r) {
      ASSERT_EQ(got[r - 1], rows[r][c]) << parquet << " column " << name << " row " << r - 1;
    }
  }
}

TEST(FileReaderTest, AllTypesPlain) {
  auto reader = OpenOk("alltypes_plain.parquet");
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->metadata().num_rows, 8);
  EXPECT_EQ(reader->num_row_groups(), 1);
  EXPECT_EQ(reader->RowGroupFirstRow(0), 0);
  EXPECT_EQ(ReadFlat(reader.get(), "id"),
            (std::vector<std::string>{"4", "5", "6", "7", "2", "3", "0", "1"}));
  EXPECT_EQ(ReadFlat(reader.get(), "bool_col"),
            (std::vector<std::string>{"true", "false", "true", "false", "true", "false", "true",
                                      "false"}));
  EXPECT_EQ(ReadFlat(reader.get(), "string_col"),
            (std::vector<std::string>{"0", "1", "0", "1", "0", "1", "0", "1"}));
  EXPECT_EQ(ReadFlat(reader.get(), "double_col"),
            (std::vector<std::string>{"0", "10.1", "0", "10.1", "0", "10.1", "0", "10.1"}));
  ColumnData ts = ReadColumn(reader.get(), "timestamp_col");
  EXPECT_EQ(ts.values.type, PhysicalType::kInt96);
  EXPECT_EQ(ts.values.count, 8);
  EXPECT_EQ(ts.values.fixed.size(), 8u * 12);

  // All leaves at once, in schema order, with a consistent batch.
  auto batch = reader->ReadRowGroup(0, {});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->num_rows, 8);
  EXPECT_EQ(batch->first_row_index, 0);
  ASSERT_EQ(static_cast<int>(batch->columns.size()), reader->schema().num_leaves());
  for (size_t i = 0; i < batch->columns.size(); ++i) {
    EXPECT_EQ(batch->columns[i].leaf_index, static_cast<int>(i));
    EXPECT_EQ(batch->columns[i].num_levels, 8);
  }
}

TEST(FileReaderTest, AllTypesDictionaryAndSnappy) {
  auto dict = OpenOk("alltypes_dictionary.parquet");
  ASSERT_TRUE(dict);
  EXPECT_EQ(ReadFlat(dict.get(), "id"), (std::vector<std::string>{"0", "1"}));
  auto snappy = OpenOk("alltypes_plain.snappy.parquet");
  ASSERT_TRUE(snappy);
  EXPECT_EQ(ReadFlat(snappy.get(), "id"), (std::vector<std::string>{"6", "7"}));
  EXPECT_EQ(ReadFlat(snappy.get(), "string_col"), (std::vector<std::string>{"0", "1"}));
}

TEST(FileReaderTest, DeltaEncodingsMatchExpectedCsv) {
  ExpectMatchesCsv("delta_binary_packed.parquet", "delta_binary_packed_expect.csv");
  ExpectMatchesCsv("delta_byte_array.parquet", "delta_byte_array_expect.csv");
  ExpectMatchesCsv("delta_encoding_optional_column.parquet",
                   "delta_encoding_optional_column_expect.csv");
  ExpectMatchesCsv("delta_encoding_required_column.parquet",
                   "delta_encoding_required_column_expect.csv");
}

TEST(FileReaderTest, DeltaLengthByteArray) {
  auto reader = OpenOk("delta_length_byte_array.parquet");
  ASSERT_TRUE(reader);
  ColumnData c = ReadColumn(reader.get(), reader->schema().leaf(0).dotted_path);
  EXPECT_EQ(c.num_levels, 1000);
  EXPECT_GT(c.values.count, 0);
  ASSERT_EQ(c.values.offsets.size(), static_cast<size_t>(c.values.count) + 1);
  EXPECT_EQ(c.values.offsets.back(), static_cast<int64_t>(c.values.data.size()));
}

TEST(FileReaderTest, ConcatenatedGzipMembers) {
  auto reader = OpenOk("concatenated_gzip_members.parquet");
  ASSERT_TRUE(reader);
  ColumnData c = ReadColumn(reader.get(), reader->schema().leaf(0).dotted_path);
  ASSERT_EQ(c.values.count, 513);
  for (int64_t i = 0; i < 513; ++i) ASSERT_EQ(c.values.value<uint64_t>(i), uint64_t(i + 1));
}

TEST(FileReaderTest, ChecksumsVerifiedAndCorruptPagesRejected) {
  auto good = OpenOk("datapage_v1-uncompressed-checksum.parquet");
  auto snappy = OpenOk("datapage_v1-snappy-compressed-checksum.parquet");
  ASSERT_TRUE(good && snappy);
  for (int leaf = 0; leaf < good->schema().num_leaves(); ++leaf) {
    const std::string& name = good->schema().leaf(leaf).dotted_path;
    auto a = ReadFlat(good.get(), name);
    EXPECT_EQ(a.size(), 5120u);
    EXPECT_EQ(a, ReadFlat(snappy.get(), name)) << name;
  }
  for (const char* bad : {"datapage_v1-corrupt-checksum.parquet",
                          "rle-dict-uncompressed-corrupt-checksum.parquet"}) {
    auto reader = OpenOk(bad);
    ASSERT_TRUE(reader);
    Status first_error;
    for (int rg = 0; rg < reader->num_row_groups() && first_error.ok(); ++rg) {
      first_error = reader->ReadRowGroup(rg, {}).status();
    }
    ASSERT_FALSE(first_error.ok()) << bad;
    EXPECT_TRUE(first_error.IsCorruption()) << first_error.ToString();
    EXPECT_NE(first_error.message().find("checksum mismatch"), std::string::npos);
    EXPECT_NE(first_error.message().find(bad), std::string::npos) << first_error.message();
    EXPECT_NE(first_error.message().find("row group 0: column '"), std::string::npos);
    EXPECT_NE(first_error.message().find("page "), std::string::npos);
    // Without verification the (otherwise well-formed) pages decode.
    ReadOptions no_crc;
    no_crc.verify_checksums = false;
    auto lenient = OpenOk(bad, no_crc);
    ASSERT_TRUE(lenient);
    for (int rg = 0; rg < lenient->num_row_groups(); ++rg) {
      EXPECT_TRUE(lenient->ReadRowGroup(rg, {}).ok()) << bad;
    }
  }
  for (const char* ok : {"plain-dict-uncompressed-checksum.parquet",
                         "rle-dict-snappy-checksum.parquet"}) {
    auto reader = OpenOk(ok);
    ASSERT_TRUE(reader);
    auto batch = reader->ReadRowGroup(0, {});
    ASSERT_TRUE(batch.ok()) << ok << ": " << batch.status().ToString();
    EXPECT_EQ(batch->num_rows, 1000);
  }
  // Both dictionary files hold the same data (the corrupt one differs only in its CRC).
  auto plain_dict = OpenOk("rle-dict-snappy-checksum.parquet");
  ReadOptions no_crc;
  no_crc.verify_checksums = false;
  auto corrupt_dict = OpenOk("rle-dict-uncompressed-corrupt-checksum.parquet", no_crc);
  ASSERT_TRUE(plain_dict && corrupt_dict);
  const std::string& name = plain_dict->schema().leaf(0).dotted_path;
  EXPECT_EQ(ReadFlat(plain_dict.get(), name), ReadFlat(corrupt_dict.get(), name));
}

TEST(FileReaderTest, DataPageV2) {
  auto reader = OpenOk("datapage_v2.snappy.parquet");
  ASSERT_TRUE(reader);
  EXPECT_EQ(ReadFlat(reader.get(), "a"),
            (std::vector<std::string>{"abc", "abc", "abc", "<null>", "abc"}));
  EXPECT_EQ(ReadFlat(reader.get(), "b"), (std::vector<std::string>{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(ReadFlat(reader.get(), "c"), (std::vector<std::string>{"2", "3", "4", "5", "2"}));
  EXPECT_EQ(ReadFlat(reader.get(), "d"),
            (std::vector<std::string>{"true", "true", "true", "false", "true"}));
  // e: list<int> = [1,2,3], null, null, [1,2,3], [1,2] (DELTA_BINARY_PACKED values)
  int64_t rows = 0;
  ColumnData e = ReadColumn(reader.get(), "e", &rows);
  EXPECT_EQ(rows, 5);
  ASSERT_NE(e.descr, nullptr);
  EXPECT_EQ(e.descr->max_rep, 1);
  EXPECT_EQ(e.rep_levels, (std::vector<int16_t>{0, 1, 1, 0, 0, 0, 1, 1, 0, 1}));
  EXPECT_EQ(e.def_levels, (std::vector<int16_t>{2, 2, 2, 0, 0, 2, 2, 2, 2, 2}));
  EXPECT_EQ(RowLevelStarts(e, 5), (std::vector<int64_t>{0, 3, 4, 5, 8, 10}));
  ASSERT_EQ(e.values.count, 8);
  const int32_t want[] = {1, 2, 3, 1, 2, 3, 1, 2};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(e.values.value<int32_t>(i), want[i]);
}

TEST(FileReaderTest, EmptyV2Pages) {
  auto a = OpenOk("datapage_v2_empty_datapage.snappy.parquet");
  ASSERT_TRUE(a);
  auto batch = a->ReadRowGroup(0, {});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->num_rows, 1);
  auto b = OpenOk("page_v2_empty_compressed.parquet");
  ASSERT_TRUE(b);
  auto values = ReadFlat(b.get(), b->schema().leaf(0).dotted_path);
  EXPECT_EQ(values, std::vector<std::string>(10, "<null>"));
  auto duck = OpenPath(kCorpus + "/duckdb/data/parquet-testing/compression/empty_datapage_v2.snappy.parquet");
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  EXPECT_TRUE((*duck)->ReadRowGroup(0, {}).ok());
}

TEST(FileReaderTest, NestedListsLevels) {
  auto reader = OpenOk("nested_lists.snappy.parquet");
  ASSERT_TRUE(reader);
  const Schema& s = reader->schema();
  ASSERT_EQ(s.num_leaves(), 2);
  // a: LIST<LIST<LIST<string>>> (three repeated levels), b: int
  EXPECT_EQ(s.leaf(0).max_rep, 3);
  int64_t rows = 0;
  ColumnData a = ReadColumn(reader.get(), s.leaf(0).dotted_path, &rows);
  EXPECT_EQ(rows, 3);
  // Row 0 = [[[a, b], [c]], [null, [d]]] and so on (upstream expected values).
  EXPECT_EQ(a.rep_levels,
            (std::vector<int16_t>{0, 3, 2, 1, 2, 0, 3, 2, 3, 1, 2, 0, 3, 2, 3, 2, 1, 2}));
  EXPECT_EQ(a.def_levels,
            (std::vector<int16_t>{7, 7, 7, 4, 7, 7, 7, 7, 7, 4, 7, 7, 7, 7, 7, 7, 4, 7}));
  std::string joined;
  for (int64_t i = 0; i < a.values.count; ++i) joined += a.values.binary(i);
  EXPECT_EQ(joined, "abcdabcdeabcdef");
  EXPECT_EQ(ReadFlat(reader.get(), "b"), (std::vector<std::string>{"1", "1", "1"}));
  EXPECT_EQ(s.node(s.top_level_fields()[0]).kind, NodeKind::kList);
}

TEST(FileReaderTest, NestedMapsAndImpalaComplexTypes) {
  for (const char* name : {"nested_maps.snappy.parquet", "nonnullable.impala.parquet",
                           "nullable.impala.parquet", "list_columns.parquet",
                           "old_list_structure.parquet", "null_list.parquet",
                           "nested_structs.rust.parquet", "repeated_primitive_no_list.parquet",
                           "incorrect_map_schema.parquet", "map_no_value.parquet"}) {
    auto reader = OpenOk(name);
    ASSERT_TRUE(reader) << name;
    int64_t rows = 0;
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      auto batch = reader->ReadRowGroup(rg, {});
      ASSERT_TRUE(batch.ok()) << name << ": " << batch.status().ToString();
      rows += batch->num_rows;
      for (const ColumnData& c : batch->columns) {
        // Every column of a batch covers exactly the batch's rows.
        EXPECT_EQ(static_cast<int64_t>(RowLevelStarts(c, batch->num_rows).size()),
                  batch->num_rows + 1)
            << name << " " << c.descr->dotted_path;
        int64_t defined = c.def_levels.empty()
                              ? c.num_levels
                              : std::count(c.def_levels.begin(), c.def_levels.end(),
                                           c.descr->max_def);
        EXPECT_EQ(defined, c.values.count) << name << " " << c.descr->dotted_path;
      }
    }
    EXPECT_EQ(rows, reader->metadata().num_rows) << name;
  }
  auto maps = OpenOk("nested_maps.snappy.parquet");
  ASSERT_TRUE(maps);
  EXPECT_EQ(maps->schema().node(maps->schema().top_level_fields()[0]).kind, NodeKind::kMap);
  auto nonnull = OpenOk("nonnullable.impala.parquet");
  ASSERT_TRUE(nonnull);
  EXPECT_EQ(ReadFlat(nonnull.get(), "ID"), (std::vector<std::string>{"8"}));
  auto old_list = OpenOk("old_list_structure.parquet");
  ASSERT_TRUE(old_list);
  ColumnData ol = ReadColumn(old_list.get(), old_list->schema().leaf(0).dotted_path);
  ASSERT_EQ(ol.values.count, 4);  // [[1,2],[3,4]]
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ol.values.value<int32_t>(i), i + 1);
  EXPECT_EQ(ol.rep_levels, (std::vector<int16_t>{0, 2, 1, 2}));
}

TEST(FileReaderTest, RepeatedNoAnnotation) {
  auto reader = OpenOk("repeated_no_annotation.parquet");
  ASSERT_TRUE(reader);
  const Schema& s = reader->schema();
  // phoneNumbers: optional group { repeated group phone { number, kind } }
  auto node = s.FindNode("phoneNumbers.phone");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(s.node(*node).kind, NodeKind::kList);
  EXPECT_EQ(s.node(*node).element_node, *node);
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    auto batch = reader->ReadRowGroup(rg, {});
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  }
}

TEST(FileReaderTest, NullsAndNullPages) {
  auto nulls = OpenOk("nulls.snappy.parquet");
  ASSERT_TRUE(nulls);
  auto v = ReadFlat(nulls.get(), nulls->schema().leaf(0).dotted_path);
  EXPECT_EQ(v, std::vector<std::string>(8, "<null>"));
  auto pages = OpenOk("int32_with_null_pages.parquet");
  ASSERT_TRUE(pages);
  auto p = ReadFlat(pages.get(), pages->schema().leaf(0).dotted_path);
  ASSERT_EQ(p.size(), 1000u);
  EXPECT_EQ(std::count(p.begin(), p.end(), "<null>"), 275);
}

TEST(FileReaderTest, RleBooleans) {
  auto reader = OpenOk("rle_boolean_encoding.parquet");
  ASSERT_TRUE(reader);
  auto v = ReadFlat(reader.get(), reader->schema().leaf(0).dotted_path);
  ASSERT_EQ(v.size(), 68u);
  int64_t t = std::count(v.begin(), v.end(), "true");
  int64_t f = std::count(v.begin(), v.end(), "false");
  int64_t n = std::count(v.begin(), v.end(), "<null>");
  EXPECT_EQ(t + f + n, 68);
  EXPECT_GT(t, 0);
  EXPECT_GT(f, 0);
  // The first values as written by the upstream generator.
  EXPECT_EQ(v[0], "true");
  EXPECT_EQ(v[1], "false");
}

TEST(FileReaderTest, ByteStreamSplitEqualsPlainTwin) {
  auto reader = OpenOk("byte_stream_split_extended.gzip.parquet");
  ASSERT_TRUE(reader);
  const Schema& s = reader->schema();
  int pairs = 0;
  for (int leaf = 0; leaf < s.num_leaves(); ++leaf) {
    const std::string& name = s.leaf(leaf).dotted_path;
    auto pos = name.find("_byte_stream_split");
    if (pos == std::string::npos) continue;
    std::string twin = name.substr(0, pos) + "_plain";
    ColumnData a = ReadColumn(reader.get(), name);
    ColumnData b = ReadColumn(reader.get(), twin);
    ASSERT_EQ(a.num_levels, 200) << name;
    ASSERT_EQ(a.def_levels, b.def_levels) << name;
    ASSERT_EQ(a.values.count, b.values.count) << name;
    ASSERT_EQ(a.values.fixed.size(), b.values.fixed.size()) << name;
    EXPECT_EQ(std::memcmp(a.values.fixed.data(), b.values.fixed.data(), a.values.fixed.size()),
              0)
        << name;
    ++pairs;
  }
  EXPECT_GE(pairs, 7);
  auto zstd = OpenOk("byte_stream_split.zstd.parquet");
  ASSERT_TRUE(zstd);
  for (int leaf = 0; leaf < zstd->schema().num_leaves(); ++leaf) {
    auto v = ReadFlat(zstd.get(), zstd->schema().leaf(leaf).dotted_path);
    EXPECT_EQ(v.size(), 300u);
    for (const auto& x : v) {
      if (x == "<null>") continue;
      double d = std::stod(x);
      EXPECT_TRUE(std::isfinite(d) && std::fabs(d) < 1e6) << x;  // random normals
    }
  }
}

TEST(FileReaderTest, AllCodecsDecodeTheSameTable) {
  const std::string dir = kCorpus + "/duckdb/data/parquet-testing/compression/generated/";
  auto oracle_r = OpenPath(dir + "data_page=1_NONE.parquet");
  ASSERT_TRUE(oracle_r.ok()) << oracle_r.status().ToString();
  auto& oracle = *oracle_r;
  auto want = oracle->ReadRowGroup(0, {});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  EXPECT_EQ(want->num_rows, 30);
  for (const char* page : {"1", "2"}) {
    for (const char* codec : {"NONE", "SNAPPY", "GZIP", "BROTLI", "LZ4", "ZSTD"}) {
      std::string file = dir + "data_page=" + page + "_" + codec + ".parquet";
      auto r = OpenPath(file);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ((*r)->num_row_groups(), oracle->num_row_groups());
      for (int rg = 0; rg < oracle->num_row_groups(); ++rg) {
        auto a = oracle->ReadRowGroup(rg, {});
        auto b = (*r)->ReadRowGroup(rg, {});
        ASSERT_TRUE(a.ok() && b.ok()) << file << ": " << b.status().ToString();
        ASSERT_EQ(a->columns.size(), b->columns.size());
        for (size_t c = 0; c < a->columns.size(); ++c) {
          const ColumnData& x = a->columns[c];
          const ColumnData& y = b->columns[c];
          EXPECT_EQ(x.def_levels, y.def_levels) << file << " col " << c;
          EXPECT_EQ(x.rep_levels, y.rep_levels) << file << " col " << c;
          ASSERT_EQ(x.values.count, y.values.count) << file << " col " << c;
          for (int64_t i = 0; i < x.values.count; ++i) {
            ASSERT_EQ(ValueString(x.values, i), ValueString(y.values, i)) << file;
          }
        }
      }
    }
  }
}

TEST(FileReaderTest, OtherCodecsAndQuirks) {
  for (const char* name :
       {"hadoop_lz4_compressed.parquet", "hadoop_lz4_compressed_larger.parquet",
        "non_hadoop_lz4_compressed.parquet", "lz4_raw_compressed.parquet",
        "lz4_raw_compressed_larger.parquet", "dict-page-offset-zero.parquet",
        "overflow_i16_page_cnt.parquet", "alltypes_tiny_pages.parquet",
        "fixed_length_byte_array.parquet", "fixed_length_decimal.parquet",
        "byte_array_decimal.parquet", "int96_from_spark.parquet",
        "column_chunk_key_value_metadata.parquet", "unknown-logical-type.parquet",
        "float16_nonzeros_and_nans.parquet", "data_index_bloom_encoding_stats.parquet",
        "data_index_bloom_encoding_with_length.parquet", "binary_truncated_min_max.parquet"}) {
    auto reader = OpenOk(name);
    ASSERT_TRUE(reader);
    int64_t rows = 0;
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      EXPECT_EQ(reader->RowGroupFirstRow(rg), rows);
      auto batch = reader->ReadRowGroup(rg, {});
      ASSERT_TRUE(batch.ok()) << name << ": " << batch.status().ToString();
      EXPECT_EQ(batch->first_row_index, rows);
      rows += batch->num_rows;
    }
    EXPECT_EQ(rows, reader->metadata().num_rows) << name;
  }
  auto lz4 = OpenOk("hadoop_lz4_compressed.parquet");
  ASSERT_TRUE(lz4);
  EXPECT_EQ(ReadFlat(lz4.get(), lz4->schema().leaf(1).dotted_path),
            (std::vector<std::string>{"abc", "def", "abc", "def"}));
  auto dict0 = OpenOk("dict-page-offset-zero.parquet");
  ASSERT_TRUE(dict0);
  EXPECT_EQ(ReadFlat(dict0.get(), dict0->schema().leaf(0).dotted_path).size(), 39u);
  // Tiny pages with a dictionary decode to the same values as the PLAIN-only twin.
  auto tiny = OpenOk("alltypes_tiny_pages.parquet");
  auto plain = OpenOk("alltypes_tiny_pages_plain.parquet");
  ASSERT_TRUE(tiny && plain);
  for (const char* col : {"id", "bool_col", "int_col", "bigint_col", "double_col",
                          "string_col", "date_string_col"}) {
    EXPECT_EQ(ReadFlat(tiny.get(), col), ReadFlat(plain.get(), col)) << col;
  }
  auto decimal = OpenOk("int32_decimal.parquet");
  ASSERT_TRUE(decimal);
  auto dv = ReadFlat(decimal.get(), decimal->schema().leaf(0).dotted_path);
  ASSERT_EQ(dv.size(), 24u);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(dv[i], std::to_string((i + 1) * 100));
}

TEST(FileReaderTest, MultipleRowGroupsAndProjection) {
  auto reader = OpenOk("floating_orders_nan_count.parquet");
  ASSERT_TRUE(reader);
  ASSERT_EQ(reader->num_row_groups(), 5);
  int64_t expect = 0;
  for (int rg = 0; rg < 5; ++rg) {
    EXPECT_EQ(reader->RowGroupFirstRow(rg), expect);
    expect += reader->metadata().row_groups[rg].num_rows;
  }
  // Projection order is the requested order.
  auto batch = reader->ReadRowGroup(1, {1, 0});
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->columns.size(), 2u);
  EXPECT_EQ(batch->columns[0].leaf_index, 1);
  EXPECT_EQ(batch->columns[1].leaf_index, 0);
  EXPECT_EQ(batch->first_row_index, reader->RowGroupFirstRow(1));
  EXPECT_TRUE(reader->ReadRowGroup(5, {}).status().IsInvalidArgument());
  EXPECT_TRUE(reader->ReadRowGroup(-1, {}).status().IsInvalidArgument());
  EXPECT_TRUE(reader->ReadRowGroup(0, {99}).status().IsInvalidArgument());
}

TEST(FileReaderTest, FilterRowsOnRealData) {
  auto reader = OpenOk("alltypes_plain.parquet");
  ASSERT_TRUE(reader);
  auto leaves = ResolveColumns(reader->schema(), {"id", "string_col"});
  ASSERT_TRUE(leaves.ok());
  auto batch = reader->ReadRowGroup(0, *leaves);
  ASSERT_TRUE(batch.ok());
  FilterRows(&*batch, {false, true, true, false, false, false, false, true});
  EXPECT_EQ(batch->num_rows, 3);
  EXPECT_EQ(FlatStrings(batch->columns[0]), (std::vector<std::string>{"5", "6", "1"}));
  EXPECT_EQ(FlatStrings(batch->columns[1]), (std::vector<std::string>{"1", "0", "1"}));
}

TEST(FileReaderTest, ResolveColumns) {
  auto reader = OpenOk("nested_maps.snappy.parquet");
  ASSERT_TRUE(reader);
  const Schema& s = reader->schema();
  std::string top = s.node(s.top_level_fields()[0]).name;
  auto all = ResolveColumns(s, {top});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, s.LeavesUnder(s.top_level_fields()[0]));
  EXPECT_GE(all->size(), 2u);
  auto dup = ResolveColumns(s, {s.leaf(1).dotted_path, top});
  ASSERT_TRUE(dup.ok());
  EXPECT_EQ(dup->front(), 1);
  EXPECT_EQ(dup->size(), all->size());  // no leaf twice
  auto missing = ResolveColumns(s, {"no_such_column"});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("no_such_column"), std::string::npos);
}

TEST(FileReaderTest, EncryptedFilesAreNotSupported) {
  for (const char* name : {"uniform_encryption.parquet.encrypted",
                           "encrypt_columns_and_footer.parquet.encrypted",
                           "encrypt_columns_plaintext_footer.parquet.encrypted"}) {
    auto r = OpenPath(kData + name);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_TRUE(r.status().IsNotSupported()) << name << ": " << r.status().ToString();
    EXPECT_NE(r.status().message().find("encrypt"), std::string::npos) << r.status().message();
  }
}

TEST(FileReaderTest, LargeDecodedChunkIsCutOffByTheLimit) {
  ReadOptions opts;
  opts.max_decoded_chunk_bytes = 64 << 20;
  auto reader = OpenOk("large_string_map.brotli.parquet", opts);
  ASSERT_TRUE(reader);
  Status st;
  for (int rg = 0; rg < reader->num_row_groups() && st.ok(); ++rg) {
    st = reader->ReadRowGroup(rg, {}).status();
  }
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
}

TEST(FileReaderTest, BadDataFailsCleanly) {
  for (const char* name : {"ARROW-GH-41317.parquet", "ARROW-GH-41321.parquet",
                           "ARROW-GH-43605.parquet", "ARROW-GH-45185.parquet",
                           "ARROW-GH-47662.parquet", "ARROW-RS-GH-6229-DICTHEADER.parquet",
                           "ARROW-RS-GH-6229-LEVELS.parquet", "PARQUET-1481.parquet"}) {
    ReadOptions opts;
    opts.max_decoded_chunk_bytes = 256 << 20;
    auto r = OpenPath(kCorpus + "/parquet-testing/bad_data/" + name, opts);
    Status st = r.status();
    for (int rg = 0; r.ok() && st.ok() && rg < (*r)->num_row_groups(); ++rg) {
      st = (*r)->ReadRowGroup(rg, {}).status();
    }
    // Some of these are recoverable; what matters is no crash and a typed error.
    if (!st.ok()) {
      EXPECT_TRUE(st.IsCorruption() || st.IsNotSupported()) << name << ": " << st.ToString();
      EXPECT_NE(st.message().find(name), std::string::npos) << st.message();
    }
  }
  auto malformed = OpenOk("nation.dict-malformed.parquet");
  ASSERT_TRUE(malformed);
  Status st;
  for (int rg = 0; rg < malformed->num_row_groups() && st.ok(); ++rg) {
    st = malformed->ReadRowGroup(rg, {}).status();
  }
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
}

std::unique_ptr<io::RandomAccessFile> BufferFile(const std::string& bytes) {
  return io::NewBufferFile("mem.parquet", Buffer::CopyOf(AsBytes(bytes)));
}

TEST(FileReaderTest, FooterValidation) {
  auto open = [](const std::string& bytes) { return FileReader::Open(BufferFile(bytes)); };
  EXPECT_TRUE(open("").status().IsCorruption());
  EXPECT_TRUE(open("PAR1PAR1").status().IsCorruption());
  EXPECT_TRUE(open("PAR1\x05\x00\x00\x00XXXX").status().IsCorruption());  // no end magic
  auto pare = open(std::string("PARE\x01\x02\x03\x04\x04\x00\x00\x00PARE", 16));
  EXPECT_TRUE(pare.status().IsNotSupported());
  EXPECT_NE(pare.status().message().find("PARE"), std::string::npos);
  // Footer length larger than the file.
  auto big = open(std::string("PAR1\x00\x00\x00\x00\xff\x00\x00\x00PAR1", 16));
  ASSERT_FALSE(big.ok());
  EXPECT_TRUE(big.status().IsCorruption());
  EXPECT_NE(big.status().message().find("mem.parquet"), std::string::npos);
  // Footer bytes that do not parse.
  auto junk = open(std::string("PAR1\xff\xff\xff\xff\x04\x00\x00\x00PAR1", 16));
  ASSERT_FALSE(junk.ok());
  EXPECT_TRUE(junk.status().IsCorruption());
  EXPECT_NE(junk.status().message().find("mem.parquet: footer"), std::string::npos);
  // Bad start magic with a good tail.
  std::string real;
  {
    std::ifstream in(kData + "alltypes_plain.parquet", std::ios::binary);
    real.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(real.size(), 100u);
  EXPECT_TRUE(FileReader::Open(BufferFile(real)).ok());
  std::string bad_head = real;
  bad_head[0] = 'X';
  EXPECT_TRUE(open(bad_head).status().IsCorruption());
  // Every truncation of a real file fails cleanly (or, never, succeeds wrongly).
  for (size_t cut = 0; cut < real.size(); cut += 7) {
    auto r = open(real.substr(0, cut));
    EXPECT_FALSE(r.ok());
  }
}

class BitFlipTest : public ::testing::TestWithParam<const char*> {};

// Flipping any one bit of a small real file must never crash, read out of bounds (ASan
// runs this) or produce an internally inconsistent batch.
TEST_P(BitFlipTest, NeverCrashes) {
  std::string real;
  {
    std::ifstream in(kData + GetParam(), std::ios::binary);
    real.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_FALSE(real.empty());
  int opened = 0;
  for (size_t i = 4; i + 8 < real.size(); ++i) {
    std::string mutated = real;
    mutated[i] = static_cast<char>(mutated[i] ^ (1 << (i % 8)));
    ReadOptions opts;
    opts.max_decoded_chunk_bytes = 16 << 20;
    auto r = FileReader::Open(BufferFile(mutated), opts);
    if (!r.ok()) continue;
    ++opened;
    for (int rg = 0; rg < (*r)->num_row_groups(); ++rg) {
      auto b = (*r)->ReadRowGroup(rg, {});
      if (b.ok()) {
        // A successful read must be self-consistent.
        for (const ColumnData& c : b->columns) {
          int64_t defined = c.def_levels.empty()
                                ? c.num_levels
                                : std::count(c.def_levels.begin(), c.def_levels.end(),
                                             c.descr->max_def);
          EXPECT_EQ(defined, c.values.count);
        }
      }
    }
  }
  EXPECT_GT(opened, 0);
}

INSTANTIATE_TEST_SUITE_P(SmallFiles, BitFlipTest,
                         ::testing::Values("alltypes_plain.parquet", "datapage_v2.snappy.parquet",
                                           "nested_lists.snappy.parquet",
                                           "rle_boolean_encoding.parquet",
                                           "alltypes_dictionary.parquet",
                                           "old_list_structure.parquet"));


// ---------------------------------------------------------------- streaming

// Asserts two columns hold the same levels and values (bytes, offsets rebased).
void ExpectSameColumn(const ColumnData& want, const ColumnData& got, const std::string& what) {
  EXPECT_EQ(got.leaf_index, want.leaf_index) << what;
  EXPECT_EQ(got.descr, want.descr) << what;
  EXPECT_EQ(got.num_levels, want.num_levels) << what;
  EXPECT_EQ(got.def_levels, want.def_levels) << what;
  EXPECT_EQ(got.rep_levels, want.rep_levels) << what;
  const ColumnValues& a = want.values;
  const ColumnValues& b = got.values;
  ASSERT_EQ(b.type, a.type) << what;
  ASSERT_EQ(b.count, a.count) << what;
  if (a.count == 0) return;
  if (a.is_byte_array()) {
    EXPECT_EQ(b.offsets, a.offsets) << what;
    ASSERT_EQ(b.data.size(), a.data.size()) << what;
    EXPECT_EQ(std::memcmp(b.data.data(), a.data.data(), a.data.size()), 0) << what;
  } else {
    ASSERT_EQ(b.fixed.size(), a.fixed.size()) << what;
    EXPECT_EQ(std::memcmp(b.fixed.data(), a.fixed.data(), a.fixed.size()), 0) << what;
  }
}

// Rows held by a column of a batch: rep level 0 entries (levels for flat columns).
int64_t RowsIn(const ColumnData& c) {
  if (c.descr == nullptr || c.descr->max_rep == 0) return c.num_levels;
  return std::count(c.rep_levels.begin(), c.rep_levels.end(), int16_t{0});
}

// Decoded bytes of a column slice as the stream's byte budget counts them.
int64_t BatchBytes(const ColumnData& c) {
  int64_t levels = static_cast<int64_t>(c.def_levels.size() + c.rep_levels.size()) * 2;
  const ColumnValues& v = c.values;
  if (v.is_dictionary()) return levels + v.count * 4;
  if (v.is_byte_array()) return levels + v.count * 8 + static_cast<int64_t>(v.data.size());
  return levels + static_cast<int64_t>(v.fixed.size());
}

// Streams row group `rg` with `max_rows` per batch, checks each batch's shape and
// first_row_index, and returns the concatenation (or the first error).
// With ValueForm::kDictionaryIndices, columns in dictionary form are counted in
// *dictionary_columns and turned plain before they are appended.
Result<RowBatch> StreamAll(FileReader* reader, int rg, const std::vector<int>& leaves,
                           int64_t max_rows, int64_t byte_budget = -1,
                           int64_t* batches = nullptr, ValueForm form = ValueForm::kValues,
                           int64_t* dictionary_columns = nullptr) {
  LITHIFY_ASSIGN_OR_RETURN(auto stream, reader->OpenRowGroup(rg, leaves, max_rows, form));
  RowBatch all;
  all.first_row_index = reader->RowGroupFirstRow(rg);
  int64_t n = 0;
  RowBatch batch;  // reused across calls, as callers do
  while (true) {
    LITHIFY_ASSIGN_OR_RETURN(bool more, stream->Next(&batch));
    if (all.columns.empty()) {
      all.columns.resize(batch.columns.size());
      for (size_t i = 0; i < batch.columns.size(); ++i) {
        all.columns[i].leaf_index = batch.columns[i].leaf_index;
        all.columns[i].descr = batch.columns[i].descr;
        all.columns[i].values.type = batch.columns[i].values.type;
        all.columns[i].values.type_length = batch.columns[i].values.type_length;
      }
    }
    if (!more) {
      EXPECT_EQ(batch.num_rows, 0);
      break;
    }
    ++n;
    EXPECT_GE(batch.num_rows, 1);
    EXPECT_LE(batch.num_rows, max_rows);
    EXPECT_EQ(batch.first_row_index, all.first_row_index + all.num_rows);
    int64_t bytes = 0;
    for (size_t i = 0; i < batch.columns.size(); ++i) {
      EXPECT_EQ(RowsIn(batch.columns[i]), batch.num_rows) << "column " << i;
      bytes += BatchBytes(batch.columns[i]);
      ColumnValues& v = batch.columns[i].values;
      if (v.is_dictionary()) {
        EXPECT_EQ(form, ValueForm::kDictionaryIndices);
        EXPECT_EQ(static_cast<int64_t>(v.indices.size()), v.count);
        EXPECT_TRUE(v.fixed.empty() && v.offsets.empty() && v.data.empty());
        if (dictionary_columns != nullptr) ++*dictionary_columns;
        v.Materialize();
      }
      AppendColumn(&all.columns[i], batch.columns[i]);
    }
    if (byte_budget >= 0 && batch.num_rows > 1) {
      EXPECT_LE(bytes, byte_budget);
    }
    all.num_rows += batch.num_rows;
  }
  EXPECT_EQ(stream->rows_remaining(), 0);
  // The end is sticky.
  auto again = stream->Next(&batch);
  EXPECT_TRUE(again.ok() && !*again);
  if (batches) *batches = n;
  return all;
}

void ExpectSameBatch(const RowBatch& want, const RowBatch& got, const std::string& what) {
  EXPECT_EQ(got.num_rows, want.num_rows) << what;
  EXPECT_EQ(got.first_row_index, want.first_row_index) << what;
  ASSERT_EQ(got.columns.size(), want.columns.size()) << what;
  for (size_t i = 0; i < want.columns.size(); ++i) {
    ExpectSameColumn(want.columns[i], got.columns[i], what + " column " + std::to_string(i));
  }
}

// Streams with several batch sizes (and a tight byte budget), values plain and in
// dictionary form, and compares with ReadRowGroup, for one file. Returns the number of
// row groups compared; *dictionary_columns counts the batch columns that came in
// dictionary form.
int CompareStreamWithReadRowGroup(const std::string& path, int64_t* dictionary_columns = nullptr) {
  ReadOptions opts;
  opts.max_decoded_chunk_bytes = 256 << 20;  // keeps large_string_map.* quick to refuse
  auto r = OpenPath(path, opts);
  if (!r.ok()) return 0;
  FileReader* reader = r->get();
  int compared = 0;
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    auto whole = reader->ReadRowGroup(rg, {});
    if (!whole.ok()) continue;
    ++compared;
    for (ValueForm form : {ValueForm::kValues, ValueForm::kDictionaryIndices}) {
      for (int64_t max_rows : {int64_t{1}, int64_t{7}, int64_t{1000}}) {
        std::string what = path + " rg " + std::to_string(rg) + " max_rows " + std::to_string(max_rows) +
                           (form == ValueForm::kValues ? "" : " dictionary form");
        auto streamed = StreamAll(reader, rg, {}, max_rows, -1, nullptr, form, dictionary_columns);
        EXPECT_TRUE(streamed.ok()) << what << ": " << streamed.status().ToString();
        if (!streamed.ok()) return compared;
        ExpectSameBatch(*whole, *streamed, what);
      }
    }
  }
  // A tight byte budget cuts batches by bytes instead of rows.
  ReadOptions tight = opts;
  tight.max_batch_bytes = 300;
  auto t = OpenPath(path, tight);
  if (!t.ok()) return compared;
  for (int rg = 0; rg < (*t)->num_row_groups(); ++rg) {
    auto whole = (*t)->ReadRowGroup(rg, {});
    if (!whole.ok()) continue;
    std::string what = path + " rg " + std::to_string(rg) + " budget 300";
    for (ValueForm form : {ValueForm::kValues, ValueForm::kDictionaryIndices}) {
      auto streamed = StreamAll(t->get(), rg, {}, 64 * 1024, tight.max_batch_bytes, nullptr, form,
                                dictionary_columns);
      EXPECT_TRUE(streamed.ok()) << what << ": " << streamed.status().ToString();
      if (!streamed.ok()) return compared;
      ExpectSameBatch(*whole, *streamed, what);
    }
  }
  return compared;
}

TEST(RowGroupStreamTest, FlatNestedDictionaryV2AndMultiPageFiles) {
  for (const char* name :
       {"alltypes_plain.parquet", "alltypes_dictionary.parquet", "nested_lists.snappy.parquet",
        "datapage_v2.snappy.parquet", "alltypes_tiny_pages.parquet", "nested_maps.snappy.parquet",
        "nulls.snappy.parquet", "delta_byte_array.parquet"}) {
    int64_t dictionary_columns = 0;
    EXPECT_GT(CompareStreamWithReadRowGroup(kData + name, &dictionary_columns), 0) << name;
    // Dictionary-encoded chunks came as indices (and were the same values).
    if (std::string(name) == "alltypes_dictionary.parquet") EXPECT_GT(dictionary_columns, 0);
  }
  // alltypes_tiny_pages has many pages per chunk: batches of 7 rows cross page ends.
  auto reader = OpenOk("alltypes_tiny_pages.parquet");
  ASSERT_TRUE(reader);
  EXPECT_GT(reader->metadata().row_groups[0].columns[0].meta_data->total_compressed_size,
            4096);
  int64_t batches = 0;
  auto s = StreamAll(reader.get(), 0, {}, 7, -1, &batches);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(batches, (s->num_rows + 6) / 7);
}

TEST(RowGroupStreamTest, EveryCorpusFileReadRowGroupReads) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    std::string path = entry.path().string();
    if (entry.path().extension() != ".parquet") continue;
    if (path.find("large_string_map") != std::string::npos) continue;  // its own test
    files += CompareStreamWithReadRowGroup(path) > 0;
  }
  EXPECT_GT(files, 50);
}

TEST(RowGroupStreamTest, ProjectionAndFirstRowIndexAcrossRowGroups) {
  // Several row groups: first_row_index continues across them.
  for (const std::string name : {"alltypes_tiny_pages_plain.parquet", "nested_lists.snappy.parquet"}) {
    auto reader = OpenOk(name);
    ASSERT_TRUE(reader);
    std::vector<int> leaves = {reader->schema().num_leaves() - 1, 0};  // reordered
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      auto whole = reader->ReadRowGroup(rg, leaves);
      ASSERT_TRUE(whole.ok()) << whole.status().ToString();
      auto s = StreamAll(reader.get(), rg, leaves, 3);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      ExpectSameBatch(*whole, *s, name);
      EXPECT_EQ(s->columns[0].leaf_index, leaves[0]);
    }
  }
  auto many = OpenPath(kCorpus + "/parquet-testing/data/alltypes_plain.parquet");
  ASSERT_TRUE(many.ok());
  EXPECT_TRUE((*many)->OpenRowGroup(1, {}, 10).status().IsInvalidArgument());
  EXPECT_TRUE((*many)->OpenRowGroup(0, {}, 0).status().IsInvalidArgument());
  EXPECT_TRUE((*many)->OpenRowGroup(0, {999}, 10).status().IsInvalidArgument());
}

// A file written by hand so that rows of a repeated column span pages:
//   repeated int32 a; pages: rep [0,1,1] | [1,0,1] | [1] | [0]  -> rows of 4, 3 and 1 values:
// row 0 spans pages 0-1 and row 1 spans pages 1-2.
std::string SpanningRowsFile(int64_t rows_in_metadata, int64_t pages = 4) {
  const std::vector<std::vector<int16_t>> page_reps = {{0, 1, 1}, {1, 0, 1}, {1}, {0}};
  std::string file = "PAR1";
  int32_t next = 1;
  int64_t values = 0;
  for (int64_t p = 0; p < pages; ++p) {
    const auto& rep = page_reps[static_cast<size_t>(p)];
    std::vector<int16_t> def(rep.size(), 1);
    Buffer body;
    for (const std::vector<int16_t>* levels : {&rep, static_cast<const std::vector<int16_t>*>(&def)}) {
      RleBitPackedEncoder enc(1);
      enc.PutLevels(levels->data(), levels->size());
      Buffer runs;
      enc.Flush(&runs);
      uint32_t len = static_cast<uint32_t>(runs.size());
      body.Append(reinterpret_cast<const uint8_t*>(&len), 4);
      body.Append(runs.data(), runs.size());
    }
    for (size_t i = 0; i < rep.size(); ++i, ++next) {
      body.Append(reinterpret_cast<const uint8_t*>(&next), 4);
    }
    PageHeader ph;
    ph.type = PageType::kDataPage;
    ph.uncompressed_page_size = static_cast<int32_t>(body.size());
    ph.compressed_page_size = static_cast<int32_t>(body.size());
    DataPageHeader dp;
    dp.num_values = static_cast<int32_t>(rep.size());
    ph.data_page_header = dp;
    Buffer header;
    SerializePageHeader(ph, &header);
    file.append(reinterpret_cast<const char*>(header.data()), header.size());
    file.append(reinterpret_cast<const char*>(body.data()), body.size());
    values += static_cast<int64_t>(rep.size());
  }
  FileMetaData md;
  md.version = 1;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement a;
  a.name = "a";
  a.type = PhysicalType::kInt32;
  a.repetition_type = Repetition::kRepeated;
  md.schema = {root, a};
  md.num_rows = rows_in_metadata;
  ColumnMetaData cm;
  cm.type = PhysicalType::kInt32;
  cm.encodings = {Encoding::kPlain, Encoding::kRle};
  cm.path_in_schema = {"a"};
  cm.num_values = values;
  cm.total_compressed_size = static_cast<int64_t>(file.size()) - 4;
  cm.total_uncompressed_size = cm.total_compressed_size;
  cm.data_page_offset = 4;
  ColumnChunk cc;
  cc.file_offset = 4;
  cc.meta_data = cm;
  RowGroup g;
  g.columns = {cc};
  g.num_rows = rows_in_metadata;
  g.total_byte_size = cm.total_compressed_size;
  md.row_groups = {g};
  Buffer footer;
  SerializeFileMetaData(md, &footer);
  file.append(reinterpret_cast<const char*>(footer.data()), footer.size());
  uint32_t len = static_cast<uint32_t>(footer.size());
  file.append(reinterpret_cast<const char*>(&len), 4);
  file += "PAR1";
  return file;
}

TEST(RowGroupStreamTest, RowsSpanningPages) {
  auto r = FileReader::Open(io::NewBufferFile("span.parquet", Buffer::CopyOf(AsBytes(SpanningRowsFile(3)))));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  FileReader* reader = r->get();
  auto whole = reader->ReadRowGroup(0, {});
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->columns[0].rep_levels, (std::vector<int16_t>{0, 1, 1, 1, 0, 1, 1, 0}));
  ASSERT_EQ(whole->columns[0].values.count, 8);
  for (int64_t max_rows : {1, 2, 3}) {
    auto s = StreamAll(reader, 0, {}, max_rows);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ExpectSameBatch(*whole, *s, "span max_rows " + std::to_string(max_rows));
  }
  // One row per batch: each row is whole although it spans pages.
  auto stream = reader->OpenRowGroup(0, {}, 1);
  ASSERT_TRUE(stream.ok());
  RowBatch b;
  ASSERT_TRUE((*stream)->Next(&b).ok());
  EXPECT_EQ(b.columns[0].rep_levels, (std::vector<int16_t>{0, 1, 1, 1}));
  ASSERT_EQ(b.columns[0].values.count, 4);
  EXPECT_EQ(b.columns[0].values.value<int32_t>(3), 4);
  ASSERT_TRUE((*stream)->Next(&b).ok());
  EXPECT_EQ(b.first_row_index, 1);
  EXPECT_EQ(b.columns[0].rep_levels, (std::vector<int16_t>{0, 1, 1}));
  ASSERT_EQ(b.columns[0].values.count, 3);
  EXPECT_EQ(b.columns[0].values.value<int32_t>(0), 5);
  ASSERT_TRUE((*stream)->Next(&b).ok());
  EXPECT_EQ(b.first_row_index, 2);
  EXPECT_EQ(b.columns[0].values.value<int32_t>(0), 8);
}

TEST(RowGroupStreamTest, RowCountMismatchIsCorruption) {
  // The chunk holds 3 rows: a row group claiming 2 or 4 is malformed, in every batch size.
  for (int64_t claimed : {2, 4}) {
    auto r = FileReader::Open(
        io::NewBufferFile("span.parquet", Buffer::CopyOf(AsBytes(SpanningRowsFile(claimed)))));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE((*r)->ReadRowGroup(0, {}).status().IsCorruption()) << claimed;
    for (int64_t max_rows : {1, 2, 100}) {
      auto s = StreamAll(r->get(), 0, {}, max_rows);
      ASSERT_FALSE(s.ok()) << claimed << " " << max_rows;
      EXPECT_TRUE(s.status().IsCorruption()) << s.status().ToString();
      EXPECT_NE(s.status().message().find("span.parquet: row group 0: column 'a'"),
                std::string::npos)
          << s.status().message();
    }
  }
  // Pages missing (metadata says 8 values, the chunk ends early): Corruption too.
  std::string cut = SpanningRowsFile(3);
  auto full = FileReader::Open(io::NewBufferFile("x.parquet", Buffer::CopyOf(AsBytes(cut))));
  ASSERT_TRUE(full.ok());
  int64_t first_page_end = 0;
  {
    // Make the chunk claim only its first page's bytes.
    FileMetaData md = (*full)->metadata();
    size_t header = 0;
    auto ph = ParsePageHeader(AsBytes(cut).subspan(4), &header);
    ASSERT_TRUE(ph.ok());
    first_page_end = static_cast<int64_t>(header) + ph->compressed_page_size;
    md.row_groups[0].columns[0].meta_data->total_compressed_size = first_page_end;
    Buffer footer;
    SerializeFileMetaData(md, &footer);
    uint32_t old_len;
    std::memcpy(&old_len, cut.data() + cut.size() - 8, 4);
    cut.resize(cut.size() - 8 - old_len);
    cut.append(reinterpret_cast<const char*>(footer.data()), footer.size());
    uint32_t len = static_cast<uint32_t>(footer.size());
    cut.append(reinterpret_cast<const char*>(&len), 4);
    cut += "PAR1";
  }
  auto r = FileReader::Open(io::NewBufferFile("cut.parquet", Buffer::CopyOf(AsBytes(cut))));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto s = StreamAll(r->get(), 0, {}, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsCorruption()) << s.status().ToString();
  EXPECT_NE(s.status().message().find("ended after 3 of its 8 values"), std::string::npos)
      << s.status().message();
}

TEST(RowGroupStreamTest, LargeStringMapStreamsWithinTheBudget) {
  // Each of the two keys is a 1 GiB string: the column chunk decodes to more than 2 GiB,
  // which ReadRowGroup refuses, but one row per batch stays within the per-batch limit.
  auto reader = OpenOk("large_string_map.brotli.parquet");
  ASSERT_TRUE(reader);
  const int64_t budget = ReadOptions{}.max_batch_bytes;
  auto stream = reader->OpenRowGroup(0, {}, 1000);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  RowBatch b;
  int64_t rows = 0;
  while (true) {
    auto more = (*stream)->Next(&b);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    EXPECT_EQ(b.first_row_index, rows);
    ASSERT_EQ(b.columns.size(), 2u);
    const ColumnValues& keys = b.columns[0].values;
    int64_t largest = 0;
    for (int64_t i = 0; i < keys.count; ++i) {
      largest = std::max<int64_t>(largest, static_cast<int64_t>(keys.binary(i).size()));
    }
    int64_t value_bytes = static_cast<int64_t>(keys.data.size() + b.columns[1].values.fixed.size());
    EXPECT_LE(value_bytes, budget + largest);
    EXPECT_EQ(b.num_rows, 1);  // a key alone exceeds the budget
    ASSERT_EQ(keys.count, 1);
    EXPECT_EQ(keys.binary(0).size(), size_t{1} << 30);
    ASSERT_EQ(b.columns[1].values.count, 1);
    EXPECT_EQ(b.columns[1].values.value<int32_t>(0), 1);
    rows += b.num_rows;
  }
  EXPECT_EQ(rows, 2);
}

TEST(RowGroupStreamTest, HostileInputsStillFailCleanly) {
  for (const char* name : {"ARROW-GH-41317.parquet", "ARROW-GH-41321.parquet",
                           "ARROW-GH-43605.parquet", "ARROW-GH-45185.parquet",
                           "ARROW-GH-47662.parquet", "ARROW-RS-GH-6229-DICTHEADER.parquet",
                           "ARROW-RS-GH-6229-LEVELS.parquet", "PARQUET-1481.parquet"}) {
    ReadOptions opts;
    opts.max_decoded_chunk_bytes = 256 << 20;
    auto r = OpenPath(kCorpus + "/parquet-testing/bad_data/" + name, opts);
    if (!r.ok()) continue;
    for (int rg = 0; rg < (*r)->num_row_groups(); ++rg) {
      Status whole = (*r)->ReadRowGroup(rg, {}).status();
      for (int64_t max_rows : {1, 1000}) {
        auto s = StreamAll(r->get(), rg, {}, max_rows);
        if (whole.IsCorruption()) {
          ASSERT_FALSE(s.ok()) << name;
          EXPECT_TRUE(s.status().IsCorruption() || s.status().IsNotSupported())
              << name << ": " << s.status().ToString();
          EXPECT_NE(s.status().message().find(name), std::string::npos) << s.status().message();
        } else if (!s.ok()) {
          EXPECT_TRUE(s.status().IsCorruption() || s.status().IsNotSupported())
              << name << ": " << s.status().ToString();
        }
      }
    }
  }
  // A malformed dictionary file: Corruption whichever way it is read.
  auto malformed = OpenOk("nation.dict-malformed.parquet");
  ASSERT_TRUE(malformed);
  auto s = StreamAll(malformed.get(), 0, {}, 5);
  EXPECT_TRUE(s.status().IsCorruption()) << s.status().ToString();
}

TEST(RowGroupStreamTest, BitFlipsAgreeWithReadRowGroup) {
  // Streaming a damaged file never crashes, and when ReadRowGroup succeeds the stream
  // yields exactly the same data.
  for (const char* name : {"datapage_v2.snappy.parquet", "nested_lists.snappy.parquet"}) {
    std::string real;
    {
      std::ifstream in(kData + name, std::ios::binary);
      real.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_FALSE(real.empty());
    for (size_t i = 4; i + 8 < real.size(); ++i) {
      std::string mutated = real;
      mutated[i] = static_cast<char>(mutated[i] ^ (1 << (i % 8)));
      ReadOptions opts;
      opts.max_decoded_chunk_bytes = 16 << 20;
      auto r = FileReader::Open(BufferFile(mutated), opts);
      if (!r.ok()) continue;
      for (int rg = 0; rg < (*r)->num_row_groups(); ++rg) {
        auto whole = (*r)->ReadRowGroup(rg, {});
        auto s = StreamAll(r->get(), rg, {}, 2);
        if (whole.ok()) {
          ASSERT_TRUE(s.ok()) << name << " bit " << i << ": " << s.status().ToString();
          ExpectSameBatch(*whole, *s, std::string(name) + " bit " + std::to_string(i));
        } else {
          EXPECT_FALSE(s.ok()) << name << " bit " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace lithify::parquet

namespace lithify::parquet {
namespace {

// A file that reads like an object store: remote profile, every ReadAt counted as a
// request.
class RemoteLikeFile final : public io::RandomAccessFile {
 public:
  explicit RemoteLikeFile(std::unique_ptr<io::RandomAccessFile> base) : base_(std::move(base)) {}
  uint64_t size() const override { return base_->size(); }
  const std::string& path() const override { return base_->path(); }
  io::ReadProfile read_profile() const override { return {1 << 20, 64 << 20, 4 << 20, true}; }
  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) override {
    ++*requests_;
    return base_->ReadAt(offset, length, out);
  }
  std::shared_ptr<int> requests() const { return requests_; }

 private:
  std::unique_ptr<io::RandomAccessFile> base_;
  std::shared_ptr<int> requests_ = std::make_shared<int>(0);
};

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(RemoteReadTest, OneRequestForTheFooterAndOnePerRowGroup) {
  for (const char* name : {"alltypes_plain.parquet", "alltypes_dictionary.parquet",
                           "nested_lists.snappy.parquet", "alltypes_tiny_pages.parquet",
                           "nulls.snappy.parquet"}) {
    const std::string path = kData + name;
    auto local = OpenOk(name);
    ASSERT_TRUE(local);
    auto file = std::make_unique<RemoteLikeFile>(*Fs()->OpenForRead(path));
    auto requests = file->requests();
    auto remote = FileReader::Open(std::move(file));
    ASSERT_TRUE(remote.ok()) << name << ": " << remote.status().ToString();
    EXPECT_EQ(*requests, 1) << name << ": the footer takes one request";
    for (int rg = 0; rg < local->num_row_groups(); ++rg) {
      auto want = local->ReadRowGroup(rg, {});
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      const int before = *requests;
      auto got = (*remote)->ReadRowGroup(rg, {});
      ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
      // Two readers, two schemas: compare the values, not the descriptor objects.
      for (size_t i = 0; i < got->columns.size() && i < want->columns.size(); ++i) {
        got->columns[i].descr = want->columns[i].descr;
      }
      ExpectSameBatch(*want, *got, std::string(name) + " rg " + std::to_string(rg));
      // The file is smaller than the footer guess: everything came with the footer, or
      // one coalesced request brings the whole row group.
      EXPECT_LE(*requests - before, 1) << name << " rg " << rg;
      auto stream = (*remote)->OpenRowGroup(rg, {});
      ASSERT_TRUE(stream.ok()) << stream.status().ToString();
      RowBatch batch;
      while (true) {
        auto more = (*stream)->Next(&batch);
        ASSERT_TRUE(more.ok()) << more.status().ToString();
        if (!*more) break;
      }
    }
  }
}

TEST(RemoteReadTest, LargeFootersAndDamagedFilesFailOrReadTheSame) {
  // A file larger than the footer guess: the footer costs one request, the leading
  // magic is not read (its damage shows as a corrupt first page instead).
  std::string real = FileBytes(kData + "alltypes_tiny_pages.parquet");
  ASSERT_GT(real.size(), 64u << 10);
  auto remote = [](const std::string& bytes) {
    return FileReader::Open(std::make_unique<RemoteLikeFile>(BufferFile(bytes)));
  };
  auto file = std::make_unique<RemoteLikeFile>(BufferFile(real));
  auto requests = file->requests();
  auto ok = FileReader::Open(std::move(file));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*requests, 1);
  ASSERT_TRUE((*ok)->ReadRowGroup(0, {}).ok());
  EXPECT_EQ(*requests, 2) << "the row group's chunks in one coalesced request";
  // Without the prefetch every column chunk is its own request.
  ReadOptions no_prefetch;
  no_prefetch.max_prefetch_bytes = 0;
  auto file2 = std::make_unique<RemoteLikeFile>(BufferFile(real));
  auto requests2 = file2->requests();
  auto unbatched = FileReader::Open(std::move(file2), no_prefetch);
  ASSERT_TRUE(unbatched.ok());
  ASSERT_TRUE((*unbatched)->ReadRowGroup(0, {}).ok());
  EXPECT_GT(*requests2, 1 + (*unbatched)->schema().num_leaves() / 2);
  // Small damaged files behave as through a local file.
  std::string small = FileBytes(kData + "alltypes_plain.parquet");
  std::string bad_head = small;
  bad_head[0] = 'X';
  EXPECT_TRUE(remote(bad_head).status().IsCorruption());
  for (size_t cut = 0; cut < small.size(); cut += 7) EXPECT_FALSE(remote(small.substr(0, cut)).ok()) << cut;
  EXPECT_TRUE(remote(std::string("PAR1\x00\x00\x00\x00\xff\x00\x00\x00PAR1", 16)).status().IsCorruption());
  // Truncations of the large file fail too.
  for (size_t cut = real.size() - 1; cut > real.size() - 2000; cut -= 97) {
    EXPECT_FALSE(remote(real.substr(0, cut)).ok()) << cut;
  }
}

}  // namespace
}  // namespace lithify::parquet
