#include "lithify/parquet/file_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "lithify/base/version.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/compression.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::parquet {
namespace {

using F = FieldSpec;
using V = Value;

Schema MustBuild(const std::vector<FieldSpec>& fields) {
  auto s = BuildSchema(fields);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(s).value();
}

RowBatch Shred(const Schema& schema, const std::vector<std::vector<Value>>& rows) {
  RowBatchBuilder b(schema);
  for (const auto& r : rows) {
    Status st = b.Append(r);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  return b.Finish();
}

class WriterTest : public ::testing::Test {
 protected:
  // Writes `batches` to "t.parquet" and returns the Close() result.
  Result<FileMetaData> Write(const Schema& schema, const std::vector<const RowBatch*>& batches,
                             WriterOptions opts = {}) {
    auto out = fs_->Create("t.parquet");
    if (!out.ok()) return out.status();
    auto w = FileWriter::Open(std::move(out).value(), schema, opts);
    if (!w.ok()) return w.status();
    for (const RowBatch* b : batches) {
      Status st = (*w)->WriteBatch(*b);
      if (!st.ok()) return st;
    }
    return (*w)->Close();
  }

  std::unique_ptr<FileReader> Open() {
    auto r = FileReader::Open(fs_.get(), "t.parquet");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  // All rows of the file, row groups concatenated, as one batch per row group.
  std::vector<RowBatch> ReadAll() {
    std::vector<RowBatch> out;
    auto r = Open();
    if (!r) return out;
    for (int rg = 0; rg < r->num_row_groups(); ++rg) {
      auto b = r->ReadRowGroup(rg, {});
      EXPECT_TRUE(b.ok()) << b.status().ToString();
      if (b.ok()) out.push_back(std::move(b).value());
    }
    return out;
  }

  std::unique_ptr<io::FileSystem> fs_ = io::NewMemoryFileSystem();
};

// Concatenates the row groups of one column, for comparison with what was written.
struct Flat {
  std::vector<int16_t> def, rep;
  std::vector<std::string> values;  // each value's bytes
  bool operator==(const Flat&) const = default;
};

Flat Flatten(const std::vector<const ColumnData*>& parts) {
  Flat f;
  for (const ColumnData* c : parts) {
    f.def.insert(f.def.end(), c->def_levels.begin(), c->def_levels.end());
    f.rep.insert(f.rep.end(), c->rep_levels.begin(), c->rep_levels.end());
    for (int64_t i = 0; i < c->values.count; ++i) {
      if (c->values.is_byte_array()) {
        f.values.emplace_back(c->values.binary(i));
      } else {
        f.values.emplace_back(reinterpret_cast<const char*>(c->values.fixed_at(i)),
                              c->values.width());
      }
    }
  }
  return f;
}

void ExpectSameColumns(const std::vector<const RowBatch*>& written,
                       const std::vector<RowBatch>& read) {
  ASSERT_FALSE(written.empty());
  size_t ncols = written[0]->columns.size();
  int64_t rows_w = 0, rows_r = 0;
  for (auto* b : written) rows_w += b->num_rows;
  for (auto& b : read) rows_r += b.num_rows;
  EXPECT_EQ(rows_w, rows_r);
  for (size_t c = 0; c < ncols; ++c) {
    std::vector<const ColumnData*> a, b;
    for (auto* w : written) a.push_back(&w->columns[c]);
    for (auto& r : read) {
      ASSERT_EQ(r.columns.size(), ncols);
      b.push_back(&r.columns[c]);
    }
    EXPECT_TRUE(Flatten(a) == Flatten(b)) << "column " << c;
  }
}

// ------------------------------------------------------------------ shredding

TEST(RowBuilderTest, ListLevels) {
  Schema s = MustBuild({F::List("l", F::Long("element", true))});
  RowBatch b = Shred(s, {{V::List({V::Int(1), V::Int(2)})},
                         {V::List({})},
                         {V::Null()},
                         {V::List({V::Null()})}});
  ASSERT_EQ(b.columns.size(), 1u);
  const ColumnData& c = b.columns[0];
  EXPECT_EQ(b.num_rows, 4);
  EXPECT_EQ(c.def_levels, (std::vector<int16_t>{3, 3, 1, 0, 2}));
  EXPECT_EQ(c.rep_levels, (std::vector<int16_t>{0, 1, 0, 0, 0}));
  ASSERT_EQ(c.values.count, 2);
  EXPECT_EQ(c.values.value<int64_t>(0), 1);
  EXPECT_EQ(c.values.value<int64_t>(1), 2);
}

TEST(RowBuilderTest, NestedListsAndMaps) {
  // list<list<int>> and map<string, struct<a: int>>
  Schema s = MustBuild({F::List("ll", F::List("element", F::Int("element", false), true)),
                        F::Map("m", F::String("key"), F::Struct("value", {F::Int("a")}))});
  RowBatch b = Shred(s, {{V::List({V::List({V::Int(1), V::Int(2)}), V::List({V::Int(3)})}),
                          V::Map({{V::String("x"), V::Struct({V::Int(7)})},
                                  {V::String("y"), V::Null()}})},
                         {V::List({V::Null(), V::List({})}), V::Map({})}});
  ASSERT_EQ(b.columns.size(), 3u);
  // ll: optional list(1) repeated(2) optional inner list(3) repeated(4) required int.
  EXPECT_EQ(b.columns[0].def_levels, (std::vector<int16_t>{4, 4, 4, 2, 3}));
  EXPECT_EQ(b.columns[0].rep_levels, (std::vector<int16_t>{0, 2, 1, 0, 1}));
  EXPECT_EQ(b.columns[0].values.count, 3);
  // m.key_value.key: optional map(1) repeated(2) required key.
  EXPECT_EQ(b.columns[1].def_levels, (std::vector<int16_t>{2, 2, 1}));
  EXPECT_EQ(b.columns[1].rep_levels, (std::vector<int16_t>{0, 1, 0}));
  EXPECT_EQ(b.columns[1].values.binary(1), "y");
  // m.key_value.value.a: value optional(3), a optional(4).
  EXPECT_EQ(b.columns[2].def_levels, (std::vector<int16_t>{4, 2, 1}));
  EXPECT_EQ(b.columns[2].values.count, 1);
}

TEST(RowBuilderTest, InvalidRowsAreRejectedAndLeaveNoTrace) {
  Schema s = MustBuild({F::Long("id", false), F::Struct("s", {F::String("name", false)}),
                        F::Short("small")});
  RowBatchBuilder b(s);
  ASSERT_TRUE(b.Append({V::Int(1), V::Struct({V::String("a")}), V::Int(3)}).ok());
  Status st = b.Append({V::Int(2), V::Struct({V::Null()}), V::Null()});
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("s.name"), std::string::npos) << st.message();
  st = b.Append({V::Int(2), V::Null(), V::Int(40000)});
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("small"), std::string::npos) << st.message();
  st = b.Append({V::String("x"), V::Null(), V::Null()});
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("id"), std::string::npos) << st.message();
  EXPECT_TRUE(b.Append({V::Int(1)}).IsInvalidArgument());  // wrong arity
  RowBatch batch = b.Finish();
  EXPECT_EQ(batch.num_rows, 1);
  EXPECT_EQ(batch.columns[0].num_levels, 1);
  EXPECT_EQ(batch.columns[0].values.count, 1);
  EXPECT_EQ(batch.columns[1].values.count, 1);
  EXPECT_EQ(batch.columns[1].values.offsets.size(), 2u);
  EXPECT_EQ(batch.columns[2].def_levels.size(), 1u);
}

