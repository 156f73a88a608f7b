// RoaringBitmapArray: the 64-bit row-position bitmap shared by Delta deletion vectors and
// Iceberg v3 deletion vectors (moved here from delta/deletion_vector.cc unchanged).
#include "lithify/table/roaring_bitmap_array.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <cstring>

#include "lithify/base/macros.h"

namespace lithify::table {

namespace {

constexpr int32_t kPortableMagic = 1681511377;
constexpr int32_t kNativeMagic = 1681511376;

uint32_t LoadLe32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
uint64_t LoadLe64(const uint8_t* p) { return LoadLe32(p) | uint64_t{LoadLe32(p + 4)} << 32; }
uint32_t LoadBe32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}
void StoreLe32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

}  // namespace

// ---- bitmap ------------------------------------------------------------------------

struct RoaringBitmapArray::Impl {
  // Ascending by high key; each bitmap holds the low 32 bits of its rows.
  std::vector<std::pair<uint32_t, roaring_bitmap_t*>> buckets;
  ~Impl() {
    for (auto& b : buckets) roaring_bitmap_free(b.second);
  }
  const roaring_bitmap_t* Find(uint32_t key) const {
    auto it = std::lower_bound(buckets.begin(), buckets.end(), key,
                               [](const auto& b, uint32_t k) { return b.first < k; });
    return it != buckets.end() && it->first == key ? it->second : nullptr;
  }
};

RoaringBitmapArray::RoaringBitmapArray() : impl_(std::make_unique<Impl>()) {}
RoaringBitmapArray::~RoaringBitmapArray() = default;
RoaringBitmapArray::RoaringBitmapArray(RoaringBitmapArray&&) noexcept = default;
RoaringBitmapArray& RoaringBitmapArray::operator=(RoaringBitmapArray&&) noexcept = default;

namespace {

// CRoaring (0.2.x, Debian 12) checks only that a serialized bitmap fits its buffer, not
// that it is well formed: an array container may be unsorted or hold duplicates, runs may
// overlap or spill past 0xFFFF, a run container may have no runs (its iterator then
// dereferences null), keys may be out of order, a stored cardinality may be wrong. Such a
// bitmap breaks Contains (binary search) and the iterators KeepMask relies on, and the
// library itself is not sanitizer-instrumented. So the bytes are validated here, before
// CRoaring sees them, against the portable format (RoaringFormatSpec): cookie and
// container count, keys strictly ascending, per container the body fits, arrays strictly
// ascending, runs non-empty, ordered, disjoint and inside 0..0xFFFF, and every stored
// cardinality exact. Returns the serialized size.
Result<size_t> CheckPortableBitmap(ByteView b) {
  constexpr uint32_t kCookieNoRuns = 12346;
  constexpr uint32_t kCookieRuns = 12347;
  constexpr size_t kNoOffsetThreshold = 4;
  constexpr uint32_t kMaxArray = 4096;
  auto bad = [](std::string_view what) {
    return Status::Corruption("malformed roaring bitmap: {}", what);
  };
  auto le16 = [&](size_t at) { return static_cast<uint32_t>(b[at] | b[at + 1] << 8); };
  size_t pos = 0;
  if (b.size() < 4) return bad("truncated header");
  const uint32_t cookie = LoadLe32(b.data());
  pos = 4;
  size_t n = 0;
  const uint8_t* run_flags = nullptr;
  if ((cookie & 0xFFFF) == kCookieRuns) {
    n = (cookie >> 16) + 1;
    run_flags = b.data() + pos;
    pos += (n + 7) / 8;
  } else if (cookie == kCookieNoRuns) {
    if (b.size() < 8) return bad("truncated header");
    n = LoadLe32(b.data() + 4);
    pos = 8;
    if (n > 65536) return bad("more than 65536 containers");
  } else {
    return bad("unknown cookie");
  }
  auto is_run = [&](size_t i) { return run_flags != nullptr && (run_flags[i / 8] >> (i % 8) & 1); };
  const size_t header = pos + 4 * n;
  if (header > b.size()) return bad("truncated container headers");
  const size_t keys_at = pos;
  pos = header;
  if (run_flags == nullptr || n >= kNoOffsetThreshold) pos += 4 * n;  // offsets: unused
  for (size_t i = 0; i < n; ++i) {
    const uint32_t key = le16(keys_at + 4 * i);
    const uint32_t card = le16(keys_at + 4 * i + 2) + 1;
    if (i > 0 && key <= le16(keys_at + 4 * (i - 1))) return bad("container keys not ascending");
    if (pos > b.size()) return bad("truncated container");
    const size_t left = b.size() - pos;
    if (is_run(i)) {
      if (left < 2) return bad("truncated run container");
      const size_t runs = le16(pos);
      if (runs == 0) return bad("run container without runs");
      if (left < 2 + 4 * runs) return bad("truncated run container");
      uint64_t total = 0;
      int64_t prev_end = -1;
      for (size_t r = 0; r < runs; ++r) {
        const uint32_t start = le16(pos + 2 + 4 * r);
        const uint32_t len = le16(pos + 4 + 4 * r);  // length - 1
        if (static_cast<int64_t>(start) <= prev_end) return bad("runs overlap or are unordered");
        if (start + len > 0xFFFF) return bad("run extends past its container");
        prev_end = start + len;
        total += len + 1;
      }
      if (total != card) return bad("run container cardinality mismatch");
      pos += 2 + 4 * runs;
    } else if (card > kMaxArray) {
      if (left < 8192) return bad("truncated bitset container");
      uint64_t bits = 0;
      for (size_t w = 0; w < 8192; w += 8) bits += __builtin_popcountll(LoadLe64(b.data() + pos + w));
      if (bits != card) return bad("bitset container cardinality mismatch");
      pos += 8192;
    } else {
      if (left < 2 * size_t{card}) return bad("truncated array container");
      for (size_t v = 1; v < card; ++v) {
        if (le16(pos + 2 * v) <= le16(pos + 2 * (v - 1))) return bad("array container not strictly ascending");
      }
      pos += 2 * size_t{card};
    }
  }
  if (pos > b.size()) return bad("truncated container");
  return pos;
}

// One 32-bit portable roaring bitmap from the front of `bytes`; advances `bytes`.
Result<roaring_bitmap_t*> TakeBitmap(ByteView* bytes) {
  LITHIFY_ASSIGN_OR_RETURN(size_t size, CheckPortableBitmap(*bytes));
  const char* p = reinterpret_cast<const char*>(bytes->data());
  // CRoaring must agree on the extent of what was just validated.
  if (roaring_bitmap_portable_deserialize_size(p, bytes->size()) != size) {
    return Status::Corruption("malformed roaring bitmap");
  }
  roaring_bitmap_t* r = roaring_bitmap_portable_deserialize_safe(p, size);
  if (r == nullptr) return Status::Corruption("malformed roaring bitmap");
  *bytes = bytes->subspan(size);
  return r;
}

}  // namespace

