#include "lithify/planner/target_size.h"

#include "lithify/base/macros.h"

namespace lithify::planner {

int64_t AutotuneTargetFileSize(int64_t table_bytes) {
  if (table_bytes <= kAutotuneLowTableBytes) return kAutotuneMinTarget;
  if (table_bytes >= kAutotuneHighTableBytes) return kAutotuneMaxTarget;
  // Integer interpolation in 128 bits: the product exceeds 2^63 for tables near 10 TB.
  const __int128 span = kAutotuneMaxTarget - kAutotuneMinTarget;
  const __int128 pos = table_bytes - kAutotuneLowTableBytes;
  const __int128 width = kAutotuneHighTableBytes - kAutotuneLowTableBytes;
  return kAutotuneMinTarget + static_cast<int64_t>(pos * span / width);
}

Result<std::pair<int64_t, std::string>> ResolveTargetFileSize(const TablePolicy& policy,
                                                              const TargetSizeInputs& in) {
  if (in.explicit_bytes) {
    if (*in.explicit_bytes <= 0) {
      return Status::InvalidArgument("--target-file-size must be positive, got {}",
                                     *in.explicit_bytes);
    }
    return std::make_pair(*in.explicit_bytes, std::string("--target-file-size"));
  }
  if (in.table_property) {
    const std::string property(policy.TargetFileSizeProperty());
    LITHIFY_ASSIGN_OR_RETURN_CTX(int64_t bytes, ParseByteSize(*in.table_property),
                                 "table property {}", property);
    if (bytes <= 0) {
      return Status::InvalidArgument("table property {} must be positive: '{}'", property,
                                     *in.table_property);
    }
    return std::make_pair(bytes, property);
  }
  if (in.autotune) {
    if (in.table_bytes < 0) {
      return Status::InvalidArgument("autotune: table size must not be negative, got {}",
                                     in.table_bytes);
    }
    return std::make_pair(AutotuneTargetFileSize(in.table_bytes), std::string("autotune"));
  }
  return std::make_pair(kDefaultTargetFileSize, std::string("default"));
}

}  // namespace lithify::planner