TEST(RowBuilderTest, Decimals) {
  Schema s = MustBuild({F::Decimal("d9", 9, 2), F::Decimal("d38", 38, 0)});
  auto v = ParseDecimal("-12.3", 9, 2);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->decimal() == -1230);
  EXPECT_TRUE(ParseDecimal("1.234", 9, 2).status().IsInvalidArgument());
  EXPECT_TRUE(ParseDecimal("12345678.9", 9, 2).status().IsInvalidArgument());
  __int128 big = 1;
  for (int i = 0; i < 38; ++i) big *= 10;
  RowBatchBuilder b(s);
  ASSERT_TRUE(b.Append({*v, V::Decimal(-(big - 1))}).ok());
  EXPECT_TRUE(b.Append({*v, V::Decimal(big)}).IsInvalidArgument());
  RowBatch batch = b.Finish();
  EXPECT_EQ(batch.columns[0].values.value<int32_t>(0), -1230);
  ASSERT_EQ(batch.columns[1].values.type_length, 16);
  const uint8_t* p = batch.columns[1].values.fixed_at(0);
  EXPECT_EQ(p[0], 0xB4);  // -(10^38 - 1) big-endian two's complement starts 0xB4
}

TEST(SchemaBuilderTest, DeltaTypeMapping) {
  auto els = BuildSchemaElements({F::Byte("b"), F::Decimal("d9", 9, 0), F::Decimal("d18", 18, 3),
                                  F::Decimal("d19", 19, 0), F::Decimal("d38", 38, 10),
                                  F::Timestamp("ts"), F::TimestampNtz("ntz", false),
                                  F::List("l", F::String("x", false)),
                                  F::Map("m", F::Int("k", true), F::Long("v"))});
  ASSERT_TRUE(els.ok()) << els.status().ToString();
  const auto& e = *els;
  EXPECT_EQ(e[1].type, PhysicalType::kInt32);
  EXPECT_EQ(e[1].logical_type.bit_width, 8);
  EXPECT_EQ(e[1].converted_type, ConvertedType::kInt8);
  EXPECT_EQ(e[2].type, PhysicalType::kInt32);
  EXPECT_EQ(e[3].type, PhysicalType::kInt64);
  EXPECT_EQ(e[4].type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(e[4].type_length, 9);
  EXPECT_EQ(e[5].type_length, 16);
  EXPECT_EQ(e[5].precision, 38);
  EXPECT_EQ(e[5].scale, 10);
  EXPECT_TRUE(e[6].logical_type.is_adjusted_to_utc);
  EXPECT_EQ(e[6].converted_type, ConvertedType::kTimestampMicros);
  EXPECT_FALSE(e[7].logical_type.is_adjusted_to_utc);
  EXPECT_FALSE(e[7].converted_type.has_value());
  EXPECT_EQ(e[7].repetition_type, Repetition::kRequired);
  // list: l (LIST) / list (repeated) / element (required here)
  EXPECT_EQ(e[8].converted_type, ConvertedType::kList);
  EXPECT_EQ(e[9].name, "list");
  EXPECT_EQ(e[9].repetition_type, Repetition::kRepeated);
  EXPECT_EQ(e[10].name, "element");
  EXPECT_EQ(e[10].repetition_type, Repetition::kRequired);
  // map: key forced required, value optional
  EXPECT_EQ(e[12].name, "key_value");
  EXPECT_EQ(e[13].name, "key");
  EXPECT_EQ(e[13].repetition_type, Repetition::kRequired);
  EXPECT_EQ(e[14].repetition_type, Repetition::kOptional);
  EXPECT_TRUE(BuildSchemaElements({F::Decimal("d", 39, 0)}).status().IsInvalidArgument());
  EXPECT_TRUE(BuildSchemaElements({F::Int("a"), F::Int("a")}).status().IsInvalidArgument());
  EXPECT_TRUE(BuildSchemaElements({}).status().IsInvalidArgument());
  EXPECT_EQ(DecimalByteWidth(1), 1);
  EXPECT_EQ(DecimalByteWidth(18), 8);
  EXPECT_EQ(DecimalByteWidth(28), 12);
}

// ------------------------------------------------------------------ writer

TEST_F(WriterTest, FlatRoundTripAndMetadata) {
  Schema s = MustBuild({F::Long("id", false), F::String("name"), F::Double("x"),
                        F::Boolean("flag", false), F::Date("day")});
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 1000; ++i) {
    rows.push_back({V::Int(i - 500), i % 7 == 0 ? V::Null() : V::String("n" + std::to_string(i % 13)),
                    i % 5 == 0 ? V::Null() : V::Double(i * 0.5), V::Bool(i % 3 == 0),
                    V::Int(-i)});
  }
  RowBatch batch = Shred(s, rows);
  WriterOptions opts;
  opts.key_value_metadata.push_back({"k", "v"});
  auto md = Write(s, {&batch}, opts);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->num_rows, 1000);
  EXPECT_EQ(md->created_by, std::string(kCreatedBy));
  EXPECT_EQ(md->column_orders.size(), 5u);
  ASSERT_EQ(md->key_value_metadata.size(), 1u);
  ASSERT_EQ(md->row_groups.size(), 1u);
  const ColumnMetaData& id = *md->row_groups[0].columns[0].meta_data;
  EXPECT_EQ(id.num_values, 1000);
  EXPECT_EQ(id.path_in_schema, std::vector<std::string>{"id"});
  ASSERT_TRUE(id.statistics.has_value());
  int64_t lo, hi;
  std::memcpy(&lo, id.statistics->min_value->data(), 8);
  std::memcpy(&hi, id.statistics->max_value->data(), 8);
  EXPECT_EQ(lo, -500);
  EXPECT_EQ(hi, 499);
  const ColumnMetaData& name = *md->row_groups[0].columns[1].meta_data;
  EXPECT_EQ(name.statistics->null_count, 143);
  EXPECT_EQ(*name.statistics->min_value, "n0");
  EXPECT_EQ(*name.statistics->max_value, "n9");
  EXPECT_TRUE(name.dictionary_page_offset.has_value());
  const ColumnMetaData& flag = *md->row_groups[0].columns[3].meta_data;
  EXPECT_EQ(std::count(flag.encodings.begin(), flag.encodings.end(), Encoding::kRleDictionary), 0);

  auto reader = Open();
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->metadata().num_rows, 1000);
  EXPECT_EQ(reader->metadata().key_value_metadata[0].value, "v");
  ExpectSameColumns({&batch}, ReadAll());
}

