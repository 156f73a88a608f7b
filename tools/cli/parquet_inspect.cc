// placeholder: `lithify parquet inspect` (to be implemented)
#include "tools/cli/parquet_commands.h"

namespace lithify::cli {
void RegisterParquetInspect(CLI::App& parquet, Runner* selected) {
  CLI::App* cmd = parquet.add_subcommand("inspect", "(not implemented yet)");
  cmd->callback([selected] {
    *selected = [](const Context&) { return Status::NotSupported("parquet inspect is not implemented yet"); };
  });
}
}  // namespace lithify::cli