Result<RoaringBitmapArray> RoaringBitmapArray::Deserialize(ByteView bytes) {
  if (bytes.size() < 4) return Status::Corruption("deletion vector of {} bytes is too short", bytes.size());
  auto magic = static_cast<int32_t>(LoadLe32(bytes.data()));
  bytes = bytes.subspan(4);
  RoaringBitmapArray dv;
  auto& buckets = dv.impl_->buckets;
  if (magic == kPortableMagic) {
    if (bytes.size() < 8) return Status::Corruption("deletion vector bucket count is truncated");
    uint64_t n = LoadLe64(bytes.data());
    bytes = bytes.subspan(8);
    // Each bucket takes at least 4 (key) + 8 (empty bitmap header) bytes.
    if (n > bytes.size() / 12 + 1) return Status::Corruption("deletion vector claims {} buckets", n);
    for (uint64_t i = 0; i < n; ++i) {
      if (bytes.size() < 4) return Status::Corruption("deletion vector bucket {} is truncated", i);
      auto key = static_cast<int32_t>(LoadLe32(bytes.data()));
      bytes = bytes.subspan(4);
      if (key < 0 || (!buckets.empty() && static_cast<uint32_t>(key) <= buckets.back().first)) {
        return Status::Corruption("deletion vector bucket key {} is negative or not ascending", key);
      }
      LITHIFY_ASSIGN_OR_RETURN(roaring_bitmap_t * r, TakeBitmap(&bytes));
      buckets.emplace_back(static_cast<uint32_t>(key), r);
    }
  } else if (magic == kNativeMagic || static_cast<int32_t>(LoadBe32(bytes.data() - 4)) == kNativeMagic) {
    // Legacy "native" layout (PROTOCOL.md's inline example uses it): int32 count, then
    // per bucket (keys 0..count-1) int32 length and a bitmap of that length; the header
    // integers are big-endian when the magic is (Java's default byte order).
    const bool be = magic != kNativeMagic;
    auto load32 = [&](const uint8_t* p) { return be ? LoadBe32(p) : LoadLe32(p); };
    if (bytes.size() < 4) return Status::Corruption("deletion vector bucket count is truncated");
    uint32_t n = load32(bytes.data());
    bytes = bytes.subspan(4);
    if (n > bytes.size() / 12 + 1) return Status::Corruption("deletion vector claims {} buckets", n);
    for (uint32_t i = 0; i < n; ++i) {
      if (bytes.size() < 4) return Status::Corruption("deletion vector bucket {} is truncated", i);
      uint32_t len = load32(bytes.data());
      bytes = bytes.subspan(4);
      if (len > bytes.size()) return Status::Corruption("deletion vector bucket {} is truncated", i);
      ByteView one = bytes.first(len);
      LITHIFY_ASSIGN_OR_RETURN(roaring_bitmap_t * r, TakeBitmap(&one));
      buckets.emplace_back(i, r);
      bytes = bytes.subspan(len);
    }
  } else {
    return Status::Corruption("deletion vector has unknown magic {}", magic);
  }
  if (!bytes.empty()) {
    return Status::Corruption("deletion vector has {} trailing bytes", bytes.size());
  }
  return dv;
}

