// Deletion vector codec and loading (PROTOCOL.md "Deletion Vectors" and Appendix
// "Deletion Vector Format").
#include "lithify/delta/deletion_vector.h"

#include <roaring/roaring.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "lithify/base/macros.h"
#include "lithify/io/uri.h"

namespace lithify::delta {

namespace {

constexpr std::string_view kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
constexpr int kUuidZ85Length = 20;
constexpr int32_t kPortableMagic = 1681511377;
constexpr int32_t kNativeMagic = 1681511376;

const std::array<int8_t, 256>& Z85Table() {
  static const std::array<int8_t, 256> table = [] {
    std::array<int8_t, 256> t;
    t.fill(-1);
    for (size_t i = 0; i < kZ85Alphabet.size(); ++i) {
      t[static_cast<uint8_t>(kZ85Alphabet[i])] = static_cast<int8_t>(i);
    }
    return t;
  }();
  return table;
}

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

std::string UuidText(std::string_view b) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    auto c = static_cast<uint8_t>(b[i]);
    s.push_back(kHex[c >> 4]);
    s.push_back(kHex[c & 15]);
  }
  return s;
}

// An absolute DV path ('p' storage type): a file: URI becomes its local path, a URI of
// another store stays a URI (decoded) for the table's FileSystem to read, a plain path is
// percent-decoded.
Result<std::string> AbsoluteDvPath(std::string_view p) {
  if (io::SchemeOf(p) == "file") {
    auto local = io::FileUriToPath(p);
    if (!local.ok()) return Status::Corruption("DV path: {}", local.status().message());
    return local;
  }
  auto decoded = io::PercentDecode(p);
  if (!decoded.ok()) return Status::Corruption("DV path: {}", decoded.status().message());
  return decoded;
}

}  // namespace

// ---- descriptor --------------------------------------------------------------------

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id(1, storage_type);
  id += path_or_inline_dv;
  if (offset) id += "@" + std::to_string(*offset);
  return id;
}

table::DeletionVectorRef DeletionVectorDescriptor::ToRef() const {
  return table::DeletionVectorRef{std::string(1, storage_type), path_or_inline_dv, offset,
                                  size_in_bytes, cardinality, UniqueId()};
}

DeletionVectorDescriptor DeletionVectorDescriptor::FromRef(const table::DeletionVectorRef& ref) {
  DeletionVectorDescriptor d;
  d.storage_type = ref.storage_type.empty() ? '?' : ref.storage_type[0];
  d.path_or_inline_dv = ref.location;
  d.offset = ref.offset;
  d.size_in_bytes = ref.size_in_bytes;
  d.cardinality = ref.cardinality;
  return d;
}

Result<DeletionVectorDescriptor> MakeDescriptor(std::string_view storage_type,
                                                std::string path_or_inline_dv,
                                                std::optional<int64_t> offset,
                                                int64_t size_in_bytes, int64_t cardinality,
                                                std::optional<int64_t> max_row_index) {
  if (storage_type.size() != 1) {
    return Status::Corruption("deletionVector.storageType '{}' is not one character",
                              storage_type);
  }
  auto fits_int32 = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
  if (!fits_int32(size_in_bytes) || (offset && !fits_int32(*offset))) {
    return Status::Corruption("deletionVector offset/sizeInBytes out of the 32-bit range");
  }
  DeletionVectorDescriptor dv;
  dv.storage_type = storage_type[0];
  dv.path_or_inline_dv = std::move(path_or_inline_dv);
  if (offset) dv.offset = static_cast<int32_t>(*offset);
  dv.size_in_bytes = static_cast<int32_t>(size_in_bytes);
  dv.cardinality = cardinality;
  dv.max_row_index = max_row_index;
  LITHIFY_RETURN_NOT_OK(ValidateDescriptor(dv));
  return dv;
}

Status ValidateDescriptor(const DeletionVectorDescriptor& dv) {
  switch (dv.storage_type) {
    case 'u':
      if (dv.path_or_inline_dv.size() < kUuidZ85Length) {
        return Status::Corruption("deletion vector '{}' is shorter than a Z85 UUID",
                                  dv.path_or_inline_dv);
      }
      break;
    case 'i':
      if (dv.offset) return Status::Corruption("inline deletion vector has an offset");
      break;
    case 'p':
      break;
    default:
      return Status::NotSupported("deletion vector storage type '{}'", dv.storage_type);
  }
  if (dv.size_in_bytes < 0 || dv.cardinality < 0 || (dv.offset && *dv.offset < 0)) {
    return Status::Corruption("deletion vector has a negative size, offset or cardinality");
  }
  return Status::OK();
}

