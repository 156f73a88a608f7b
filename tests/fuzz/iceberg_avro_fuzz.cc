// libFuzzer target: the Iceberg Avro container reader (header, schema, codecs, blocks,
// datums) and, on whatever decodes, the manifest-entry views the planner takes (field
// lookups by id) and the deletion-vector blob parser. Seeds: the corpus' manifest lists
// and manifests (*.avro). Any input must end in OK or an error, never a crash, leak or
// unbounded allocation.
#include <cstddef>
#include <cstdint>

#include "lithify/base/buffer.h"
#include "lithify/iceberg/avro.h"
#include "lithify/iceberg/deletes.h"
#include "lithify/io/filesystem.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lithify;
  auto file = io::NewBufferFile("fuzz.avro", Buffer::CopyOf(ByteView(data, size)));
  auto reader = iceberg::avro::ContainerReader::Open(std::move(file));
  if (reader.ok()) {
    iceberg::avro::Value v;
    for (int i = 0; i < 10000; ++i) {
      auto more = (*reader)->Next(&v);
      if (!more.ok() || !*more) break;
      const auto& s = (*reader)->schema();
      if (const auto* f = v.Field(s, 2, "data_file")) (void)f->Field(s, 100, "file_path");
    }
  }
  (void)iceberg::ParseDeletionVectorBlob(ByteView(data, size), "fuzz");
  return 0;
}