std::string RoaringBitmapArray::Serialize() const {
  std::string out;
  StoreLe32(&out, static_cast<uint32_t>(kPortableMagic));
  uint64_t n = impl_->buckets.size();
  StoreLe32(&out, static_cast<uint32_t>(n));
  StoreLe32(&out, static_cast<uint32_t>(n >> 32));
  for (const auto& [key, r] : impl_->buckets) {
    StoreLe32(&out, key);
    size_t size = roaring_bitmap_portable_size_in_bytes(r);
    size_t at = out.size();
    out.resize(at + size);
    roaring_bitmap_portable_serialize(r, out.data() + at);
  }
  return out;
}

RoaringBitmapArray RoaringBitmapArray::FromRows(const std::vector<uint64_t>& rows) {
  RoaringBitmapArray dv;
  std::vector<uint64_t> sorted = rows;
  std::sort(sorted.begin(), sorted.end());
  for (uint64_t row : sorted) {
    auto key = static_cast<uint32_t>(row >> 32);
    if (dv.impl_->buckets.empty() || dv.impl_->buckets.back().first != key) {
      dv.impl_->buckets.emplace_back(key, roaring_bitmap_create());
    }
    roaring_bitmap_add(dv.impl_->buckets.back().second, static_cast<uint32_t>(row));
  }
  for (auto& b : dv.impl_->buckets) roaring_bitmap_run_optimize(b.second);
  return dv;
}

uint64_t RoaringBitmapArray::cardinality() const {
  uint64_t n = 0;
  for (const auto& b : impl_->buckets) n += roaring_bitmap_get_cardinality(b.second);
  return n;
}

bool RoaringBitmapArray::Contains(uint64_t row_index) const {
  const roaring_bitmap_t* r = impl_->Find(static_cast<uint32_t>(row_index >> 32));
  return r != nullptr && roaring_bitmap_contains(r, static_cast<uint32_t>(row_index));
}

std::vector<bool> RoaringBitmapArray::KeepMask(uint64_t first_row, uint64_t n) const {
  std::vector<bool> keep(n, true);
  if (n == 0) return keep;
  const uint64_t last = first_row + n - 1;  // inclusive
  for (const auto& [key, r] : impl_->buckets) {
    const uint64_t base = uint64_t{key} << 32;
    const uint64_t bucket_last = base | 0xFFFFFFFFull;
    if (bucket_last < first_row || base > last) continue;
    roaring_uint32_iterator_t it;
    roaring_init_iterator(r, &it);
    uint32_t lo = first_row > base ? static_cast<uint32_t>(first_row - base) : 0;
    if (!roaring_move_uint32_iterator_equalorlarger(&it, lo)) continue;
    while (it.has_value) {
      uint64_t row = base | it.current_value;
      if (row > last) break;
      // Deserialize refuses unsorted bitmaps; this keeps the write in bounds regardless.
      if (row < first_row) {
        roaring_advance_uint32_iterator(&it);
        continue;
      }
      keep[row - first_row] = false;
      roaring_advance_uint32_iterator(&it);
    }
  }
  return keep;
}

std::vector<uint64_t> RoaringBitmapArray::ToVector() const {
  std::vector<uint64_t> out;
  for (const auto& [key, r] : impl_->buckets) {
    roaring_uint32_iterator_t it;
    roaring_init_iterator(r, &it);
    while (it.has_value) {
      out.push_back(uint64_t{key} << 32 | it.current_value);
      roaring_advance_uint32_iterator(&it);
    }
  }
  return out;
}

}  // namespace lithify::table
