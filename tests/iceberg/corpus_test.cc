// Every Iceberg table under ../shared/corpus (README section 3) read at its current
// snapshot and at the snapshots the README names: the rows must equal the expected rows
// (tests/iceberg/corpus_expected.json) as a multiset, on the columns given there; a
// snapshot that cannot be read must fail with the error the file names.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "test_util.h"
#include "lithify_test_paths.h"

namespace lithify::iceberg {
namespace {

using nlohmann::json;
using testing::Corpus;

// `row` restricted to the keys of `like`.
json Project(const json& row, const json& like) {
  json out = json::object();
  for (auto it = like.begin(); it != like.end(); ++it) out[it.key()] = row.contains(it.key()) ? row[it.key()] : json("<absent>");
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

Result<const Snapshot*> Pick(const IcebergTable& t, const json& select) {
  if (select.is_number()) return t.Select(SnapshotSelector::Id(select.get<int64_t>()));
  const std::string s = select.get<std::string>();
  if (s == "current") return t.Select(SnapshotSelector::Current());
  if (s == "first") {
    const Snapshot* first = nullptr;
    for (const Snapshot& snap : t.metadata().snapshots) {
      if (first == nullptr || snap.sequence_number < first->sequence_number ||
          (snap.sequence_number == first->sequence_number && snap.timestamp_ms < first->timestamp_ms)) {
        first = &snap;
      }
    }
    return first;
  }
  if (s.rfind("ref:", 0) == 0) return t.Select(SnapshotSelector::Ref(s.substr(4)));
  if (s.rfind("as-of:", 0) == 0) return t.Select(SnapshotSelector::AsOf(std::stoll(s.substr(6))));
  return Status::InvalidArgument("bad select '{}'", s);
}

TEST(IcebergCorpus, EveryTableReadsItsExpectedRows) {
  const json expected = testing::Expected();
  const LocationMap map = testing::CorpusMap();
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  int tables = 0, passed = 0, snapshots = 0;
  for (const json& t : expected["tables"]) {
    ++tables;
    std::string where = Corpus() + "/" + t["table"].get<std::string>();
    if (t.contains("metadata")) where += "/metadata/" + t["metadata"].get<std::string>();
    SCOPED_TRACE(where);
    auto table = IcebergTable::Open(fs, where, OpenOptions{map});
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    bool ok = true;
    for (const json& s : t["snapshots"]) {
      ++snapshots;
      SCOPED_TRACE("snapshot " + s["select"].dump());
      Result<const Snapshot*> snap = Pick(**table, s["select"]);
      ASSERT_TRUE(snap.ok()) << snap.status().ToString();
      Result<std::vector<json>> rows = testing::ReadRows(**table, *snap);
      if (s.contains("error")) {
        ASSERT_FALSE(rows.ok());
        EXPECT_EQ(std::string(StatusCodeName(rows.status().code())), s["error"].get<std::string>())
            << rows.status().ToString();
        EXPECT_NE(rows.status().message().find(s["error_says"].get<std::string>()), std::string::npos)
            << rows.status().ToString();
        continue;
      }
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      if (s.contains("count")) {
        EXPECT_EQ(static_cast<int64_t>(rows->size()), s["count"].get<int64_t>());
        ok &= static_cast<int64_t>(rows->size()) == s["count"].get<int64_t>();
      }
      if (s.contains("rows")) {
        std::vector<std::string> want, got;
        for (const json& r : s["rows"]) want.push_back(r.dump());
        for (const json& r : *rows) got.push_back(Project(r, s["rows"][0]).dump());
        EXPECT_EQ(Sorted(got), Sorted(want));
        ok &= Sorted(got) == Sorted(want);
      }
      if (s.contains("contains")) {
        for (const json& r : s["contains"]) {
          bool found = std::any_of(rows->begin(), rows->end(), [&](const json& g) { return Project(g, r) == r; });
          EXPECT_TRUE(found) << "missing row " << r.dump();
          ok &= found;
        }
      }
    }
    passed += ok ? 1 : 0;
  }
  std::printf("iceberg corpus: %d of %d tables pass (%d snapshot reads)\n", passed, tables, snapshots);
  EXPECT_EQ(tables, 46);
}


// Calls fn(table) for every table of corpus_expected.json, opened with the corpus location
// map (a table that does not open fails the test).
template <typename F>
void ForEachCorpusTable(F&& fn) {
  const json expected = testing::Expected();
  const LocationMap map = testing::CorpusMap();
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  for (const json& t : expected["tables"]) {
    std::string where = Corpus() + "/" + t["table"].get<std::string>();
    if (t.contains("metadata")) where += "/metadata/" + t["metadata"].get<std::string>();
    SCOPED_TRACE(where);
    auto table = IcebergTable::Open(fs, where, OpenOptions{map});
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    fn(**table);
  }
}

// Planning decodes only the statistics skipping needs (PlanOptions::all_stats off): the
// files planned, their deletes and what a predicate skips are the same as with every
// statistic decoded, on every corpus table; the files carry the predicate column's
// bounds and null counts and nothing else.
TEST(IcebergCorpus, PlanningWithSelectedStatisticsPlansTheSame) {
  int compared = 0, with_skips = 0;
  ForEachCorpusTable([&](const IcebergTable& table) {
    Result<const Snapshot*> snap = table.Select(SnapshotSelector());
    if (!snap.ok() || *snap == nullptr) return;
    const Schema& schema = table.metadata().current_schema();
    auto col = std::find_if(schema.fields.begin(), schema.fields.end(),
                            [](const NestedField& f) { return f.type.is_primitive(); });
    std::vector<std::optional<expr::Expr>> predicates{std::nullopt};
    if (col != schema.fields.end()) {
      Result<expr::Expr> e = expr::Parse("`" + col->name + "` IS NULL");
      ASSERT_TRUE(e.ok()) << e.status().ToString();
      predicates.push_back(*e);
    }
    for (const auto& where_expr : predicates) {
      PlanOptions all, selected;
      all.all_stats = true;
      all.where = selected.where = where_expr;
      PlanStats all_st, sel_st;
      Result<std::vector<PlannedFile>> a = table.PlanAll(*snap, all, &all_st);
      Result<std::vector<PlannedFile>> b = table.PlanAll(*snap, selected, &sel_st);
      ASSERT_EQ(a.ok(), b.ok()) << (a.ok() ? b.status().ToString() : a.status().ToString());
      if (!a.ok()) {
        EXPECT_EQ(a.status().ToString(), b.status().ToString());
        continue;
      }
      ++compared;
      EXPECT_EQ(all_st.skipped_files, sel_st.skipped_files);
      EXPECT_EQ(all_st.data_files, sel_st.data_files);
      with_skips += sel_st.skipped_files > 0;
      ASSERT_EQ(a->size(), b->size());
      for (size_t i = 0; i < a->size(); ++i) {
        const DataFile& fa = (*a)[i].file;
        const DataFile& fb = (*b)[i].file;
        EXPECT_EQ(fa.path, fb.path);
        EXPECT_EQ(fa.record_count, fb.record_count);
        EXPECT_EQ(fa.partition.size(), fb.partition.size());
        EXPECT_EQ((*a)[i].deletes.size(), (*b)[i].deletes.size());
        EXPECT_EQ((*a)[i].data_sequence_number, (*b)[i].data_sequence_number);
        EXPECT_TRUE(fb.column_sizes.empty() && fb.value_counts.empty() && fb.nan_value_counts.empty());
        for (const auto* m : {&fb.lower_bounds, &fb.upper_bounds}) {
          for (const auto& [id, bytes] : *m) {
            EXPECT_TRUE(where_expr && id == col->id) << "bound of field " << id << " decoded";
            const auto& full = m == &fb.lower_bounds ? fa.lower_bounds : fa.upper_bounds;
            auto it = full.find(id);
            ASSERT_NE(it, full.end()) << "field " << id << " has a bound only when selected";
            EXPECT_EQ(bytes, it->second);
          }
        }
        if (!where_expr) EXPECT_TRUE(fb.null_value_counts.empty());
        if (where_expr && fa.null_value_counts.count(col->id) && fb.null_value_counts.count(col->id)) {
          EXPECT_EQ(fb.null_value_counts.at(col->id), fa.null_value_counts.at(col->id));
        }
        EXPECT_LE(fb.null_value_counts.size(), 1u);
      }
    }
  });
  EXPECT_GT(compared, 60);
  EXPECT_GT(with_skips, 5);  // the predicate's statistics were there when skipping needed them
  std::printf("planning with selected statistics: %d plans compared, %d with skipped files\n", compared,
              with_skips);
}


// Manifests decoded on several threads plan exactly what one thread plans: the same files
// in the same order with the same deletes, the same counts, and the same first error, on
// every snapshot of every corpus table.
TEST(IcebergCorpus, PlanningOnSeveralThreadsEqualsOneThread) {
  auto describe = [](const Result<std::vector<PlannedFile>>& r, const PlanStats& st) {
    if (!r.ok()) return r.status().ToString();
    std::string out = std::to_string(st.data_files) + "/" + std::to_string(st.skipped_files) + "/" +
                      std::to_string(st.delete_files) + ":";
    for (const PlannedFile& f : *r) {
      out += f.file.path + "#" + std::to_string(f.data_sequence_number) + "d" + std::to_string(f.deletes.size()) + ";";
    }
    return out;
  };
  int plans = 0, multi_manifest = 0;
  ForEachCorpusTable([&](const IcebergTable& table) {
    for (const Snapshot& snap : table.metadata().snapshots) {
      std::string one;
      for (int threads : {1, 2, 3}) {
        PlanOptions o;
        o.threads = threads;
        PlanStats st;
        const std::string got = describe(table.PlanAll(&snap, o, &st), st);
        if (threads == 1) {
          one = got;
          ++plans;
          multi_manifest += st.manifests > 1;
        } else {
          EXPECT_EQ(got, one) << "snapshot " << snap.snapshot_id << " on " << threads << " threads";
        }
      }
    }
  });
  EXPECT_GT(plans, 80);
  EXPECT_GT(multi_manifest, 20);
}

// Every field of an entry, for comparing two decodings.
std::string EntryText(const ManifestEntry& e) {
  const DataFile& d = e.file;
  std::string out = std::to_string(e.status) + "|" + std::to_string(e.snapshot_id.value_or(-1)) + "|" +
                    std::to_string(e.sequence_number) + "|" + std::to_string(e.file_sequence_number) + "|" +
                    std::to_string(static_cast<int>(d.content)) + "|" + d.path + "|" + d.recorded_path + "|" +
                    d.file_format + "|" + std::to_string(d.record_count) + "|" +
                    std::to_string(d.file_size_in_bytes) + "|";
  for (const table::Value& v : d.partition) out += v.ToString() + ",";
  for (const auto* m : {&d.column_sizes, &d.value_counts, &d.null_value_counts, &d.nan_value_counts}) {
    out += "|";
    for (const auto& [k, v] : *m) out += std::to_string(k) + ":" + std::to_string(v) + ",";
  }
  for (const auto* m : {&d.lower_bounds, &d.upper_bounds}) {
    out += "|";
    for (const auto& [k, v] : *m) out += std::to_string(k) + ":" + v + ",";
  }
  out += "|";
  for (int64_t x : d.split_offsets) out += std::to_string(x) + ",";
  out += "|";
  for (int32_t x : d.equality_ids) out += std::to_string(x) + ",";
  out += "|" + std::to_string(d.sort_order_id.value_or(-1)) + "|" + std::to_string(d.first_row_id.value_or(-1)) +
         "|" + d.referenced_data_file.value_or("-") + "|" + std::to_string(d.content_offset.value_or(-1)) + "|" +
         std::to_string(d.content_size_in_bytes.value_or(-1));
  return out;
}

// The direct entry decoder (the default) and the generic Value tree give the same entries
// (every field) and the same errors, with every statistic and with a selection, for every
// manifest of every snapshot of every corpus table.
TEST(IcebergCorpus, DirectDecoderEqualsValuePath) {
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  const LocationMap map = testing::CorpusMap();
  int manifests = 0, entries = 0, with_stats = 0;
  ForEachCorpusTable([&](const IcebergTable& table) {
    const TableMetadata& m = table.metadata();
    for (const Snapshot& snap : m.snapshots) {
      Result<std::vector<ManifestFile>> mfs = ReadManifests(fs.get(), m, snap, map);
      if (!mfs.ok()) continue;
      for (const ManifestFile& mf : *mfs) {
        for (const StatsSelection& sel : {StatsSelection::All(), StatsSelection::Columns({1, 2}),
                                          StatsSelection::Columns({})}) {
          std::string got[2];
          for (ManifestDecoding how : {ManifestDecoding::kDirect, ManifestDecoding::kValueTree}) {
            std::string& text = got[how == ManifestDecoding::kDirect ? 0 : 1];
            Status st = ReadManifest(fs.get(), m, snap, mf, map, [&](ManifestEntry&& e) {
              text += EntryText(e) + "\n";
              return Status::OK();
            }, sel, how);
            if (!st.ok()) text += "ERROR " + st.ToString();
          }
          EXPECT_EQ(got[0], got[1]) << mf.path;
          ++manifests;
          entries += static_cast<int>(std::count(got[0].begin(), got[0].end(), '\n'));
          with_stats += sel.all && got[0].find("|1:") != std::string::npos;
        }
      }
    }
  });
  EXPECT_GT(manifests, 300);
  EXPECT_GT(entries, 500);
  EXPECT_GT(with_stats, 50);
}

// Damaged bytes inside a manifest's entries: the direct decoder's fast paths (varints,
// statistics maps, optional integers) hand what they refuse to the checked readers, so
// both decodings still give the same entries or the same error. Uncompressed corpus
// manifests with statistics, one byte replaced at a time (sampled positions, three values).
TEST(IcebergCorpus, DamagedEntriesDecodeAsTheValuePathDoes) {
  auto read_file = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  };
  auto write_file = [](const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  };
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  const LocationMap map = testing::CorpusMap();
  const std::string damaged = ::testing::TempDir() + "/damaged-manifest.avro";
  int manifests = 0, mutations = 0, errors = 0;
  ForEachCorpusTable([&](const IcebergTable& table) {
    const TableMetadata& m = table.metadata();
    if (manifests >= 4 || m.snapshots.empty()) return;
    const Snapshot& snap = m.snapshots.back();
    Result<std::vector<ManifestFile>> mfs = ReadManifests(fs.get(), m, snap, map);
    if (!mfs.ok()) return;
    for (const ManifestFile& mf : *mfs) {
      const std::string bytes = read_file(mf.path);
      if (bytes.find("avro.codec\x08null") == std::string::npos && bytes.find("avro.codec") != std::string::npos) continue;
      if (bytes.find("lower_bounds") == std::string::npos || manifests >= 4) continue;
      ++manifests;
      ManifestFile copy = mf;
      copy.path = damaged;
      const size_t from = bytes.size() / 3, to = bytes.size() - 16;  // past the header; not the sync marker
      for (size_t at = from; at < to; at += std::max<size_t>(1, (to - from) / 50)) {
        for (char value : {'\x00', '\x7f', '\xff'}) {
          std::string bad = bytes;
          bad[at] = value;
          write_file(damaged, bad);
          std::string got[2];
          for (ManifestDecoding how : {ManifestDecoding::kDirect, ManifestDecoding::kValueTree}) {
            std::string& text = got[how == ManifestDecoding::kDirect ? 0 : 1];
            Status st = ReadManifest(fs.get(), m, snap, copy, map, [&](ManifestEntry&& e) {
              text += EntryText(e) + "\n";
              return Status::OK();
            }, StatsSelection::Columns({1}), how);
            if (!st.ok()) text += "ERROR " + st.ToString();
          }
          EXPECT_EQ(got[0], got[1]) << mf.path << " byte " << at << " = " << int(static_cast<uint8_t>(value));
          ++mutations;
          errors += got[0].find("ERROR") != std::string::npos;
        }
      }
    }
  });
  EXPECT_GE(manifests, 2);
  EXPECT_GT(mutations, 200);
  EXPECT_GT(errors, 20);  // the damage is seen, not only decoded into other values
}

// A fuzzer-found manifest whose writer schema makes two of Iceberg's data_file fields
// resolve to one field (colliding ids and names): the direct decoder must leave it to the
// Value path, and both decodings must give the same entries (they once disagreed: the
// direct decoder lost record_count).
TEST(IcebergManifest, CollidingFieldIdsDecodeAsTheValuePathDoes) {
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  TableMetadata m;
  m.format_version = 2;
  m.partition_specs.push_back(PartitionSpec{});
  Snapshot snap;
  snap.sequence_number = 10;
  ManifestFile mf;
  mf.path = mf.recorded_path = std::string(LITHIFY_SOURCE_DIR) + "/tests/iceberg/regressions/colliding-field-ids.avro";
  mf.sequence_number = 5;
  std::string got[2];
  for (ManifestDecoding how : {ManifestDecoding::kDirect, ManifestDecoding::kValueTree}) {
    std::string& text = got[how == ManifestDecoding::kDirect ? 0 : 1];
    Status st = ReadManifest(fs.get(), m, snap, mf, LocationMap(), [&](ManifestEntry&& e) {
      text += EntryText(e) + "\n";
      return Status::OK();
    }, StatsSelection::All(), how);
    if (!st.ok()) text += "ERROR " + st.ToString();
  }
  EXPECT_EQ(got[0], got[1]);
  EXPECT_EQ(got[1].find("ERROR"), std::string::npos) << got[1];
  EXPECT_NE(got[1].find("map_stats"), std::string::npos);
}

}  // namespace
}  // namespace lithify::iceberg
