// Tests of exec::ExternalSorter: key order, stability, nested columns, cuts, spilling
// under a small budget with temporary files removed, and the in-memory path.
#include "lithify/exec/external_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <thread>

#include "lithify/base/macros.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/rows_json.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::exec {
namespace {

using parquet::FieldSpec;
using parquet::Value;

struct Fixture {
  parquet::Schema schema;
  std::vector<parquet::RowBatch> batches;
  std::vector<std::string> lines;  // every input row rendered
};

std::string Render(const parquet::Schema& s, const parquet::RowBatch& b) {
  std::string out;
  const std::vector<int>& fields = s.top_level_fields();
  EXPECT_TRUE(parquet::RenderRows(s, fields, b, parquet::RowFormat::kJsonLines, -1, &out).ok());
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> v;
  size_t p = 0;
  while (p < text.size()) {
    size_t e = text.find('\n', p);
    if (e == std::string::npos) e = text.size();
    v.push_back(text.substr(p, e - p));
    p = e + 1;
  }
  return v;
}

// k: long (the key, with duplicates), seq: long (arrival order), s: nullable string,
// l: list<int> of 0..2 items (nested levels), n: nullable long, d: nullable double (the
// gather's fixed-width paths with nulls).
Fixture Make(int rows, int batch_rows, uint32_t seed) {
  Fixture f;
  auto s = parquet::BuildSchema({FieldSpec::Long("k", false), FieldSpec::Long("seq", false), FieldSpec::String("s"),
                                 FieldSpec::List("l", FieldSpec::Int("e")), FieldSpec::Long("n"),
                                 FieldSpec::Double("d")});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  f.schema = std::move(*s);
  std::mt19937 rng(seed);
  parquet::RowBatchBuilder b(f.schema);
  for (int i = 0; i < rows; ++i) {
    const int64_t k = static_cast<int64_t>(rng() % 500) - 250;
    std::vector<Value> items;
    for (int j = 0; j < i % 3; ++j) items.push_back(Value::Int(i + j));
    EXPECT_TRUE(b.Append({Value::Int(k), Value::Int(i),
                          i % 7 == 0 ? Value::Null() : Value::String("row-" + std::to_string(i) + "-padding"),
                          i % 5 == 0 ? Value::Null() : Value::List(std::move(items)),
                          i % 3 == 0 ? Value::Null() : Value::Int(int64_t{i} * 1000003),
                          i % 4 == 1 ? Value::Null() : Value::Double(i * 0.25)})
                    .ok());
    if (b.num_rows() == batch_rows || i == rows - 1) {
      parquet::RowBatch batch = b.Finish();
      for (std::string& l : Lines(Render(f.schema, batch))) f.lines.push_back(std::move(l));
      f.batches.push_back(std::move(batch));
    }
  }
  return f;
}

int64_t Long(const parquet::ColumnData& c, int64_t i) { return c.values.value<int64_t>(i); }

ExternalSorter::KeyFn KeyOfK() {
  return [](const parquet::RowBatch& b, std::string* keys) {
    for (int64_t r = 0; r < b.num_rows; ++r) {
      uint64_t u = static_cast<uint64_t>(Long(b.columns[0], r)) ^ (uint64_t{1} << 63);
      for (int i = 7; i >= 0; --i) keys->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    }
    return Status::OK();
  };
}

struct Output {
  std::vector<std::string> lines;
  std::vector<std::pair<int64_t, int64_t>> k_seq;
  std::vector<int64_t> batch_ends;  // cumulative rows at each emitted batch's end
  std::vector<int64_t> cut_rows;    // cumulative rows when on_cut ran
};

// KeyOfK padded to `width` > 8 bytes with a constant tail: the same order through the
// sorter's general (memcmp) path instead of its 8-byte integer path.
ExternalSorter::KeyFn KeyOfKWide(int width) {
  return [width](const parquet::RowBatch& b, std::string* keys) {
    std::string narrow;
    LITHIFY_RETURN_NOT_OK(KeyOfK()(b, &narrow));
    for (int64_t r = 0; r < b.num_rows; ++r) {
      keys->append(narrow, static_cast<size_t>(r) * 8, 8);
      keys->append(static_cast<size_t>(width - 8), '\x5a');
    }
    return Status::OK();
  };
}

Output RunSort(Fixture& f, SortOptions o, const std::vector<int64_t>& cuts, SortStats* stats, int width = 8) {
  auto sorter = ExternalSorter::Make(&f.schema, width, width == 8 ? KeyOfK() : KeyOfKWide(width), o);
  EXPECT_TRUE(sorter.ok()) << sorter.status().ToString();
  for (parquet::RowBatch& b : f.batches) EXPECT_TRUE((*sorter)->Add(std::move(b)).ok());
  Output out;
  int64_t total = 0;
  Status st = (*sorter)->Finish(
      cuts,
      [&](const parquet::RowBatch& b) {
        for (std::string& l : Lines(Render(f.schema, b))) out.lines.push_back(std::move(l));
        for (int64_t r = 0; r < b.num_rows; ++r) out.k_seq.push_back({Long(b.columns[0], r), Long(b.columns[1], r)});
        total += b.num_rows;
        out.batch_ends.push_back(total);
        return Status::OK();
      },
      [&]() {
        out.cut_rows.push_back(total);
        return Status::OK();
      });
  EXPECT_TRUE(st.ok()) << st.ToString();
  *stats = (*sorter)->stats();
  return out;
}

void ExpectSortedStableSameRows(const Fixture& f, const Output& out) {
  ASSERT_EQ(out.lines.size(), f.lines.size());
  for (size_t i = 1; i < out.k_seq.size(); ++i) {
    ASSERT_LE(out.k_seq[i - 1].first, out.k_seq[i].first) << "row " << i;
    if (out.k_seq[i - 1].first == out.k_seq[i].first) {
      ASSERT_LT(out.k_seq[i - 1].second, out.k_seq[i].second) << "equal keys keep arrival order, row " << i;
    }
  }
  std::vector<std::string> a = f.lines, b = out.lines;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/lithify-sort-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  size_t entries() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path_), {}));
  }
  // Files of this directory the process holds open after they were unlinked.
  size_t open_unlinked() const {
    size_t n = 0;
    for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
      std::error_code ec;
      const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
      if (!ec && target.rfind(path_ + "/", 0) == 0 && target.ends_with(" (deleted)")) ++n;
    }
    return n;
  }

 private:
  std::string path_;
};