TEST_F(WriterTest, NestedRoundTripAcrossPagesAndRowGroups) {
  Schema s = MustBuild(
      {F::Int("id", false),
       F::List("tags", F::String("element")),
       F::Struct("s", {F::Double("a"), F::List("inner", F::List("element", F::Long("element")))}),
       F::Map("m", F::String("key"), F::Struct("value", {F::Int("x", false), F::Binary("y")}))});
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 3000; ++i) {
    std::vector<Value> tags;
    for (int j = 0; j < i % 4; ++j) tags.push_back(j == 2 ? V::Null() : V::String("t" + std::to_string(i * j)));
    std::vector<Value> inner;
    for (int j = 0; j < i % 3; ++j) {
      inner.push_back(j == 1 ? V::Null() : V::List({V::Int(i), V::Null(), V::Int(-j)}));
    }
    std::vector<std::pair<Value, Value>> m;
    for (int j = 0; j < i % 3; ++j) {
      m.emplace_back(V::String("k" + std::to_string(j)),
                     j == 1 ? V::Null() : V::Struct({V::Int(j), V::Bytes(std::string(j, '\0'))}));
    }
    rows.push_back({V::Int(i), i % 10 == 0 ? V::Null() : V::List(std::move(tags)),
                    i % 11 == 0 ? V::Null() : V::Struct({V::Double(i), V::List(std::move(inner))}),
                    i % 9 == 0 ? V::Null() : V::Map(std::move(m))});
  }
  std::vector<RowBatch> batches;
  for (size_t start = 0; start < rows.size(); start += 700) {
    std::vector<std::vector<Value>> part(rows.begin() + start,
                                         rows.begin() + std::min(rows.size(), start + 700));
    batches.push_back(Shred(s, part));
  }
  std::vector<const RowBatch*> ptrs;
  for (auto& b : batches) ptrs.push_back(&b);
  WriterOptions opts;
  opts.page_size_bytes = 512;
  opts.row_group_size_bytes = 8 << 10;
  opts.codec = CompressionCodec::kSnappy;
  auto md = Write(s, ptrs, opts);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_GT(md->row_groups.size(), 2u);
  int64_t total = 0;
  for (const RowGroup& rg : md->row_groups) {
    total += rg.num_rows;
    // Each chunk's num_values counts level entries: at least one per row.
    for (const ColumnChunk& cc : rg.columns) EXPECT_GE(cc.meta_data->num_values, rg.num_rows);
  }
  EXPECT_EQ(total, 3000);
  ExpectSameColumns(ptrs, ReadAll());
}

