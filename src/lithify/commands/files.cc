#include "lithify/commands/files.h"

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/formats/files.h"
#include "lithify/planner/decision_log.h"

namespace lithify::commands {

Result<FilesListing> ListTableFiles(io::FileSystem* fs, const std::string& location, const FilesOptions& options) {
  FilesListing out;
  LITHIFY_ASSIGN_OR_RETURN(out.format, formats::FormatOf(fs, location, options.format));
  formats::FilesRequest request{options.version, options.location_map, options.where};
  LITHIFY_ASSIGN_OR_RETURN(out.document, formats::ListFiles(fs, location, request, out.format));
  return out;
}

std::string LookupCostText(const nlohmann::ordered_json& document) {
  if (!document.contains("lookupCost")) return "";
  const nlohmann::ordered_json& c = document["lookupCost"];
  const int64_t kept = c["filesOpened"].get<int64_t>();
  const int64_t total = c["filesTotal"].get<int64_t>();
  const double pct = total ? 100.0 * static_cast<double>(kept) / static_cast<double>(total) : 0.0;
  return fmt::format("lookup cost: opens {} of {} files ({:.1f}%), {} of {}", kept, total, pct,
                     planner::FormatBytes(c["bytesOpened"].get<int64_t>()),
                     planner::FormatBytes(c["bytesTotal"].get<int64_t>()));
}

}  // namespace lithify::commands