TEST(ExternalSortTest, InMemorySortIsStableAndKeepsEveryRow) {
  Fixture f = Make(3000, 250, 1);
  SortStats stats;
  Output out = RunSort(f, SortOptions{}, {}, &stats);
  ExpectSortedStableSameRows(f, out);
  EXPECT_EQ(stats.runs_spilled, 0);
  EXPECT_EQ(stats.rows, 3000);
}

TEST(ExternalSortTest, SpillsUnderASmallBudgetMergesAndRemovesItsFiles) {
  Fixture f = Make(40000, 500, 2);
  int64_t input_bytes = 0;
  for (const auto& b : f.batches) input_bytes += BatchBytes(b);
  TempDir dir;
  SortOptions o;
  o.memory_budget = 256 << 10;
  o.spill_dir = dir.path();
  o.output_batch_rows = 1000;
  ASSERT_GT(input_bytes, 4 * o.memory_budget) << "the test needs a bin several times the budget";
  SortStats stats;
  Output out = RunSort(f, o, {10000, 25000}, &stats);
  ExpectSortedStableSameRows(f, out);
  EXPECT_GE(stats.runs_spilled, 4);
  EXPECT_GT(stats.bytes_spilled, 0);
  EXPECT_LE(stats.peak_buffered_bytes, o.memory_budget);
  EXPECT_EQ(out.cut_rows, (std::vector<int64_t>{10000, 25000}));
  for (int64_t c : {10000, 25000}) {
    EXPECT_NE(std::find(out.batch_ends.begin(), out.batch_ends.end(), c), out.batch_ends.end()) << c;
  }
  EXPECT_EQ(dir.entries(), 0u) << "sort runs must be removed";
}