// ---- Z85 ---------------------------------------------------------------------------

Result<std::string> Z85Decode(std::string_view text) {
  if (text.size() % 5 != 0) {
    return Status::Corruption("Z85 text length {} is not a multiple of 5", text.size());
  }
  const auto& table = Z85Table();
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t v = 0;
    for (size_t j = 0; j < 5; ++j) {
      int8_t d = table[static_cast<uint8_t>(text[i + j])];
      if (d < 0) return Status::Corruption("Z85 text has an invalid character at {}", i + j);
      v = v * 85 + static_cast<uint64_t>(d);
    }
    // Delta's reader keeps the low 32 bits of each group (Codec.Base85Codec), and some
    // writers emit padding groups above 2^32; accept them the same way.
    v &= 0xFFFFFFFFull;
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>(v >> s));
  }
  return out;
}

Result<std::string> Z85Encode(std::string_view bytes) {
  if (bytes.size() % 4 != 0) {
    return Status::InvalidArgument("Z85 input length {} is not a multiple of 4", bytes.size());
  }
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 4) {
    uint32_t v = LoadBe32(reinterpret_cast<const uint8_t*>(bytes.data() + i));
    char group[5];
    for (int j = 4; j >= 0; --j) {
      group[j] = kZ85Alphabet[v % 85];
      v /= 85;
    }
    out.append(group, 5);
  }
  return out;
}

Result<std::string> RelativeDvFilePath(const DeletionVectorDescriptor& dv) {
  if (dv.storage_type != 'u') {
    return Status::InvalidArgument("deletion vector storage type '{}' has no relative path",
                                   dv.storage_type);
  }
  LITHIFY_RETURN_NOT_OK(ValidateDescriptor(dv));
  const std::string& p = dv.path_or_inline_dv;
  std::string_view prefix(p.data(), p.size() - kUuidZ85Length);
  LITHIFY_ASSIGN_OR_RETURN(std::string uuid, Z85Decode(std::string_view(p).substr(prefix.size())));
  std::string name = "deletion_vector_" + UuidText(uuid) + ".bin";
  if (prefix.empty()) return name;
  if (prefix.find("..") != std::string_view::npos || prefix.front() == '/') {
    return Status::Corruption("deletion vector prefix '{}' escapes the table root", prefix);
  }
  return std::string(prefix) + "/" + name;
}

// ---- bitmap ------------------------------------------------------------------------

