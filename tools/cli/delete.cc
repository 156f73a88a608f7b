#include "tools/cli/cli.h"

namespace lithify::cli {

// Pending: registers nothing yet.
void RegisterDeleteCommand(CLI::App& app, Runner* selected) {
  (void)app;
  (void)selected;
}

}  // namespace lithify::cli
