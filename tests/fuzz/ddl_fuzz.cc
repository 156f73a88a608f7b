// libFuzzer target: schema text, both ways a user or a table gives it.
//  1. ParseSchemaDdl (the --schema DDL of `create`): what parses must serialize
//     (SchemaToJson) to a schema string that ParseSchema reads back to the same schema,
//     so the two nesting limits (DDL and schema JSON, base/nesting.h) agree.
//  2. ParseSchema (a metaData.schemaString): what parses must round-trip the same way,
//     and its column mapping mode and leaf columns must resolve without crashing.
// Seeds: tests/fuzz/seeds/ddl (DDL and schema strings mixed; each input is tried both
// ways). Any status is fine; a crash, sanitizer report or broken invariant is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lithify/delta/ddl.h"
#include "lithify/delta/schema.h"

namespace {

using namespace lithify::delta;

void Check(bool ok) {
  if (!ok) std::abort();
}

void RoundTrip(const StructType& s) {
  const std::string json = SchemaToJson(s);
  lithify::Result<StructType> back = ParseSchema(json);
  Check(back.ok());
  Check(SameType(*back, s));
  Check(SchemaToJson(*back) == json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (lithify::Result<StructType> ddl = ParseSchemaDdl(text); ddl.ok()) RoundTrip(*ddl);
  if (lithify::Result<StructType> schema = ParseSchema(text); schema.ok()) {
    RoundTrip(*schema);
    for (const StructField& f : schema->fields) {
      (void)ResolvePhysicalColumn(*schema, {f.name}, ColumnMappingMode::kNone);
      (void)ResolvePhysicalColumn(*schema, {f.name}, ColumnMappingMode::kName);
    }
  }
  return 0;
}