// Add takes batches whose descriptors point into another schema object (a reader's, gone
// before the rows are emitted, as in clustering's ReadFile -> BinSink::Take): the sorter
// reads them through its own schema, in memory and through spilled runs, and emits what
// a sort of its own batches emits.
TEST(ExternalSortTest, TakenBatchesOutliveTheSchemaTheyWereReadWith) {
  for (int64_t budget : {int64_t{256} << 20, int64_t{64} << 10}) {
    SCOPED_TRACE(budget);
    TempDir dir;
    SortOptions o;
    o.memory_budget = budget;
    o.spill_dir = dir.path();
    Fixture reference = Make(6000, 300, 9);
    SortStats want_stats;
    const Output want = RunSort(reference, o, {}, &want_stats);
    Fixture mine = Make(6000, 300, 9);
    auto reader = std::make_unique<Fixture>(Make(6000, 300, 9));
    auto sorter = ExternalSorter::Make(&mine.schema, 8, KeyOfK(), o);
    ASSERT_TRUE(sorter.ok()) << sorter.status().ToString();
    for (parquet::RowBatch& b : reader->batches) ASSERT_TRUE((*sorter)->Add(std::move(b)).ok());
    reader.reset();  // the schema the batches were built with goes
    std::vector<std::string> lines;
    Status st = (*sorter)->Finish(
        {},
        [&](const parquet::RowBatch& b) {
          for (std::string& l : Lines(Render(mine.schema, b))) lines.push_back(std::move(l));
          return Status::OK();
        },
        [] { return Status::OK(); });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(lines, want.lines);
    EXPECT_EQ((*sorter)->stats().runs_spilled, want_stats.runs_spilled);
    // The small budget spills (so both paths ran).
    if (budget < (int64_t{1} << 20)) {
      EXPECT_GT(want_stats.runs_spilled, 1);
    }
  }
}

// The chunk sort (an integer sort of 8-byte keys, or a stable memcmp sort of wider ones)
// and the column-by-column gather give one order whether the bin fits in memory, spills
// one run, two, or many and merges them: the in-memory rows, line for line.
TEST(ExternalSortTest, OneTwoAndManyRunsGiveTheInMemoryOrder) {
  Fixture base = Make(12000, 400, 6);
  int64_t input_bytes = 0;
  for (const auto& b : base.batches) input_bytes += BatchBytes(b);
  SortStats mem_stats;
  Fixture f0 = Make(12000, 400, 6);
  const Output in_memory = RunSort(f0, SortOptions{}, {5000}, &mem_stats);
  ASSERT_EQ(mem_stats.runs_spilled, 0);
  ExpectSortedStableSameRows(base, in_memory);
  // Budgets: a chunk is half the budget (a quarter with a spill thread) and a buffered
  // row costs its batch bytes plus about 70 bytes of key, index and refs, so 16x the
  // input stays in memory (one sorted run, never written), 2x spills two or three runs
  // (up to twice as many with a spill thread), and 256 KiB many.
  struct Case {
    int64_t budget;
    int64_t min_runs, max_runs;
  };
  for (const Case& c : {Case{input_bytes * 16, 0, 0}, Case{input_bytes * 2, 2, 3}, Case{256 << 10, 6, 1 << 20}}) {
    for (auto [width, threads] : {std::pair{8, 1}, std::pair{12, 1}, std::pair{8, 2}, std::pair{12, 2}}) {
      SCOPED_TRACE("budget " + std::to_string(c.budget) + " width " + std::to_string(width) + " threads " +
                   std::to_string(threads));
      TempDir dir;
      SortOptions o;
      o.memory_budget = c.budget;
      o.spill_dir = dir.path();
      o.threads = threads;
      Fixture f = Make(12000, 400, 6);
      SortStats stats;
      const Output out = RunSort(f, o, {5000}, &stats, width);
      EXPECT_GE(stats.runs_spilled, c.min_runs);
      EXPECT_LE(stats.runs_spilled, c.max_runs * threads + (threads - 1));
      EXPECT_EQ(out.lines, in_memory.lines);
      EXPECT_EQ(out.cut_rows, (std::vector<int64_t>{5000}));
      EXPECT_LE(stats.peak_buffered_bytes, o.memory_budget);
      EXPECT_EQ(dir.entries(), 0u);
    }
  }
}

// Runs are unlinked as soon as they are created: the directory never shows them (a killed
// process leaves nothing), the sorter holds them open while it lives and closes them when
// abandoned.
TEST(ExternalSortTest, AbandonedSorterRemovesItsRuns) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    Fixture f = Make(20000, 500, 3);
    TempDir dir;
    SortOptions o;
    o.memory_budget = 128 << 10;
    o.spill_dir = dir.path();
    o.threads = threads;
    {
      auto sorter = ExternalSorter::Make(&f.schema, 8, KeyOfK(), o);
      ASSERT_TRUE(sorter.ok());
      for (parquet::RowBatch& b : f.batches) ASSERT_TRUE((*sorter)->Add(std::move(b)).ok());
      EXPECT_GT((*sorter)->stats().runs_spilled, 0);
      EXPECT_EQ(dir.entries(), 0u);
      // A spill in flight on its thread holds one more run than those counted.
      EXPECT_GE(dir.open_unlinked(), static_cast<size_t>((*sorter)->stats().runs_spilled));
      EXPECT_LE(dir.open_unlinked(), static_cast<size_t>((*sorter)->stats().runs_spilled + threads - 1));
    }  // abandoned, possibly with a spill running
    EXPECT_EQ(dir.entries(), 0u);
    EXPECT_EQ(dir.open_unlinked(), 0u);
  }
}