TEST_F(WriterTest, DictionaryFallsBackToPlain) {
  Schema s = MustBuild({F::String("s", false), F::Long("n", false)});
  std::vector<std::vector<Value>> rows;
  // The first 2000 strings repeat 10 values (the first pages pay for a dictionary and are
  // cut before it is full), the rest are unique (the dictionary overflows).
  for (int i = 0; i < 5000; ++i) {
    rows.push_back({V::String("value-" + std::to_string(i < 2000 ? i % 10 : i)), V::Int(i % 10)});
  }
  RowBatch batch = Shred(s, rows);
  WriterOptions opts;
  opts.page_size_bytes = 512;
  opts.byte_array_page_size_bytes = 512;
  opts.dictionary_page_size_limit = 8192;
  auto md = Write(s, {&batch}, opts);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const ColumnMetaData& str = *md->row_groups[0].columns[0].meta_data;
  auto has = [](const std::vector<Encoding>& v, Encoding e) {
    return std::find(v.begin(), v.end(), e) != v.end();
  };
  EXPECT_TRUE(has(str.encodings, Encoding::kRleDictionary));
  EXPECT_TRUE(has(str.encodings, Encoding::kPlain));
  int dict_pages = 0, plain_pages = 0;
  for (const PageEncodingStats& es : str.encoding_stats) {
    if (es.page_type != PageType::kDataPage) continue;
    (es.encoding == Encoding::kRleDictionary ? dict_pages : plain_pages) += es.count;
  }
  EXPECT_GT(dict_pages, 0);
  EXPECT_GT(plain_pages, 0);
  // The low-cardinality column keeps its dictionary throughout.
  const ColumnMetaData& n = *md->row_groups[0].columns[1].meta_data;
  for (const PageEncodingStats& es : n.encoding_stats) {
    if (es.page_type == PageType::kDataPage) {
      EXPECT_EQ(es.encoding, Encoding::kRleDictionary);
    }
  }
  ExpectSameColumns({&batch}, ReadAll());
}

