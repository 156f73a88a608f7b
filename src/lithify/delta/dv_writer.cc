#include "lithify/delta/dv_writer.h"

#include <array>
#include <limits>
#include <string>

#include "lithify/base/macros.h"
#include "lithify/base/uuid.h"
#include "lithify/parquet/compression.h"

namespace lithify::delta {

namespace {

constexpr uint8_t kDvFileVersion = 1;
// Size and CRC fields around each bitmap.
constexpr int64_t kFramingBytes = 8;

void AppendBigEndian32(uint32_t v, std::string* out) {
  out->push_back(static_cast<char>(v >> 24));
  out->push_back(static_cast<char>(v >> 16));
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v));
}

// A prefix is a relative directory of plain segments (Delta uses a few alphanumerics).
Status CheckPrefix(std::string_view prefix) {
  if (prefix.empty()) return Status::OK();
  if (prefix.front() == '/' || prefix.back() == '/' || prefix.find("..") != std::string_view::npos ||
      prefix.find("//") != std::string_view::npos) {
    return Status::InvalidArgument("deletion vector prefix '{}' is not a relative directory", prefix);
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<DeletionVectorDescriptor>> WriteDeletionVectorFile(
    io::FileSystem* fs, std::string_view table_root, const std::vector<const DeletionVector*>& dvs,
    std::string_view random_prefix) {
  if (dvs.empty()) return Status::InvalidArgument("no deletion vectors to write");
  LITHIFY_RETURN_NOT_OK(CheckPrefix(random_prefix));

  const std::array<uint8_t, 16> uuid = NewUuidBytes();
  LITHIFY_ASSIGN_OR_RETURN(
      std::string z85, Z85Encode(std::string_view(reinterpret_cast<const char*>(uuid.data()), uuid.size())));
  DeletionVectorDescriptor base;
  base.storage_type = 'u';
  base.path_or_inline_dv = std::string(random_prefix) + z85;
  LITHIFY_ASSIGN_OR_RETURN(std::string rel, RelativeDvFilePath(base));
  const std::string path = io::JoinPath(table_root, rel);

  // Frame every DV first: the offsets must fit int32 before anything is written.
  std::string content(1, static_cast<char>(kDvFileVersion));
  std::vector<DeletionVectorDescriptor> out;
  out.reserve(dvs.size());
  for (size_t i = 0; i < dvs.size(); ++i) {
    if (dvs[i] == nullptr || dvs[i]->cardinality() == 0) {
      return Status::InvalidArgument("deletion vector {} of {} for {} is empty", i, dvs.size(), path);
    }
    const std::string bitmap = dvs[i]->Serialize();
    const int64_t end = static_cast<int64_t>(content.size()) + kFramingBytes +
                        static_cast<int64_t>(bitmap.size());
    if (end > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument("{}: deletion vectors exceed the 2 GiB offset range", path);
    }
    DeletionVectorDescriptor d = base;
    d.offset = static_cast<int32_t>(content.size());
    d.size_in_bytes = static_cast<int32_t>(bitmap.size());
    d.cardinality = static_cast<int64_t>(dvs[i]->cardinality());
    AppendBigEndian32(static_cast<uint32_t>(bitmap.size()), &content);
    content += bitmap;
    AppendBigEndian32(parquet::Crc32(AsBytes(bitmap)), &content);
    out.push_back(std::move(d));
  }

  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<io::OutputStream> stream, fs->Create(path));
  Status st = stream->Append(AsBytes(content));
  if (st.ok()) st = stream->Close();
  if (!st.ok()) {
    stream->Abort();
    return st.WithContextF("writing deletion vector file {}", path);
  }
  return out;
}

std::vector<std::vector<size_t>> PackDeletionVectors(const std::vector<int64_t>& sizes,
                                                     int64_t target_bytes) {
  std::vector<std::vector<size_t>> files;
  int64_t current = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t framed = sizes[i] + kFramingBytes;
    if (files.empty() || (current > 0 && current + framed > target_bytes)) {
      files.emplace_back();
      current = 0;
    }
    files.back().push_back(i);
    current += framed;
  }
  return files;
}

}  // namespace lithify::delta