TEST(ExternalSortTest, KeyErrorsAndBadCutsAreReported) {
  Fixture f = Make(10, 10, 4);
  auto bad = ExternalSorter::Make(&f.schema, 8, [](const parquet::RowBatch&, std::string* k) {
    k->append("x");
    return Status::OK();
  });
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE((*bad)->Add(std::move(f.batches[0])).ok());
  Fixture g = Make(10, 10, 4);
  auto sorter = ExternalSorter::Make(&g.schema, 8, KeyOfK());
  ASSERT_TRUE(sorter.ok());
  ASSERT_TRUE((*sorter)->Add(std::move(g.batches[0])).ok());
  Status st = (*sorter)->Finish({10}, [](const parquet::RowBatch&) { return Status::OK(); }, {});
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_FALSE(ExternalSorter::Make(&g.schema, 0, KeyOfK()).ok());
}

// With threads, emit and on_cut run on a thread of the sorter's own, never two at once;
// a failing emit or on_cut is Finish's error (after a spill and in memory), the merge
// stops at it, and no run is left open.
TEST(ExternalSortTest, ThreadedWriterErrorsStopTheMergeAndAreReported) {
  for (int64_t budget : {int64_t{128} << 10, int64_t{64} << 20}) {
    for (bool fail_cut : {false, true}) {
      SCOPED_TRACE("budget " + std::to_string(budget) + (fail_cut ? " on_cut fails" : " emit fails"));
      Fixture f = Make(20000, 500, 3);
      TempDir dir;
      SortOptions o;
      o.memory_budget = budget;
      o.spill_dir = dir.path();
      o.threads = 2;
      o.output_batch_rows = 1000;
      auto sorter = ExternalSorter::Make(&f.schema, 8, KeyOfK(), o);
      ASSERT_TRUE(sorter.ok());
      for (parquet::RowBatch& b : f.batches) ASSERT_TRUE((*sorter)->Add(std::move(b)).ok());
      const std::thread::id caller = std::this_thread::get_id();
      std::atomic<int> inside{0};
      std::atomic<bool> overlapped{false}, on_caller{false};
      int64_t emitted = 0, batches_after_failure = 0;
      bool failed = false;
      auto enter = [&] {
        if (inside.fetch_add(1) != 0) overlapped = true;
        if (std::this_thread::get_id() == caller) on_caller = true;
      };
      Status st = (*sorter)->Finish(
          {5000},
          [&](const parquet::RowBatch& b) {
            enter();
            if (failed) ++batches_after_failure;
            emitted += b.num_rows;
            Status r = !fail_cut && emitted > 3000 ? Status::IOError("disk full") : Status::OK();
            failed = failed || !r.ok();
            inside.fetch_sub(1);
            return r;
          },
          [&]() -> Status {
            enter();
            inside.fetch_sub(1);
            if (!fail_cut) return Status::OK();
            failed = true;
            return Status::IOError("cannot open the next file");
          });
      EXPECT_TRUE(st.IsIOError()) << st.ToString();
      EXPECT_NE(st.ToString().find(fail_cut ? "next file" : "disk full"), std::string::npos) << st.ToString();
      EXPECT_EQ(batches_after_failure, 0);
      EXPECT_FALSE(overlapped);
      EXPECT_FALSE(on_caller);
      EXPECT_EQ(dir.open_unlinked(), 0u);
    }
  }
}

TEST(ExternalSortTest, AppendRowsCopiesNestedRanges) {
  Fixture f = Make(30, 30, 5);
  parquet::RowBatch dst;
  dst.columns.resize(f.batches[0].columns.size());
  for (int l = 0; l < f.schema.num_leaves(); ++l) {
    dst.columns[l].Reset(f.schema.leaf(l));
    dst.columns[l].leaf_index = l;
  }
  AppendRows(f.batches[0], 10, 20, &dst);
  AppendRows(f.batches[0], 2, 3, &dst);
  std::vector<std::string> got = Lines(Render(f.schema, dst));
  ASSERT_EQ(got.size(), 11u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(got[i], f.lines[10 + i]);
  EXPECT_EQ(got[10], f.lines[2]);
}

}  // namespace
}  // namespace lithify::exec
