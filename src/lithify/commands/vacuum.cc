#include "lithify/commands/vacuum.h"

#include "lithify/formats/vacuum.h"

namespace lithify::commands {

Result<VacuumResult> Vacuum(io::FileSystem* fs, const std::string& root, const VacuumSpec& spec,
                            std::optional<formats::TableFormat> format) {
  return formats::Vacuum(fs, root, spec, format);
}

}  // namespace lithify::commands
