// Shared helpers of the Iceberg corpus and malformed-table tests: the corpus root, the
// location map of corpus_expected.json, and reading a whole snapshot as canonical JSON rows.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/iceberg/reader.h"
#include "lithify/parquet/rows_json.h"
#include "lithify_test_paths.h"

namespace lithify::iceberg::testing {

inline std::string Corpus() { return std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus"; }

inline nlohmann::json Expected() {
  std::ifstream in(std::string(LITHIFY_SOURCE_DIR) + "/tests/iceberg/corpus_expected.json");
  return nlohmann::json::parse(in);
}

// corpus_expected.json's location map with ${CORPUS} expanded (+ extra rules first).
inline LocationMap CorpusMap(const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  LocationMap m;
  for (const auto& [from, to] : extra) m.Add(from, to);
  const nlohmann::json expected = Expected();
  for (const auto& e : expected["location_map"]) {
    std::string s = e.get<std::string>();
    const std::string key = "${CORPUS}";
    s.replace(s.find(key), key.size(), Corpus());
    size_t eq = s.find('=');
    m.Add(s.substr(0, eq), s.substr(eq + 1));
  }
  return m;
}

// Every live row of `snapshot` as a parsed canonical JSON object.
inline Result<std::vector<nlohmann::json>> ReadRows(const IcebergTable& t, const Snapshot* snapshot) {
  LITHIFY_ASSIGN_OR_RETURN(OutputSchema out, OutputSchema::Build(t.metadata().current_schema()));
  std::vector<nlohmann::json> rows;
  std::string text;
  LITHIFY_RETURN_NOT_OK(t.PlanFiles(snapshot, {}, [&](PlannedFile&& p) -> Status {
    LITHIFY_ASSIGN_OR_RETURN(auto reader, LiveRowsReader::Open(t, out, p));
    LiveBatch b;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, reader->Next(&b));
      if (!more) return Status::OK();
      if (static_cast<int64_t>(b.row_index.size()) != b.batch.num_rows) return Status::Internal("row index count");
      text.clear();
      LITHIFY_RETURN_NOT_OK(parquet::RenderRows(out.schema(), out.top_level_fields(), b.batch,
                                                parquet::RowFormat::kJsonLines, -1, &text));
      size_t at = 0;
      while (at < text.size()) {
        size_t nl = text.find('\n', at);
        rows.push_back(nlohmann::json::parse(text.substr(at, nl - at)));
        at = nl + 1;
      }
    }
  }));
  return rows;
}

}  // namespace lithify::iceberg::testing