TEST_F(WriterTest, NearlyUniqueColumnsArePlainFromTheStart) {
  // Unique longs and strings: indices + dictionary are larger than PLAIN on the first
  // page, so the chunk has no dictionary at all (not a dictionary prefix then PLAIN).
  Schema s = MustBuild({F::String("s", false), F::Long("n", false), F::Long("c", false)});
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 20000; ++i) {
    rows.push_back({V::String("hash-" + std::to_string(i * 7919)), V::Int(int64_t{i} * 1000003),
                    V::Int(i % 3)});
  }
  RowBatch batch = Shred(s, rows);
  WriterOptions opts;
  opts.page_size_bytes = 8192;
  opts.dictionary_page_size_limit = 64 << 10;
  auto md = Write(s, {&batch}, opts);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  for (int c : {0, 1}) {
    const ColumnMetaData& col = *md->row_groups[0].columns[c].meta_data;
    EXPECT_FALSE(col.dictionary_page_offset.has_value()) << c;
    EXPECT_EQ(col.encodings, std::vector<Encoding>{Encoding::kPlain}) << c;
  }
  EXPECT_TRUE(md->row_groups[0].columns[2].meta_data->dictionary_page_offset.has_value());
  ExpectSameColumns({&batch}, ReadAll());
}

TEST_F(WriterTest, PlainStringPagesUseTheirOwnPageSize) {
  Schema s = MustBuild({F::String("s", false), F::Long("n", false)});
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 4000; ++i) {
    rows.push_back({V::String(std::string(100, 'a' + i % 26) + std::to_string(i)), V::Int(i)});
  }
  RowBatch batch = Shred(s, rows);
  WriterOptions opts;
  opts.enable_dictionary = false;
  opts.page_size_bytes = 4096;
  opts.byte_array_page_size_bytes = 64 << 10;  // ~400 KB of strings: 7 pages, not ~100
  auto md = Write(s, {&batch}, opts);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  auto data_pages = [&](int c) {
    int n = 0;
    for (const PageEncodingStats& es : md->row_groups[0].columns[c].meta_data->encoding_stats) {
      if (es.page_type == PageType::kDataPage) n += es.count;
    }
    return n;
  };
  EXPECT_LE(data_pages(0), 8);
  EXPECT_GE(data_pages(1), 7);  // 32 KB of longs in 4 KiB pages
  ExpectSameColumns({&batch}, ReadAll());
}

