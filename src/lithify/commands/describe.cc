#include "lithify/commands/describe.h"

#include <utility>

#include "lithify/base/macros.h"
#include "lithify/formats/describe.h"

namespace lithify::commands {

namespace {

using DescribeFn = Result<nlohmann::ordered_json> (*)(io::FileSystem*, const std::string&,
                                                      const formats::DescribeRequest&, formats::TableFormat);

Result<Description> Describe(io::FileSystem* fs, const std::string& location, const DescribeOptions& options,
                             DescribeFn describe) {
  Description out;
  LITHIFY_ASSIGN_OR_RETURN(out.format, formats::FormatOf(fs, location, options.format));
  formats::DescribeRequest request;
  request.version = options.version;
  request.location_map = options.location_map;
  request.limit = options.limit;
  request.keep_until_exit = options.keep_until_exit;
  LITHIFY_ASSIGN_OR_RETURN(out.document, describe(fs, location, request, out.format));
  return out;
}

}  // namespace

Result<Description> DescribeTableDetail(io::FileSystem* fs, const std::string& location,
                                        const DescribeOptions& options) {
  return Describe(fs, location, options, &formats::DescribeDetail);
}

Result<Description> DescribeTableHistory(io::FileSystem* fs, const std::string& location,
                                         const DescribeOptions& options) {
  return Describe(fs, location, options, &formats::DescribeHistory);
}

}  // namespace lithify::commands
