// libFuzzer target: Iceberg table metadata JSON (schemas, specs, sort orders, snapshots,
// refs, logs) and, for documents that parse, snapshot selection and the name-mapping
// property. Seeds: the corpus' *.metadata.json files.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lithify/iceberg/metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lithify::iceberg;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = ParseTableMetadata(text, "fuzz.metadata.json");
  if (m.ok()) {
    (void)m->current_schema();
    (void)SelectSnapshot(*m, SnapshotSelector::Current());
    (void)SelectSnapshot(*m, SnapshotSelector::Ref("main"));
    (void)SelectSnapshot(*m, SnapshotSelector::AsOf(1700000000000));
    if (auto it = m->properties.find("schema.name-mapping.default"); it != m->properties.end()) {
      (void)NameMapping::Parse(it->second);
    }
  }
  return 0;
}