TEST_F(WriterTest, DictionaryFullOnTheFirstPageMakesTheChunkPlain) {
  // No page was cut when the dictionary overflowed: the open page turns PLAIN and the
  // chunk has no dictionary (rather than a dictionary used by one page).
  Schema s = MustBuild({F::String("s", false)});
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 6000; ++i) rows.push_back({V::String("v" + std::to_string(i % 3000))});
  RowBatch batch = Shred(s, rows);
  WriterOptions opts;
  opts.dictionary_page_size_limit = 8192;
  auto md = Write(s, {&batch}, opts);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const ColumnMetaData& col = *md->row_groups[0].columns[0].meta_data;
  EXPECT_FALSE(col.dictionary_page_offset.has_value());
  ExpectSameColumns({&batch}, ReadAll());
}

TEST_F(WriterTest, DictionaryDisabledWritesPlainOnly) {
  Schema s = MustBuild({F::Int("a")});
  RowBatch batch = Shred(s, {{V::Int(1)}, {V::Int(1)}, {V::Null()}});
  WriterOptions opts;
  opts.enable_dictionary = false;
  auto md = Write(s, {&batch}, opts);
  ASSERT_TRUE(md.ok());
  const ColumnMetaData& a = *md->row_groups[0].columns[0].meta_data;
  EXPECT_FALSE(a.dictionary_page_offset.has_value());
  EXPECT_EQ(std::count(a.encodings.begin(), a.encodings.end(), Encoding::kRleDictionary), 0);
  ExpectSameColumns({&batch}, ReadAll());
}

TEST_F(WriterTest, AllNullColumnAndExtremes) {
  Schema s = MustBuild({F::Long("never"), F::Double("d"), F::Float("f")});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  RowBatch batch = Shred(s, {{V::Null(), V::Double(nan), V::Double(-0.0)},
                             {V::Null(), V::Double(std::numeric_limits<double>::infinity()), V::Null()},
                             {V::Null(), V::Double(-1), V::Double(0.0)}});
  auto md = Write(s, {&batch});
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const RowGroup& rg = md->row_groups[0];
  EXPECT_EQ(rg.columns[0].meta_data->statistics->null_count, 3);
  EXPECT_FALSE(rg.columns[0].meta_data->statistics->min_value.has_value());
  double dmax;
  std::memcpy(&dmax, rg.columns[1].meta_data->statistics->max_value->data(), 8);
  EXPECT_EQ(dmax, std::numeric_limits<double>::infinity());
  ExpectSameColumns({&batch}, ReadAll());
}

TEST_F(WriterTest, PageChecksumsMatch) {
  Schema s = MustBuild({F::String("s"), F::Long("n")});
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 2000; ++i) rows.push_back({V::String(std::to_string(i * 7919)), V::Int(i)});
  RowBatch batch = Shred(s, rows);
  WriterOptions opts;
  opts.page_size_bytes = 1024;
  opts.codec = CompressionCodec::kZstd;
  auto md = Write(s, {&batch}, opts);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  auto bytes = fs_->ReadFile("t.parquet");
  ASSERT_TRUE(bytes.ok());
  int pages = 0;
  for (const ColumnChunk& cc : md->row_groups[0].columns) {
    const ColumnMetaData& cm = *cc.meta_data;
    int64_t pos = cm.dictionary_page_offset.value_or(cm.data_page_offset);
    const int64_t end = pos + cm.total_compressed_size;
    while (pos < end) {
      size_t header_size = 0;
      auto ph = ParsePageHeader(ByteView(bytes->data() + pos, static_cast<size_t>(end - pos)),
                                &header_size);
      ASSERT_TRUE(ph.ok()) << ph.status().ToString();
      ASSERT_TRUE(ph->crc.has_value());
      ByteView payload(bytes->data() + pos + header_size,
                       static_cast<size_t>(ph->compressed_page_size));
      EXPECT_EQ(static_cast<uint32_t>(*ph->crc), Crc32(payload));
      pos += static_cast<int64_t>(header_size) + ph->compressed_page_size;
      ++pages;
    }
    EXPECT_EQ(pos, end);  // the chunk is exactly its pages
  }
  EXPECT_GT(pages, 4);
  // Corrupt one payload byte of the last page: the reader must notice.
  Buffer copy = Buffer::CopyOf(bytes->view());
  const ColumnMetaData& last = *md->row_groups[0].columns[1].meta_data;
  const int64_t last_start = last.dictionary_page_offset.value_or(last.data_page_offset);
  copy[static_cast<size_t>(last_start + last.total_compressed_size - 1)] ^= 0x55;
  ASSERT_TRUE(fs_->WriteFile("t.parquet", copy.view()).ok());
  auto r = Open();
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ReadRowGroup(0, {}).ok());
}

