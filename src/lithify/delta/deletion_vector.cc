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

uint32_t LoadBe32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
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
