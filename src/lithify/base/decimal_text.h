// Exact text of 128-bit integers and of decimals given as (unscaled, scale): the one
// renderer behind stats JSON, partition values, --where explanations and messages.
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "lithify/base/result.h"

namespace lithify {

// Decimal digits of `v`, '-' first when negative ("0", "-170141183460469231731687303715884105728").
std::string Int128Text(__int128 v);

// unscaled * 10^-scale as plain text: the digits of |unscaled| with a '.' before the
// last `scale` of them (zero-padded so one digit precedes the point), '-' first when
// negative. scale <= 0 gives the integer digits alone (no zeros appended).
// (-5, 2) -> "-0.05"; (12300, 2) -> "123.00"; (0, 3) -> "0.000"; (7, 0) -> "7".
std::string DecimalText(__int128 unscaled, int scale);

// The exact unscaled value of decimal text ("-12.30", "1E+3", "0.0500": as JSON numbers,
// statistics and the text input formats write decimals) at decimal(precision, scale).
// InvalidArgument when the text is no number, has more significant fraction digits than
// `scale` or more digits than `precision` (never rounded); the messages show the text as
// `shown` (the caller's quoting of it).
Result<__int128> ParseDecimalText(std::string_view text, int precision, int scale, std::string_view shown);

}  // namespace lithify
