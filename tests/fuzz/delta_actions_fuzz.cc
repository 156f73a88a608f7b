// libFuzzer target: Delta commit files (`_delta_log/<v>.json`) and everything parsed out
// of their lines.
//
// Seeds are real commit files (scripts/fuzz.sh collects them from the corpus). Each
// input is read four ways:
//  1. ParseCommitFile over the whole input, and ParseActionLine over every line: the
//     whole-file parse succeeds exactly when every line does, and each parsed action
//     serializes (ActionToJson) to a line that parses back to an equal action.
//  2. The parsers that take strings out of actions: ParseStats (add/remove stats and
//     checkpoint-style stats_parsed), ParseSchema + ParseColumnMappingMode +
//     ResolvePhysicalColumn (metaData), ParsePartitionValue (partition values typed by
//     the schema), RelativizeDataPath (file paths), the DV descriptor checks and, for
//     inline DVs, the Z85 codec and the bitmap decoder.
//  3. Snapshot::Load of an in-memory table whose only commit is the input, and of one
//     whose commit 0 is a valid protocol+metaData and commit 1 is the input: replay,
//     reconciliation, the protocol gate and the schema checks see hostile actions.
//  4. Whatever loads: NumLiveRecords and every file's deletion vector.
// Any status is fine; a crash, sanitizer report or broken invariant (abort) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "lithify/base/buffer.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/schema.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/stats.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/uri.h"

namespace {

namespace delta = lithify::delta;
using lithify::AsBytes;

constexpr std::string_view kRoot = "/t";
constexpr std::string_view kCommitName = "_delta_log/00000000000000000001.json";

// A minimal valid commit 0: the fuzzed commit 1 is replayed on top of it, so actions
// that are not protocol/metaData still reach the snapshot.
constexpr std::string_view kBaseCommit =
    R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors","columnMapping"],"writerFeatures":["deletionVectors","columnMapping"]}})"
    "\n"
    R"({"metaData":{"id":"fuzz","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"p\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":["p"],"configuration":{},"createdTime":1}})"
    "\n";

// The first field of the variant's struct that names a path, for RelativizeDataPath.
const std::string* ActionPath(const delta::Action& a) {
  if (auto* add = std::get_if<delta::AddFile>(&a)) return &add->path;
  if (auto* rm = std::get_if<delta::RemoveFile>(&a)) return &rm->path;
  if (auto* cdc = std::get_if<delta::AddCdcFile>(&a)) return &cdc->path;
  if (auto* sc = std::get_if<delta::Sidecar>(&a)) return &sc->path;
  return nullptr;
}

void FuzzDvDescriptor(const delta::DeletionVectorDescriptor& dv) {
  (void)dv.UniqueId();
  auto round = delta::DeletionVectorDescriptor::FromRef(dv.ToRef());
  if (round.UniqueId() != dv.UniqueId()) std::abort();  // the planner's handle lost identity
  if (!delta::ValidateDescriptor(dv).ok()) return;
  if (dv.storage_type == 'u') (void)delta::RelativeDvFilePath(dv);
  if (dv.storage_type == 'i') {
    // Inline DVs need no storage; a null FileSystem is never touched on this path.
    auto v = delta::LoadDeletionVector(nullptr, kRoot, dv);
    if (v.ok() && v->cardinality() != static_cast<uint64_t>(dv.cardinality)) std::abort();
  }
}

void FuzzSchema(const std::string& schema_string,
                const std::map<std::string, std::string>& configuration) {
  auto schema = delta::ParseSchema(schema_string);
  if (!schema.ok()) return;
  (void)schema->ToString();
  auto mode = delta::ParseColumnMappingMode(configuration);
  for (const auto& f : schema->fields) {
    (void)f.physical_name();
    (void)f.field_id();
    (void)f.type.ToString();
    for (auto m : {delta::ColumnMappingMode::kNone, delta::ColumnMappingMode::kName,
                   delta::ColumnMappingMode::kId}) {
      (void)delta::ResolvePhysicalColumn(*schema, {f.name}, m);
    }
    if (mode.ok()) (void)delta::ResolvePhysicalColumn(*schema, {f.name}, *mode);
    // Every partition-value spelling lithify knows, typed by this field.
    (void)delta::ParsePartitionValue(f.type, std::nullopt);
    for (const char* text : {"", "1", "-1", "2024-02-29", "2024-02-29 12:00:00.123456", "true", "1.5"}) {
      (void)delta::ParsePartitionValue(f.type, std::string(text));
    }
  }
}

