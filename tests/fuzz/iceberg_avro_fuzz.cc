// libFuzzer target: the Iceberg Avro container reader (header, schema, codecs, blocks,
// datums) and, on whatever decodes, the manifest-entry views the planner takes (field
// lookups by id) and the deletion-vector blob parser. Seeds: the corpus' manifest lists
// and manifests (*.avro). Records are decoded twice, in full and through a projection
// chosen from the input (fields stepped over, id-keyed arrays filtered by key, as planning
// does), and the two must agree on whether the bytes are valid. The input is also read as a
// data manifest by ReadManifest twice, by the direct entry decoder and through the Value
// tree, with every statistic and with a selection: both must fail, or give the same
// entries. Any input must end in OK or an error, never a crash, leak or unbounded
// allocation.
#include <cstddef>
#include <cstdint>

#include "lithify/base/buffer.h"
#include "lithify/iceberg/avro.h"
#include "lithify/iceberg/deletes.h"
#include "lithify/iceberg/manifest.h"
#include "lithify/io/filesystem.h"

namespace {

using namespace lithify;

// The entries of the input read as a data manifest, as text ("!" + the error on failure).
std::string ManifestText(io::FileSystem* fs, const iceberg::StatsSelection& sel, iceberg::ManifestDecoding how) {
  iceberg::TableMetadata m;
  m.format_version = 2;
  m.partition_specs.push_back(iceberg::PartitionSpec{});
  iceberg::Snapshot snap;
  snap.sequence_number = 10;
  iceberg::ManifestFile mf;
  mf.path = mf.recorded_path = "m.avro";
  mf.sequence_number = 5;
  std::string out;
  Status st = iceberg::ReadManifest(fs, m, snap, mf, iceberg::LocationMap(), [&](iceberg::ManifestEntry&& e) {
    const iceberg::DataFile& d = e.file;
    out += std::to_string(e.status) + d.path + "/" + std::to_string(d.record_count) + "/" +
           std::to_string(e.sequence_number) + "/" + std::to_string(d.lower_bounds.size()) + "/" +
           std::to_string(d.null_value_counts.size()) + "/" + std::to_string(d.column_sizes.size()) + "/" +
           std::to_string(d.equality_ids.size()) + ";";
    return Status::OK();
  }, sel, how);
  return st.ok() ? out : "!";
}

void CompareManifestDecoders(const uint8_t* data, size_t size) {
  std::unique_ptr<io::FileSystem> fs = io::NewMemoryFileSystem();
  if (!fs->WriteFile("m.avro", ByteView(data, size)).ok()) return;
  for (const iceberg::StatsSelection& sel : {iceberg::StatsSelection::All(), iceberg::StatsSelection::Columns({1})}) {
    if (ManifestText(fs.get(), sel, iceberg::ManifestDecoding::kDirect) !=
        ManifestText(fs.get(), sel, iceberg::ManifestDecoding::kValueTree)) {
      __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = io::NewBufferFile("fuzz.avro", Buffer::CopyOf(ByteView(data, size)));
  auto reader = iceberg::avro::ContainerReader::Open(std::move(file));
  if (reader.ok()) {
    auto projected = iceberg::avro::ContainerReader::Open(
        io::NewBufferFile("fuzz.avro", Buffer::CopyOf(ByteView(data, size))));
    if (!projected.ok()) __builtin_trap();  // the same header opened once already
    const auto& s = (*reader)->schema();
    // The projection: the input's last byte picks which record fields are stepped over and
    // which arrays keep only key 1.
    const uint8_t pick = size > 0 ? data[size - 1] : 0;
    iceberg::avro::Projection p(s);
    for (size_t n = 0; n < s.size(); ++n) {
      const auto& node = s.node(static_cast<int>(n));
      for (size_t f = 0; f < node.fields.size(); ++f) {
        if ((pick >> ((n + f) % 8)) & 1) p.SkipField(static_cast<int>(n), f);
      }
      if (node.kind == iceberg::avro::Kind::kArray && (pick & 0x80)) p.KeepKeys(static_cast<int>(n), {1});
    }
    (*projected)->SetProjection(p);
    iceberg::avro::Value v, w;
    for (int i = 0; i < 10000; ++i) {
      auto more = (*reader)->Next(&v);
      auto more_p = (*projected)->Next(&w);
      if (more.ok() != more_p.ok() || (more.ok() && *more != *more_p)) __builtin_trap();
      if (!more.ok() || !*more) break;
      if (const auto* f = v.Field(s, 2, "data_file")) (void)f->Field(s, 100, "file_path");
      if (const auto* f = w.Field(s, 2, "data_file")) (void)f->Field(s, 100, "file_path");
    }
  }
  CompareManifestDecoders(data, size);
  (void)iceberg::ParseDeletionVectorBlob(ByteView(data, size), "fuzz");
  return 0;
}
