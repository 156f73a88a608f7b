// Every Iceberg table under ../shared/corpus (README section 3) read at its current
// snapshot and at the snapshots the README names: the rows must equal the expected rows
// (tests/iceberg/corpus_expected.json) as a multiset, on the columns given there; a
// snapshot that cannot be read must fail with the error the file names.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_util.h"

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

}  // namespace
}  // namespace lithify::iceberg
