// End-to-end tests of OPTIMIZE ... ZORDER BY and liquid clustering (commands/cluster.h
// through commands::Optimize) on lithify-written tables in temporary directories: rows
// unchanged (lithify scan and DuckDB reading the live files), point lookups open far
// fewer files, cube sealing over many small appends, no-op reruns, key changes and
// FULL, Delta's validation errors, and clustering a bin several times the memory budget.
#include "lithify/commands/cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/commands/append.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/files.h"
#include "lithify/commands/optimize.h"
#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/maintenance_policy.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/counting.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/clustering.h"

namespace lithify::commands {
namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/lithify-cluster-test-XXXXXX";
    path_ = mkdtemp(tmpl);
    std::filesystem::create_directories(spill());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string table() const { return path_ + "/table"; }
  std::string spill() const { return path_ + "/spill"; }

 private:
  std::string path_;
};

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override { fs_ = io::NewLocalFileSystem(); }

  void Create(const std::vector<std::string>& cluster_by, std::map<std::string, std::string> props = {},
              const std::vector<std::string>& partition_by = {}) {
    delta::NewTableSpec spec;
    auto schema = delta::ParseSchemaDdl("customer_id long, amount double, category string, region string, note string");
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    spec.schema = *schema;
    spec.clustering_columns = cluster_by;
    spec.partition_columns = partition_by;
    spec.properties = std::move(props);
    auto r = CreateTable(fs_.get(), t_.table(), spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // One blind append of `rows` generated rows split over `files` files.
  void Append(int64_t rows, int files, uint64_t seed) {
    AppendSpec spec;
    GeneratorOptions g;
    g.rows = rows;
    g.seed = seed;
    g.num_customers = 1000000;  // high cardinality
    g.customer_skew = 0.01;     // nearly uniform
    spec.generate = g;
    spec.num_files = files;
    spec.auto_compact.allowed = false;
    auto r = AppendRows(fs_.get(), t_.table(), spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  std::vector<std::string> Rows() {
    testing::Lines out;
    auto r = Scan(fs_.get(), t_.table(), ScanOptions{}, out.sink.get());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::sort(out.lines.begin(), out.lines.end());
    return out.lines;
  }

  std::shared_ptr<const delta::Snapshot> Latest() {
    auto s = delta::Snapshot::Load(fs_.get(), t_.table());
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return *s;
  }

  // The live files of the latest version (a copy: the snapshot is not kept).
  std::vector<table::FileEntry> Live() {
    auto s = Latest();
    return s ? s->files() : std::vector<table::FileEntry>{};
  }

  std::set<std::string> Paths() {
    std::set<std::string> p;
    for (const table::FileEntry& f : Live()) p.insert(f.path);
    return p;
  }

  Result<OptimizeResult> Optimize(OptimizeSpec spec = {}) {
    spec.spill_dir = t_.spill();
    return commands::Optimize(fs_.get(), t_.table(), spec);
  }

  int64_t FilesOpened(int64_t customer) {
    FilesOptions o;
    o.where = "customer_id = " + std::to_string(customer);
    auto r = ListTableFiles(fs_.get(), t_.table(), o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->document["summary"]["kept"].get<int64_t>() : -1;
  }

  // DuckDB reading every live file (no DVs here) must see exactly the table's rows. One
  // node process for all files: DuckDbRows quotes its argument as one shell word, and
  // duckdb-cat.mjs takes several files, so the paths are joined with "' '".
  void ExpectDuckDbSees(const std::vector<std::string>& rows) {
    std::string paths;
    for (const table::FileEntry& f : Live()) paths += (paths.empty() ? "" : "' '") + io::JoinPath(t_.table(), f.path);
    auto duck = testing::DuckDbRows(paths);
    if (!duck) GTEST_SKIP() << "node or the DuckDB oracle is missing";
    EXPECT_EQ(*duck, rows);
  }

  std::vector<std::string> Spilled() {
    std::vector<std::string> v;
    for (const auto& e : std::filesystem::directory_iterator(t_.spill())) v.push_back(e.path().string());
    return v;
  }

  TempDir t_;
  std::unique_ptr<io::FileSystem> fs_;
};

int64_t TableBytes(const delta::Snapshot& s) {
  int64_t n = 0;
  for (const table::FileEntry& f : s.files()) n += f.size;
  return n;
}

TEST_F(ClusterTest, ZOrderMakesPointLookupsOpenFewFilesAndKeepsRows) {
  Create({});
  for (int i = 0; i < 8; ++i) Append(2500, 1, 100 + i);
  const std::vector<std::string> before = Rows();
  ASSERT_EQ(before.size(), 20000u);
  // Probe ids that exist, with their row counts.
  std::map<int64_t, int64_t> count;
  for (const std::string& l : before) ++count[nlohmann::json::parse(l)["customer_id"].get<int64_t>()];
  std::vector<int64_t> probes;
  for (size_t i = 0; i < before.size(); i += 997) {
    probes.push_back(nlohmann::json::parse(before[i])["customer_id"].get<int64_t>());
  }
  int64_t opened_before = 0;
  for (int64_t p : probes) opened_before += FilesOpened(p);
  EXPECT_GE(opened_before, static_cast<int64_t>(probes.size()) * 6) << "appends interleave every customer";

  const int64_t bytes = TableBytes(*Latest());
  OptimizeSpec spec;
  spec.zorder_by = {"customer_id"};
  spec.target_file_size = bytes / 8;  // Delta: max(1, bin bytes / max file size) = 8 files
  auto r = Optimize(spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->plan.mode, planner::PlanMode::kZOrder);
  ASSERT_EQ(r->plan.bins.size(), 1u);
  EXPECT_EQ(r->plan.bins[0].output_files, 8);
  EXPECT_EQ(r->metrics.num_files_removed, 8);
  EXPECT_EQ(r->metrics.num_files_added, 8);
  ASSERT_FALSE(r->metrics.zorder_stats.is_null());
  EXPECT_EQ(r->metrics.zorder_stats["inputOtherFiles"]["num"], 8);
  EXPECT_EQ(r->metrics.zorder_stats["numOutputCubes"], 1);
  EXPECT_EQ(r->clustering_sort.runs_spilled, 0);

  EXPECT_EQ(Rows(), before);
  // Each output file holds one contiguous customer range, so a point lookup opens the
  // files whose range holds the id: one, plus the neighbours an id straddles at a cut.
  const int64_t rows_per_file = 20000 / 8;
  int64_t opened_after = 0;
  for (int64_t p : probes) {
    const int64_t n = FilesOpened(p);
    EXPECT_LE(n, 2 + count[p] / rows_per_file) << "customer " << p;
    opened_after += n;
  }
  EXPECT_LE(opened_after * 4, opened_before) << "clustering must cut lookup cost by far";

  auto snap = Latest();
  for (const table::FileEntry& f : snap->files()) {
    EXPECT_FALSE(f.clustering_provider.has_value()) << "Z-order outputs carry no clustering provider";
    EXPECT_EQ(f.tags.count(delta::kZCubeIdTag), 0u) << "OSS Delta writes no ZCube tags for Z-order";
  }
  // The commit records Delta's operation parameters.
  FilesOptions fo;
  fo.where = "customer_id = " + std::to_string(probes[0]);
  auto rep = ListTableFiles(fs_.get(), t_.table(), fo);
  ASSERT_TRUE(rep.ok());
  EXPECT_NE(LookupCostText(rep->document).find("lookup cost: opens "), std::string::npos);
  ExpectDuckDbSees(before);
}

TEST_F(ClusterTest, ZOrderValidationUsesDeltaErrorClasses) {
  Create({}, {{"delta.dataSkippingNumIndexedCols", "2"}}, {"region"});
  Append(100, 1, 1);
  auto err = [&](std::vector<std::string> cols) {
    OptimizeSpec s;
    s.zorder_by = std::move(cols);
    auto r = Optimize(s);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(err({"region"}).rfind("DELTA_ZORDERING_ON_PARTITION_COLUMN", 0), 0u);
  EXPECT_EQ(err({"nope"}).rfind("DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST", 0), 0u);
  EXPECT_EQ(err({"note"}).rfind("DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS", 0), 0u);
  OptimizeSpec full;
  full.full = true;
  auto r = Optimize(full);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("DELTA_OPTIMIZE_FULL_NOT_SUPPORTED", 0), 0u) << r.status().ToString();
  EXPECT_EQ(Latest()->version(), 1) << "nothing committed";
}

TEST_F(ClusterTest, LiquidCubesSealAndAreNeverRewrittenAgain) {
  Create({"customer_id"});
  for (int i = 0; i < 4; ++i) Append(1500, 1, 200 + i);
  const int64_t f = TableBytes(*Latest()) / 4;  // one append's file
  OptimizeSpec spec;
  spec.min_cube_size = 3 * f;
  spec.target_cube_size = 100 * f;

  // 1. Four unclustered files -> one ZCube, large enough to be sealed.
  auto r1 = Optimize(spec);
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  ASSERT_EQ(r1->plan.mode, planner::PlanMode::kLiquid);
  EXPECT_EQ(r1->metrics.num_files_removed, 4);
  ASSERT_FALSE(r1->metrics.clustering_stats.is_null());
  EXPECT_EQ(r1->metrics.clustering_stats["inputOtherFiles"]["numFiles"], 4);
  EXPECT_EQ(r1->metrics.clustering_stats["numOutputZCubes"], 1);
  const std::set<std::string> cube1 = Paths();
  std::string cube1_id;
  for (const table::FileEntry& e : Live()) {
    EXPECT_EQ(e.clustering_provider, std::optional<std::string>("liquid"));
    ASSERT_EQ(e.tags.count(delta::kZCubeIdTag), 1u);
    EXPECT_EQ(e.tags.at(delta::kZCubeZOrderByTag), R"(["customer_id"])");
    cube1_id = e.tags.at(delta::kZCubeIdTag);
  }
  bool cube_logged = false;
  for (const planner::BinDecision& b : r1->log.bins) {
    cube_logged = cube_logged || b.reason.find("written as ZCube " + cube1_id) != std::string::npos;
  }
  EXPECT_TRUE(cube_logged) << "the decision log names the cube each bin became";
  int64_t cube1_bytes = TableBytes(*Latest());
  ASSERT_GE(cube1_bytes, *spec.min_cube_size) << "the test needs the first cube to be sealed";

  // 2. Many small appends, OPTIMIZE after each: the sealed cube is never touched.
  std::vector<std::string> rows;
  for (int round = 0; round < 3; ++round) {
    Append(300, 1, 300 + round);
    rows = Rows();
    auto r = Optimize(spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FALSE(r->versions.empty()) << "round " << round << ": the new file is clustered";
    for (const std::string& p : cube1) EXPECT_TRUE(Paths().count(p)) << "sealed cube file rewritten: " << p;
    EXPECT_EQ(Rows(), rows);
    bool sealed_logged = false;
    for (const auto& d : r->log.files) sealed_logged = sealed_logged || d.verdict == planner::FileVerdict::kSealedCube;
    EXPECT_TRUE(sealed_logged) << "the decision log names the sealed cube";
  }
  // 3. No new data: nothing to merge, no commit.
  const int64_t v = Latest()->version();
  auto idle = Optimize(spec);
  ASSERT_TRUE(idle.ok()) << idle.status().ToString();
  EXPECT_TRUE(idle->versions.empty());
  EXPECT_EQ(idle->metrics.num_files_added, 0);
  EXPECT_EQ(Latest()->version(), v);

  // 4. Key change: old cubes stay untouched and count as other files until FULL.
  delta::AlterSpec alter;
  alter.clustering_columns = std::vector<std::string>{"customer_id", "category"};
  ASSERT_TRUE(AlterTable(fs_.get(), t_.table(), alter).ok());
  const std::set<std::string> old_files = Paths();
  auto keyed = Optimize(spec);
  ASSERT_TRUE(keyed.ok()) << keyed.status().ToString();
  EXPECT_TRUE(keyed->versions.empty());
  EXPECT_EQ(keyed->plan.clustering.input_other_files, static_cast<int64_t>(old_files.size()));
  EXPECT_EQ(keyed->metrics.clustering_stats["inputOtherFiles"]["numFiles"],
            static_cast<int64_t>(old_files.size()));
  EXPECT_EQ(Paths(), old_files);

  OptimizeSpec full = spec;
  full.full = true;
  auto rf = Optimize(full);
  ASSERT_TRUE(rf.ok()) << rf.status().ToString();
  EXPECT_EQ(rf->metrics.num_files_removed, static_cast<int64_t>(old_files.size()));
  EXPECT_TRUE(rf->plan.full);
  for (const table::FileEntry& e : Live()) {
    EXPECT_FALSE(old_files.count(e.path));
    EXPECT_EQ(e.tags.at(delta::kZCubeZOrderByTag), R"(["customer_id","category"])");
    EXPECT_NE(e.tags.at(delta::kZCubeIdTag), cube1_id);
  }
  EXPECT_EQ(Rows(), rows);
  ExpectDuckDbSees(rows);
}

TEST_F(ClusterTest, LiquidRefusesWhereAndZOrderBy) {
  Create({"customer_id"});
  Append(100, 2, 1);
  OptimizeSpec w;
  w.where = "customer_id = 1";
  auto r = Optimize(w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("DELTA_CLUSTERING_WITH_PARTITION_PREDICATE", 0), 0u) << r.status().ToString();
  OptimizeSpec z;
  z.zorder_by = {"amount"};
  r = Optimize(z);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("DELTA_CLUSTERING_WITH_ZORDER_BY", 0), 0u) << r.status().ToString();
}

// Bins that run at once share the budget; a lone bin keeps all of it, whatever the
// thread count. Threads left over go to the running bins' sorters (a lone bin on two
// threads sorts with a spill thread and a writer thread).
TEST(ClusteringShareTest, ALoneBinKeepsTheWholeBudget) {
  OptimizeSpec spec;
  spec.clustering_memory_budget = 256 << 20;
  struct Case {
    int threads;
    size_t bins;
    int64_t share;
  };
  for (const Case& c : {Case{1, 1, 256 << 20}, Case{1, 9, 256 << 20}, Case{2, 1, 256 << 20}, Case{2, 5, 128 << 20},
                        Case{4, 2, 128 << 20}, Case{3, 0, 256 << 20}, Case{3, 7, (256 << 20) / 3}}) {
    EXPECT_EQ(BinMemoryShare(spec, c.threads, c.bins), c.share) << c.threads << " threads, " << c.bins << " bins";
  }
  struct Threads {
    int threads;
    size_t bins;
    int sort_threads;
  };
  for (const Threads& c : {Threads{1, 1, 1}, Threads{2, 1, 2}, Threads{2, 2, 1}, Threads{2, 9, 1}, Threads{4, 1, 4},
                           Threads{4, 2, 2}, Threads{3, 2, 1}, Threads{2, 0, 2}}) {
    EXPECT_EQ(BinSortThreads(c.threads, c.bins), c.sort_threads) << c.threads << " threads, " << c.bins << " bins";
  }
}

TEST_F(ClusterTest, ClusteringABinSeveralTimesTheBudgetSpillsAndStaysUnderIt) {
  Create({"customer_id", "amount"});
  Append(24000, 48, 7);  // 48 small files: input row groups well under the budget
  const std::vector<std::string> before = Rows();
  OptimizeSpec spec;
  spec.clustering_memory_budget = 512 << 10;
  spec.threads = 2;  // one bin: it keeps the whole budget, and stays under it
  auto r = Optimize(spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->clustering_sort.rows, 24000);
  EXPECT_GE(r->clustering_sort.runs_spilled, 3) << "a bin several times the budget must spill";
  EXPECT_LE(r->clustering_sort.peak_buffered_bytes, spec.clustering_memory_budget);
  EXPECT_TRUE(Spilled().empty()) << "temporary sort runs are removed";
  EXPECT_EQ(Rows(), before);
  // Hilbert order over (customer_id, amount): the single output file is sorted on the
  // curve; lookups on customer_id still find every row.
  for (size_t i = 0; i < before.size(); i += 4001) {
    const int64_t c = nlohmann::json::parse(before[i])["customer_id"].get<int64_t>();
    testing::Lines out;
    ScanOptions so;
    so.where = "customer_id = " + std::to_string(c);
    ASSERT_TRUE(Scan(fs_.get(), t_.table(), so, out.sink.get()).ok());
    EXPECT_GE(out.lines.size(), 1u);
  }
}

// The sample pass reads only the clustering columns (ReadColumns): on files whose text
// column is most of their bytes, a Z-order reads the data about once, not twice, and
// the deletion vectors apply to the sample's rows as to the rewritten ones. The
// columns are named out of schema order, so the projection is by name, not position.
TEST_F(ClusterTest, TheSampleReadsOnlyTheClusteringColumns) {
  Create({}, {{"delta.enableDeletionVectors", "true"}});
  Append(20000, 8, 11);
  DeleteSpec del;
  del.predicate = "amount < 5";
  auto d = DeleteRows(fs_.get(), t_.table(), del);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_GT(d->metrics["numDeletedRows"], 0);
  ASSERT_GT(d->metrics["numDeletionVectorsAdded"], 0);
  const std::vector<std::string> before = Rows();
  const int64_t data_bytes = TableBytes(*Latest());
  io::CountingFileSystem counting(fs_.get());
  OptimizeSpec spec;
  spec.zorder_by = {"amount", "customer_id"};
  spec.threads = 1;
  spec.spill_dir = t_.spill();
  auto r = commands::Optimize(&counting, t_.table(), spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Rows(), before);
  // Both passes read everything: twice the data. The sample's two numeric columns are a
  // small part of files whose `note` strings dominate.
  EXPECT_GT(counting.bytes_read(), data_bytes);
  EXPECT_LT(counting.bytes_read(), data_bytes * 3 / 2) << "data files hold " << data_bytes << " bytes";
}

}  // namespace
}  // namespace lithify::commands
