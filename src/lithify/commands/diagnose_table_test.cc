// Tests of the generic `diagnose` (commands/diagnose.h): one command for both formats,
// the format probed or given, each answering in its own document. Delta's findings are
// tested in diagnose_test.cc, Iceberg's in tests/cli/iceberg.sh and the Iceberg tests.
#include "lithify/commands/diagnose.h"

#include <gtest/gtest.h>

#include "lithify/base/temp_dir.h"
#include "lithify/commands/test_util.h"

namespace lithify::commands {
namespace {

const std::string& IcebergBase() {
  static const std::string base = testing::Corpus() + "/duckdb-iceberg/data/persistent/";
  return base;
}

TEST(DiagnoseTableTest, OneCommandForBothFormats) {
  auto fs = io::NewLocalFileSystem();
  Result<TableDiagnosis> d = DiagnoseTable(fs.get(), testing::Kernel("basic_partitioned"), {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->format, formats::TableFormat::kDelta);
  EXPECT_EQ(d->document["num_files"], 6);
  EXPECT_EQ(d->document["partition_columns"], nlohmann::ordered_json::array({"letter"}));
  EXPECT_TRUE(d->document["findings"].is_array());

  DiagnoseOptions ice;
  ice.location_map = {"data/persistent/=" + IcebergBase()};
  Result<TableDiagnosis> i =
      DiagnoseTable(fs.get(), IcebergBase() + "equality_deletes/warehouse/mydb/mytable", ice);
  ASSERT_TRUE(i.ok()) << i.status().ToString();
  EXPECT_EQ(i->format, formats::TableFormat::kIceberg);
  EXPECT_EQ(i->document["format"], "iceberg");
  EXPECT_GE(i->document["summary"]["deleteFiles"].get<int64_t>(), 1);
  bool delete_finding = false;
  for (const auto& f : i->document["findings"]) delete_finding |= f["code"] == "iceberg_delete_files";
  EXPECT_TRUE(delete_finding) << i->document.dump();
}

// Delta's options on an Iceberg table are refused, not ignored.
TEST(DiagnoseTableTest, DeltaOnlyOptionsRefusedOnIceberg) {
  auto fs = io::NewLocalFileSystem();
  DiagnoseOptions o;
  o.location_map = {"data/persistent/=" + IcebergBase()};
  o.autotune = true;
  Result<TableDiagnosis> r = DiagnoseTable(fs.get(), IcebergBase() + "equality_deletes/warehouse/mydb/mytable", o);
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  o.autotune = false;
  o.min_cube_size = int64_t{1} << 30;
  r = DiagnoseTable(fs.get(), IcebergBase() + "equality_deletes/warehouse/mydb/mytable", o);
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
}

// A location holding no table: the probe's NotFound, nothing else.
TEST(DiagnoseTableTest, NoTableIsNotFound) {
  auto fs = io::NewLocalFileSystem();
  TempDir empty;
  Result<TableDiagnosis> r = DiagnoseTable(fs.get(), empty.path(), {});
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
}

}  // namespace
}  // namespace lithify::commands