TEST_F(WriterTest, EveryCodecRoundTrips) {
  Schema s = MustBuild({F::String("s"), F::Double("d")});
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 300; ++i) rows.push_back({V::String(std::string(i % 50, 'x')), V::Double(i)});
  RowBatch batch = Shred(s, rows);
  for (CompressionCodec c : {CompressionCodec::kUncompressed, CompressionCodec::kSnappy,
                             CompressionCodec::kGzip, CompressionCodec::kZstd,
                             CompressionCodec::kLz4Raw, CompressionCodec::kBrotli}) {
    WriterOptions opts;
    opts.codec = c;
    auto md = Write(s, {&batch}, opts);
    ASSERT_TRUE(md.ok()) << CodecName(c) << ": " << md.status().ToString();
    EXPECT_EQ(md->row_groups[0].columns[0].meta_data->codec, c);
    ExpectSameColumns({&batch}, ReadAll());
  }
}

TEST_F(WriterTest, EmptyFile) {
  Schema s = MustBuild({F::Long("a")});
  auto md = Write(s, {});
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->num_rows, 0);
  EXPECT_TRUE(md->row_groups.empty());
  auto r = Open();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->num_row_groups(), 0);
  EXPECT_EQ(r->schema().num_leaves(), 1);
}

TEST_F(WriterTest, InvalidBatchesAreRejectedAndSticky) {
  Schema s = MustBuild({F::Long("a"), F::List("l", F::Int("element"))});
  RowBatch good = Shred(s, {{V::Int(1), V::List({V::Int(2), V::Int(3)})}});

  auto expect_invalid = [&](const RowBatch& bad, const char* what) {
    auto out = fs_->Create("bad.parquet");
    ASSERT_TRUE(out.ok());
    auto w = FileWriter::Open(std::move(out).value(), s);
    ASSERT_TRUE(w.ok());
    Status st = (*w)->WriteBatch(bad);
    EXPECT_TRUE(st.IsInvalidArgument()) << what << ": " << st.ToString();
    // Sticky: even a good batch now fails, and Close does not publish.
    EXPECT_FALSE((*w)->WriteBatch(good).ok()) << what;
    EXPECT_FALSE((*w)->Close().ok()) << what;
    EXPECT_TRUE(fs_->Head("bad.parquet").status().IsNotFound()) << what;
  };

  RowBatch missing_column = Shred(s, {{V::Int(1), V::Null()}});
  missing_column.columns.pop_back();
  expect_invalid(missing_column, "missing column");

  RowBatch wrong_rows = Shred(s, {{V::Int(1), V::Null()}});
  wrong_rows.num_rows = 2;
  expect_invalid(wrong_rows, "row count");

  RowBatch extra_value = Shred(s, {{V::Null(), V::Null()}});
  extra_value.columns[0].values.fixed.AppendValue<int64_t>(5);
  extra_value.columns[0].values.count = 1;
  expect_invalid(extra_value, "value count");

  RowBatch bad_rep = Shred(s, {{V::Int(1), V::List({V::Int(2), V::Int(3)})}});
  bad_rep.columns[1].rep_levels[0] = 1;
  expect_invalid(bad_rep, "first rep level");

  RowBatch bad_def = Shred(s, {{V::Int(1), V::Null()}});
  bad_def.columns[0].def_levels[0] = 7;
  expect_invalid(bad_def, "def level range");

  RowBatch bad_type = Shred(s, {{V::Int(1), V::Null()}});
  bad_type.columns[0].values.type = PhysicalType::kInt32;
  expect_invalid(bad_type, "physical type");

  RowBatch negative_def = Shred(s, {{V::Int(1), V::Null()}, {V::Int(2), V::Null()}});
  negative_def.columns[0].def_levels[1] = -1;
  expect_invalid(negative_def, "negative def level");

  RowBatch bad_rep_range = Shred(s, {{V::Int(1), V::List({V::Int(2), V::Int(3)})}});
  bad_rep_range.columns[1].rep_levels[1] = 2;
  expect_invalid(bad_rep_range, "rep level range");
}

