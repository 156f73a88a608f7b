// ParseByteSize: a byte size as Spark and Delta spell them.
//
// A non-negative number, optionally with a fraction, optionally followed (spaces
// allowed) by a unit, case-insensitive: b, k/kb/kib, m/mb/mib, g/gb/gib, t/tb/tib,
// p/pb/pib -- all binary (Spark's byteStringAsBytes treats "mb" as 2^20). Examples:
// "1048576", "128mb", "1g", "1.5GiB", "100 MB". Fractions of a byte round to the nearest
// byte. InvalidArgument naming the text for an empty string, a sign, a missing number,
// an unknown unit or a value above 2^63-1. It is the one parser of size flags
// (--target-file-size, ...) and of the delta.targetFileSize table property, which
// create/alter validate with it. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "lithify/base/result.h"

namespace lithify {

Result<int64_t> ParseByteSize(std::string_view text);

}  // namespace lithify
