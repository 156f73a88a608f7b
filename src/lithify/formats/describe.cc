#include "lithify/formats/describe.h"

#include <memory>

#include "lithify/base/macros.h"
#include "lithify/delta/describe.h"
#include "lithify/iceberg/describe.h"
#include "lithify/iceberg/table_scan.h"

namespace lithify::formats {

Result<nlohmann::ordered_json> DescribeDetail(io::FileSystem* fs, const std::string& location,
                                              const DescribeRequest& request, TableFormat format) {
  if (format == TableFormat::kIceberg) {
    return iceberg::DescribeDetail(fs, location, iceberg::SnapshotSelectorOf(request.version), request.location_map);
  }
  // Reachable, so no leak report: a snapshot kept until exit is the OS's to free.
  static auto* kept = new std::shared_ptr<const delta::Snapshot>();
  LITHIFY_ASSIGN_OR_RETURN(delta::TableDetail d, delta::DescribeDetail(fs, location, request.version,
                                                                       request.keep_until_exit ? kept : nullptr));
  return delta::TableDetailToJson(d);
}

Result<nlohmann::ordered_json> DescribeHistory(io::FileSystem* fs, const std::string& location,
                                               const DescribeRequest& request, TableFormat format) {
  if (format == TableFormat::kIceberg) {
    return iceberg::DescribeHistory(fs, location, request.location_map, request.limit);
  }
  LITHIFY_ASSIGN_OR_RETURN(std::vector<delta::HistoryEntry> h, delta::DescribeHistory(fs, location, request.limit));
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const delta::HistoryEntry& e : h) out.push_back(delta::HistoryEntryToJson(e));
  return out;
}

}  // namespace lithify::formats
