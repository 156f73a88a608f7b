// placeholder: `lithify parquet cat` (to be implemented)
#include "tools/cli/parquet_commands.h"

namespace lithify::cli {
void RegisterParquetCat(CLI::App& parquet, Runner* selected) {
  CLI::App* cmd = parquet.add_subcommand("cat", "(not implemented yet)");
  cmd->callback([selected] {
    *selected = [](const Context&) { return Status::NotSupported("parquet cat is not implemented yet"); };
  });
}
}  // namespace lithify::cli
