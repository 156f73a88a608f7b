#include "lithify/iceberg/deletes.h"

#include <zlib.h>

#include <cstring>

#include "lithify/base/macros.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/table/roaring_bitmap_array.h"

namespace lithify::iceberg {

namespace {

constexpr int32_t kFilePathId = 2147483546;
constexpr int32_t kPosId = 2147483545;

uint32_t LoadBe32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}

int FindLeaf(const parquet::Schema& s, int32_t id, const std::string& name) {
  for (int l = 0; l < s.num_leaves(); ++l) {
    const parquet::ColumnDescriptor& d = s.leaf(l);
    if (d.element->field_id == id) return l;
  }
  for (int l = 0; l < s.num_leaves(); ++l) {
    if (s.leaf(l).dotted_path == name) return l;
  }
  return -1;
}

Status FromPositionFile(const IcebergTable& table, const PlannedFile& file, const DeleteFile& d,
                        std::vector<uint64_t>* out) {
  LITHIFY_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(table.fs(), d.file.path));
  const parquet::Schema& s = reader->schema();
  const int path_leaf = FindLeaf(s, kFilePathId, "file_path");
  const int pos_leaf = FindLeaf(s, kPosId, "pos");
  if (path_leaf < 0 || pos_leaf < 0 || s.leaf(path_leaf).physical_type != parquet::PhysicalType::kByteArray ||
      s.leaf(pos_leaf).physical_type != parquet::PhysicalType::kInt64 || s.leaf(path_leaf).max_rep > 0 ||
      s.leaf(pos_leaf).max_rep > 0) {
    return Status::Corruption("{}: position delete file without string file_path and long pos columns", d.file.path);
  }
  // A delete names its data file as some writer spelled it (hdfs://host/x for a file the
  // manifest records as /x): equal when recorded equal, or equal once both are mapped.
  const std::string& target = file.file.recorded_path;
  const LocationMap& map = table.locations();
  auto same_file = [&](std::string_view p) { return p == target || map.Apply(p) == file.file.path; };
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    LITHIFY_ASSIGN_OR_RETURN(auto stream, reader->OpenRowGroup(rg, {path_leaf, pos_leaf}));
    parquet::RowBatch b;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, stream->Next(&b));
      if (!more) break;
      const parquet::ColumnData& pc = b.columns[0];
      const parquet::ColumnData& oc = b.columns[1];
      if (pc.values.count != b.num_rows || oc.values.count != b.num_rows) {
        return Status::Corruption("{}: position delete rows with null file_path or pos", d.file.path);
      }
      for (int64_t r = 0; r < b.num_rows; ++r) {
        if (!same_file(pc.values.binary(r))) continue;
        const int64_t pos = oc.values.value<int64_t>(r);
        if (pos < 0) return Status::Corruption("{}: negative position {}", d.file.path, pos);
        out->push_back(static_cast<uint64_t>(pos));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<uint64_t>> ParseDeletionVectorBlob(ByteView blob, const std::string& what) {
  if (blob.size() < 12) return Status::Corruption("{}: deletion vector blob of {} bytes", what, blob.size());
  const uint32_t len = LoadBe32(blob.data());
  if (len != blob.size() - 8) {
    return Status::Corruption("{}: deletion vector length {} does not match its blob of {} bytes", what, len,
                              blob.size());
  }
  static const uint8_t kMagic[4] = {0xD1, 0xD3, 0x39, 0x64};
  if (std::memcmp(blob.data() + 4, kMagic, 4) != 0) return Status::Corruption("{}: deletion vector magic mismatch", what);
  ByteView body = blob.subspan(4, len);
  const uint32_t want = LoadBe32(blob.data() + 4 + len);
  const uint32_t got = static_cast<uint32_t>(crc32(0, body.data(), static_cast<uInt>(body.size())));
  if (got != want) return Status::Corruption("{}: deletion vector CRC mismatch", what);
  Result<table::RoaringBitmapArray> bm = table::RoaringBitmapArray::Deserialize(body);
  if (!bm.ok()) return bm.status().WithContext(what);
  return bm->ToVector();
}

Status LoadPositionDeletes(const IcebergTable& table, const PlannedFile& file, const DeleteFile& d,
                           std::vector<uint64_t>* out) {
  if (d.kind == DeleteFile::Kind::kPositionFile) return FromPositionFile(table, file, d, out);
  const std::string what = fmt::format("{} at {}", d.file.path, *d.file.content_offset);
  const int64_t off = *d.file.content_offset;
  const int64_t size = *d.file.content_size_in_bytes;
  LITHIFY_ASSIGN_OR_RETURN(auto f, table.fs()->OpenForRead(d.file.path));
  if (off < 0 || size < 0 || static_cast<uint64_t>(off) + static_cast<uint64_t>(size) > f->size() ||
      size > (int64_t{1} << 31)) {
    return Status::Corruption("{}: deletion vector of {} bytes does not fit the file of {} bytes", what, size,
                              f->size());
  }
  LITHIFY_ASSIGN_OR_RETURN(Buffer blob, f->Read(static_cast<uint64_t>(off), static_cast<size_t>(size)));
  LITHIFY_ASSIGN_OR_RETURN(std::vector<uint64_t> rows, ParseDeletionVectorBlob(blob.view(), what));
  if (static_cast<int64_t>(rows.size()) != d.file.record_count) {
    return Status::Corruption("{}: deletion vector holds {} rows, its manifest entry says {}", what, rows.size(),
                              d.file.record_count);
  }
  out->insert(out->end(), rows.begin(), rows.end());
  return Status::OK();
}

}  // namespace lithify::iceberg
