// Exact text of 128-bit integers and of decimals given as (unscaled, scale): the one
// renderer behind stats JSON, partition values, --where explanations and messages.
// Pure; thread-safe.
#pragma once

#include <string>

namespace lithify {

// Decimal digits of `v`, '-' first when negative ("0", "-170141183460469231731687303715884105728").
std::string Int128Text(__int128 v);

// unscaled * 10^-scale as plain text: the digits of |unscaled| with a '.' before the
// last `scale` of them (zero-padded so one digit precedes the point), '-' first when
// negative. scale <= 0 gives the integer digits alone (no zeros appended).
// (-5, 2) -> "-0.05"; (12300, 2) -> "123.00"; (0, 3) -> "0.000"; (7, 0) -> "7".
std::string DecimalText(__int128 unscaled, int scale);

}  // namespace lithify
