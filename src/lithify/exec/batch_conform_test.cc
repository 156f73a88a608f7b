// Tests of exec::BatchConformer: all-nullable read batches -> the table's write schema.
#include "lithify/exec/batch_conform.h"

#include <gtest/gtest.h>

#include "lithify/parquet/schema_builder.h"

namespace lithify::exec {
namespace {

using parquet::FieldSpec;

parquet::Schema Build(const std::vector<FieldSpec>& fields) {
  auto s = parquet::BuildSchema(fields);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(*s);
}

// One INT64 column of `n` rows with the given def levels (values for def == max_def).
parquet::ColumnData LongColumn(const parquet::Schema& s, int leaf, std::vector<int16_t> defs,
                               const std::vector<int64_t>& values) {
  parquet::ColumnData c;
  c.Reset(s.leaf(leaf));
  c.leaf_index = leaf;
  c.num_levels = static_cast<int64_t>(defs.size());
  c.def_levels = std::move(defs);
  c.values.type = parquet::PhysicalType::kInt64;
  c.values.count = static_cast<int64_t>(values.size());
  c.values.fixed.Resize(values.size() * 8);
  if (!values.empty()) std::memcpy(c.values.fixed.data(), values.data(), values.size() * 8);
  return c;
}

TEST(BatchConformTest, RequiredTopLevelLosesItsLevels) {
  parquet::Schema read = Build({FieldSpec::Long("a"), FieldSpec::Long("b")});
  parquet::Schema write = Build({FieldSpec::Long("a", /*nullable=*/false), FieldSpec::Long("b")});
  auto conf = BatchConformer::Make(read, {0, 1}, write);
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  parquet::RowBatch in;
  in.num_rows = 3;
  in.columns.push_back(LongColumn(read, 0, {1, 1, 1}, {1, 2, 3}));
  in.columns.push_back(LongColumn(read, 1, {1, 0, 1}, {7, 9}));
  auto out = conf->Conform(std::move(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->columns[0].def_levels.empty());
  EXPECT_EQ(out->columns[0].descr, &write.leaf(0));
  EXPECT_EQ(out->columns[1].def_levels, (std::vector<int16_t>{1, 0, 1}));
  EXPECT_EQ(out->columns[1].values.count, 2);
}

TEST(BatchConformTest, NullInRequiredColumnIsCorruptionNamingIt) {
  parquet::Schema read = Build({FieldSpec::Long("id")});
  parquet::Schema write = Build({FieldSpec::Long("id", false)});
  auto conf = BatchConformer::Make(read, {0}, write);
  ASSERT_TRUE(conf.ok());
  parquet::RowBatch in;
  in.num_rows = 2;
  in.columns.push_back(LongColumn(read, 0, {1, 0}, {5}));
  auto out = conf->Conform(std::move(in));
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(out.status().IsCorruption());
  EXPECT_NE(out.status().message().find("'id'"), std::string::npos) << out.status().message();
}

TEST(BatchConformTest, NestedRequiredMemberRenumbersLevels) {
  // read: optional struct s { optional long x }  (max_def 2)
  // write: optional struct s { required long x } (max_def 1)
  parquet::Schema read = Build({FieldSpec::Struct("s", {FieldSpec::Long("x")})});
  parquet::Schema write = Build({FieldSpec::Struct("s", {FieldSpec::Long("x", false)})});
  auto conf = BatchConformer::Make(read, {0}, write);
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  parquet::RowBatch in;
  in.num_rows = 2;
  in.columns.push_back(LongColumn(read, 0, {2, 0}, {4}));  // s.x = 4; s = null
  auto out = conf->Conform(std::move(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->columns[0].def_levels, (std::vector<int16_t>{1, 0}));
  // s present but x null cannot be written.
  parquet::RowBatch bad;
  bad.num_rows = 1;
  bad.columns.push_back(LongColumn(read, 0, {1}, {}));
  EXPECT_TRUE(conf->Conform(std::move(bad)).status().IsCorruption());
}

TEST(BatchConformTest, DifferentPhysicalTypeIsNotSupported) {
  parquet::Schema read = Build({FieldSpec::Long("a")});
  parquet::Schema write = Build({FieldSpec::Int("a")});
  auto conf = BatchConformer::Make(read, {0}, write);
  ASSERT_FALSE(conf.ok());
  EXPECT_TRUE(conf.status().IsNotSupported());
  EXPECT_FALSE(BatchConformer::Make(read, {}, write).ok());
}

}  // namespace
}  // namespace lithify::exec