// The level and offset checks run branch-free over the whole column and then name the
// first offender: the message must still carry the level that is out of range.
TEST_F(WriterTest, InvalidLevelsAndOffsetsAreNamed) {
  Schema s = MustBuild({F::Long("a"), F::String("b")});
  auto write = [&](const RowBatch& batch) {
    auto out = fs_->Create("bad.parquet");
    EXPECT_TRUE(out.ok());
    auto w = FileWriter::Open(std::move(out).value(), s);
    EXPECT_TRUE(w.ok());
    return (*w)->WriteBatch(batch);
  };
  RowBatch levels = Shred(s, {{V::Int(1), V::String("x")}, {V::Int(2), V::String("y")},
                              {V::Int(3), V::String("z")}});
  levels.columns[0].def_levels[1] = 9;
  levels.columns[0].def_levels[2] = -4;
  Status st = write(levels);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.ToString().find("column 'a': definition level 9 out of range"), std::string::npos)
      << st.ToString();
  RowBatch offsets = Shred(s, {{V::Int(1), V::String("xx")}, {V::Int(2), V::String("yy")},
                               {V::Int(3), V::String("zz")}});
  offsets.columns[1].values.offsets[2] = 1;  // 0, 2, 1, 6
  st = write(offsets);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.ToString().find("column 'b': offsets decrease"), std::string::npos) << st.ToString();
}

TEST_F(WriterTest, AbandonLeavesNothing) {
  Schema s = MustBuild({F::Long("a")});
  RowBatch batch = Shred(s, {{V::Int(1)}, {V::Int(2)}});
  {
    auto out = fs_->Create("gone.parquet");
    ASSERT_TRUE(out.ok());
    auto w = FileWriter::Open(std::move(out).value(), s);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->WriteBatch(batch).ok());
    ASSERT_TRUE((*w)->FlushRowGroup().ok());
    EXPECT_GT((*w)->EstimatedFileSize(), 4);
    (*w)->Abandon();
    EXPECT_FALSE((*w)->WriteBatch(batch).ok());
  }
  EXPECT_TRUE(fs_->Head("gone.parquet").status().IsNotFound());
  {
    // Destroyed without Close: also nothing.
    auto out = fs_->Create("dropped.parquet");
    ASSERT_TRUE(out.ok());
    auto w = FileWriter::Open(std::move(out).value(), s);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->WriteBatch(batch).ok());
  }
  EXPECT_TRUE(fs_->Head("dropped.parquet").status().IsNotFound());
}

TEST_F(WriterTest, FlushRowGroupSplitsExplicitly) {
  Schema s = MustBuild({F::Long("a", false)});
  RowBatch b1 = Shred(s, {{V::Int(1)}, {V::Int(2)}});
  RowBatch b2 = Shred(s, {{V::Int(3)}});
  auto out = fs_->Create("t.parquet");
  ASSERT_TRUE(out.ok());
  auto w = FileWriter::Open(std::move(out).value(), s);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->WriteBatch(b1).ok());
  ASSERT_TRUE((*w)->FlushRowGroup().ok());
  ASSERT_TRUE((*w)->FlushRowGroup().ok());  // empty: no-op
  ASSERT_TRUE((*w)->WriteBatch(b2).ok());
  auto md = (*w)->Close();
  ASSERT_TRUE(md.ok());
  ASSERT_EQ(md->row_groups.size(), 2u);
  EXPECT_EQ(md->row_groups[0].num_rows, 2);
  EXPECT_EQ(md->row_groups[1].num_rows, 1);
  EXPECT_EQ(md->row_groups[1].ordinal, 1);
  EXPECT_FALSE((*w)->WriteBatch(b2).ok());  // closed
  ExpectSameColumns({&b1, &b2}, ReadAll());
}

TEST_F(WriterTest, UnsupportedCodecIsRejectedAtOpen) {
  Schema s = MustBuild({F::Long("a")});
  auto out = fs_->Create("t.parquet");
  ASSERT_TRUE(out.ok());
  WriterOptions opts;
  opts.codec = CompressionCodec::kLzo;
  auto w = FileWriter::Open(std::move(out).value(), s, opts);
  EXPECT_TRUE(w.status().IsNotSupported());
}

}  // namespace
}  // namespace lithify::parquet