struct DeletionVector::Impl {
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

DeletionVector::DeletionVector() : impl_(std::make_unique<Impl>()) {}
DeletionVector::~DeletionVector() = default;
DeletionVector::DeletionVector(DeletionVector&&) noexcept = default;
DeletionVector& DeletionVector::operator=(DeletionVector&&) noexcept = default;

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

Result<DeletionVector> DeletionVector::Deserialize(ByteView bytes) {
  if (bytes.size() < 4) return Status::Corruption("deletion vector of {} bytes is too short", bytes.size());
  auto magic = static_cast<int32_t>(LoadLe32(bytes.data()));
  bytes = bytes.subspan(4);
  DeletionVector dv;
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

std::string DeletionVector::Serialize() const {
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

DeletionVector DeletionVector::FromRows(const std::vector<uint64_t>& rows) {
  DeletionVector dv;
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

uint64_t DeletionVector::cardinality() const {
  uint64_t n = 0;
  for (const auto& b : impl_->buckets) n += roaring_bitmap_get_cardinality(b.second);
  return n;
}

bool DeletionVector::Contains(uint64_t row_index) const {
  const roaring_bitmap_t* r = impl_->Find(static_cast<uint32_t>(row_index >> 32));
  return r != nullptr && roaring_bitmap_contains(r, static_cast<uint32_t>(row_index));
}

std::vector<bool> DeletionVector::KeepMask(uint64_t first_row, uint64_t n) const {
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

std::vector<uint64_t> DeletionVector::ToVector() const {
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

// ---- loading -----------------------------------------------------------------------

namespace {

Status CheckCardinality(const DeletionVector& v, const DeletionVectorDescriptor& dv,
                        std::string_view where) {
  if (v.cardinality() != static_cast<uint64_t>(dv.cardinality)) {
    return Status::Corruption("{}: deletion vector holds {} rows but its descriptor says {}", where,
                              v.cardinality(), dv.cardinality);
  }
  return Status::OK();
}

Result<DeletionVector> LoadInline(const DeletionVectorDescriptor& dv) {
  LITHIFY_ASSIGN_OR_RETURN_CTX(std::string bytes, Z85Decode(dv.path_or_inline_dv),
                               "inline deletion vector");
  // Z85 pads to a multiple of 4 bytes; sizeInBytes is the unpadded length.
  if (static_cast<size_t>(dv.size_in_bytes) > bytes.size() || bytes.size() - dv.size_in_bytes >= 4) {
    return Status::Corruption("inline deletion vector: sizeInBytes {} does not match {} decoded bytes",
                              dv.size_in_bytes, bytes.size());
  }
  LITHIFY_ASSIGN_OR_RETURN_CTX(DeletionVector v,
                               DeletionVector::Deserialize(AsBytes(std::string_view(bytes).substr(0, dv.size_in_bytes))),
                               "inline deletion vector");
  LITHIFY_RETURN_NOT_OK(CheckCardinality(v, dv, "inline deletion vector"));
  return v;
}

// Appendix "Deletion Vector File Storage Format": at `offset`, a big-endian int32 size,
// the bitmap, a big-endian CRC-32 of the bitmap.
Result<DeletionVector> LoadFromFile(io::FileSystem* fs, const std::string& path,
                                    const DeletionVectorDescriptor& dv) {
  LITHIFY_ASSIGN_OR_RETURN(auto file, fs->OpenForRead(path));
  const uint64_t offset = static_cast<uint64_t>(dv.offset.value_or(0));
  const uint64_t need = uint64_t{4} + static_cast<uint64_t>(dv.size_in_bytes) + 4;
  std::string where = fmt::format("{} at offset {}", path, offset);
  if (offset > file->size() || need > file->size() - offset) {
    return Status::Corruption("{}: deletion vector of {} bytes extends past the end of the file ({} bytes)",
                              where, dv.size_in_bytes, file->size());
  }
  LITHIFY_ASSIGN_OR_RETURN(Buffer buf, file->Read(offset, need));
  uint32_t size = LoadBe32(buf.data());
  if (size != static_cast<uint32_t>(dv.size_in_bytes)) {
    return Status::Corruption("{}: deletion vector size {} does not match the descriptor's {}", where,
                              size, dv.size_in_bytes);
  }
  ByteView data(buf.data() + 4, size);
  uint32_t expected = LoadBe32(buf.data() + 4 + size);
  uint32_t actual = static_cast<uint32_t>(crc32(0L, data.data(), static_cast<uInt>(data.size())));
  if (expected != actual) {
    return Status::Corruption("{}: deletion vector checksum mismatch (stored {:08x}, computed {:08x})",
                              where, expected, actual);
  }
  LITHIFY_ASSIGN_OR_RETURN_CTX(DeletionVector v, DeletionVector::Deserialize(data), "{}", where);
  LITHIFY_RETURN_NOT_OK(CheckCardinality(v, dv, where));
  return v;
}

}  // namespace

Result<DeletionVector> LoadDeletionVector(io::FileSystem* fs, std::string_view table_root,
                                          const DeletionVectorDescriptor& dv) {
  LITHIFY_RETURN_NOT_OK(ValidateDescriptor(dv));
  switch (dv.storage_type) {
    case 'i':
      return LoadInline(dv);
    case 'u': {
      LITHIFY_ASSIGN_OR_RETURN(std::string rel, RelativeDvFilePath(dv));
      return LoadFromFile(fs, io::JoinPath(table_root, rel), dv);
    }
    default: {
      LITHIFY_ASSIGN_OR_RETURN(std::string abs, AbsoluteDvPath(dv.path_or_inline_dv));
      return LoadFromFile(fs, abs, dv);
    }
  }
}

Result<DeletionVector> LoadDeletionVector(io::FileSystem* fs, std::string_view table_root,
                                          const table::DeletionVectorRef& dv) {
  return LoadDeletionVector(fs, table_root, DeletionVectorDescriptor::FromRef(dv));
}

}  // namespace lithify::delta
