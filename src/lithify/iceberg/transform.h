// Applying partition transforms to values (format/spec.md "Partition Transforms",
// "Bucket Transform Details", "Truncate Transform Details", Appendix B).
//
// bucket[N] hashes with the 32-bit Murmur3 x86 hash seeded with 0 over the spec's byte
// form per type (int and long as the 8 little-endian bytes of the long, so promotion
// keeps buckets; date and boolean widened to long as well, as the spec's test values
// show; decimal as its minimal big-endian two's complement unscaled bytes; time and timestamps as the long of microseconds, nanosecond types
// converted down first; strings as UTF-8; uuid, fixed, binary as their bytes), then
// (hash & INT_MAX) % N. truncate[W] keeps v - (v mod W) with a positive remainder for
// integers and decimals (W scaled to the unscaled value), the first W code points of a
// string, the first W bytes of binary. year/month/day/hour count from 1970-01-01 (floor
// for earlier times). Null maps to null. Values are in values.h's vocabulary.
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "lithify/base/result.h"
#include "lithify/iceberg/schema.h"
#include "lithify/table/value.h"

namespace lithify::iceberg {

// MurmurHash3_x86_32 with seed 0.
int32_t Murmur3Hash32(std::string_view bytes);

// The spec's 32-bit hash of a non-null value of `type`; InvalidArgument for types that
// have none (float, double, boolean are hashed as Appendix B's second table says).
Result<int32_t> BucketHash(const Type& type, const table::Value& v);

// The partition value `t` produces from a source value of `source` type.
Result<table::Value> ApplyTransform(const Transform& t, const Type& source, const table::Value& v);

}  // namespace lithify::iceberg
