// The parquet subcommands, each in its own file.
#pragma once

#include "tools/cli/cli.h"

namespace lithify::cli {
void RegisterParquetInspect(CLI::App& parquet, Runner* selected);  // parquet_inspect.cc
void RegisterParquetCat(CLI::App& parquet, Runner* selected);      // parquet_cat.cc
void RegisterParquetRewrite(CLI::App& parquet, Runner* selected);  // parquet_rewrite.cc
}  // namespace lithify::cli