void FuzzAction(const delta::Action& a) {
  // Serialize -> parse must give the same action back (the committer relies on it).
  std::string line = delta::ActionToJson(a);
  auto again = delta::ParseActionLine(line);
  if (!again.ok() || !again->has_value() || !(**again == a)) std::abort();

  if (const std::string* p = ActionPath(a)) {
    (void)delta::DecodeActionPath(*p);
    auto rel = delta::RelativizeDataPath(kRoot, *p);
    // A relativized path is inside the root: never absolute, never a ".." segment.
    if (rel.ok() && (rel->empty() || rel->front() == '/' || *rel == ".." ||
                     rel->rfind("../", 0) == 0 || rel->find("/../") != std::string::npos ||
                     (rel->size() >= 3 && rel->compare(rel->size() - 3, 3, "/..") == 0))) {
      std::abort();
    }
  }
  if (auto* add = std::get_if<delta::AddFile>(&a)) {
    if (add->stats) (void)delta::ParseStats(*add->stats);
    if (add->stats_parsed) (void)delta::ParseStats(*add->stats_parsed);
    if (add->deletion_vector) FuzzDvDescriptor(*add->deletion_vector);
  } else if (auto* rm = std::get_if<delta::RemoveFile>(&a)) {
    if (rm->stats) (void)delta::ParseStats(*rm->stats);
    if (rm->deletion_vector) FuzzDvDescriptor(*rm->deletion_vector);
  } else if (auto* md = std::get_if<delta::Metadata>(&a)) {
    FuzzSchema(md->schema_string, md->configuration);
  } else if (auto* proto = std::get_if<delta::Protocol>(&a)) {
    (void)delta::CheckReadSupported(*proto);
    (void)delta::WriteBlockReason(*proto);
  }
}

void FuzzLines(std::string_view text) {
  auto whole = delta::ParseCommitFile(text, kCommitName);
  bool every_line_ok = true;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    auto one = delta::ParseActionLine(text.substr(pos, end - pos));
    every_line_ok = every_line_ok && one.ok();
    pos = end + 1;
  }
  if (whole.ok() != every_line_ok) std::abort();  // file and line parsers disagree
  if (!whole.ok()) {
    // The contract: errors name the file and the line.
    if (whole.status().message().find(kCommitName) == std::string::npos) std::abort();
    return;
  }
  for (const auto& a : *whole) FuzzAction(a);
}

void FuzzSnapshot(std::string_view text, bool with_base) {
  auto fs = lithify::io::NewMemoryFileSystem();
  const std::string log = std::string(kRoot) + "/_delta_log/";
  if (with_base) {
    if (!fs->WriteFile(log + "00000000000000000000.json", AsBytes(kBaseCommit)).ok()) std::abort();
  }
  const char* name = with_base ? "00000000000000000001.json" : "00000000000000000000.json";
  if (!fs->WriteFile(log + name, AsBytes(text)).ok()) std::abort();
  auto snap = delta::Snapshot::Load(fs.get(), std::string(kRoot));
  if (!snap.ok()) return;
  const delta::Snapshot& s = **snap;
  (void)s.NumLiveRecords();
  (void)s.CanWrite();
  for (const auto& f : s.files()) {
    // Table-relative, or an absolute location a log names outside the root (PROTOCOL.md
    // allows absolute add paths): then it is written back as the location it is and read
    // again as the same key.
    if (f.path.empty()) std::abort();
    if (lithify::io::IsAbsoluteLocation(f.path)) {
      auto again = delta::DataFileKey(s.table_root(), delta::EncodeActionPath(f.path));
      if (!again.ok() || *again != f.path) std::abort();
    } else if (f.path.front() == '/') {
      std::abort();
    }
    (void)f.num_live_records();
    if (f.deletion_vector) (void)delta::LoadDeletionVector(fs.get(), s.table_root(), *f.deletion_vector);
    for (const auto& col : s.partition_columns()) {
      auto field = delta::ResolvePhysicalColumn(s.schema(), {col}, s.column_mapping_mode());
      if (!field.ok() || field->field == nullptr) continue;
      auto it = f.partition_values.find(field->path.empty() ? col : field->path.back());
      if (it != f.partition_values.end()) (void)delta::ParsePartitionValue(field->field->type, it->second);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  FuzzLines(text);
  FuzzSnapshot(text, /*with_base=*/false);
  FuzzSnapshot(text, /*with_base=*/true);
  return 0;
}
