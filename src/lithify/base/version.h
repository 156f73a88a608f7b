// lithify's version, as reported by `lithify --version`, Parquet `created_by` and
// Delta `engineInfo`.
#pragma once

namespace lithify {
inline constexpr const char* kVersion = "0.1.0";
inline constexpr const char* kCreatedBy = "lithify version 0.1.0";
}  // namespace lithify
