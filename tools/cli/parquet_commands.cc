// `lithify parquet inspect|cat|rewrite`: registration of the parquet subcommands.
#include "tools/cli/cli.h"
#include "tools/cli/parquet_commands.h"

namespace lithify::cli {

void RegisterParquetCommands(CLI::App& app, Runner* selected) {
  CLI::App* parquet = app.add_subcommand("parquet", "Inspect, print and rewrite Parquet files");
  parquet->require_subcommand(1);
  RegisterParquetInspect(*parquet, selected);
  RegisterParquetCat(*parquet, selected);
  RegisterParquetRewrite(*parquet, selected);
}

}  // namespace lithify::cli
