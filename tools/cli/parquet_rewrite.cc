// placeholder: `lithify parquet rewrite` (to be implemented)
#include "tools/cli/parquet_commands.h"

namespace lithify::cli {
void RegisterParquetRewrite(CLI::App& parquet, Runner* selected) {
  CLI::App* cmd = parquet.add_subcommand("rewrite", "(not implemented yet)");
  cmd->callback([selected] {
    *selected = [](const Context&) { return Status::NotSupported("parquet rewrite is not implemented yet"); };
  });
}
}  // namespace lithify::cli
