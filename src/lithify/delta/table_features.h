// Delta table features (PROTOCOL.md "Table Features"): every feature lithify knows named
// once, with what the protocol says of it and what lithify does with it, so that
// supporting a feature, or changing what an operation may do under one, is one row here.
// CREATE/ALTER (ddl.h) builds protocols from it, the snapshot's protocol gate
// (CheckReadSupported, WriteBlockReason in snapshot.h) and the per-operation gate
// (write_gate.h) answer from it.
//
// Contract, per TableFeature:
//  - `name`: the Delta name (PROTOCOL.md "Valid Feature Names in Table Features"),
//    compared exactly: protocols list names case-sensitively. A name not in the registry
//    is unknown: lithify neither reads a table needing it as a reader feature nor
//    writes a table listing it.
//  - `kind`: a kReaderWriter feature is listed in both readerFeatures and writerFeatures
//    of a table-features protocol (reader 3, writer 7), a kWriterOnly one in
//    writerFeatures only; CREATE/ALTER put only kReaderWriter ones in readerFeatures,
//    and need reader version 3 only when there is one.
//  - `legacy_reader`, `legacy_writer`: the legacy protocol (writer < 7) that implies the
//    feature -- writer version legacy_writer and above, with reader version at least
//    legacy_reader (1: asks nothing of readers; 2: column mapping). 0 for both when no
//    legacy version implies it: such a feature forces a table-features protocol.
//  - `readable`: lithify reads a table listing the feature in readerFeatures. Writer-only
//    features lithify knows are readable too: listing one there is a writer's mistake
//    that imposes nothing on readers. (writerFeatures are not checked for reading.)
//  - `writable`: lithify's writes (appends, deletes, rewrites, checkpoints, VACUUM, DDL)
//    keep the feature's rules or are unaffected by them, so a table listing it in either
//    list may be written. Implies `readable`.
//  - `settable`: CREATE/ALTER accept `delta.feature.<name>` for it (names compared ASCII
//    case-insensitively there, as Delta does for properties): features lithify may add
//    to a protocol because its writes keep their rules from then on. Implies `writable`.
//  - `verdicts`: for a feature whose rules constrain data, what each WriteOperation may
//    do when the table *uses* the feature (write_gate.h has the table and the reasons);
//    every verdict kAllowed for the other features.
// The answers are independent facts, kept as lithify's readers gave them before the
// registry: e.g. typeWidening and variantType have their protocol facts (reader+writer)
// for CREATE/ALTER's protocol arithmetic, but lithify neither reads nor writes tables
// needing them; materializePartitionColumns is readable but not writable.
//
// Pure data and pure functions; thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace lithify::delta {

enum class FeatureKind { kWriterOnly, kReaderWriter };

// The kinds of write the per-operation gate distinguishes (write_gate.h).
enum class WriteOperation {
  kAppend,             // new rows (append / insert)
  kDeleteDv,           // delete by deletion vector
  kDeleteCopyOnWrite,  // delete rewriting the surviving rows
  kRewrite,            // OPTIMIZE, REORG PURGE, Z-order, liquid clustering: rows unchanged
  kAlter,              // table properties, clustering columns
  kCheckpoint,
  kVacuum,
};
inline constexpr size_t kWriteOperationCount = static_cast<size_t>(WriteOperation::kVacuum) + 1;

// kAllowed comes first so that a value-initialized verdict row allows everything.
enum class FeatureVerdict { kAllowed, kEnforced, kRefused };

// One verdict per WriteOperation, in its order.
using OperationVerdicts = std::array<FeatureVerdict, kWriteOperationCount>;

struct TableFeature {
  std::string_view name;
  FeatureKind kind;
  int legacy_reader;  // 0 with legacy_writer 0: no legacy protocol implies the feature
  int legacy_writer;
  bool readable;
  bool writable;
  bool settable;
  OperationVerdicts verdicts;

  bool reader_writer() const { return kind == FeatureKind::kReaderWriter; }
  bool has_legacy_protocol() const { return legacy_writer != 0; }
  FeatureVerdict verdict(WriteOperation op) const { return verdicts[static_cast<size_t>(op)]; }
  // True when some operation is enforced or refused under the feature.
  bool constrains_data() const;
};

// Every feature lithify knows: the legacy ones by writer version, then the others.
std::span<const TableFeature> KnownTableFeatures();
// The feature named exactly `name`; nullptr if lithify does not know it.
const TableFeature* FindTableFeature(std::string_view name);
// The settable feature named `name` in any ASCII case (`delta.feature.<name>`); nullptr
// when there is none.
const TableFeature* FindSettableFeature(std::string_view name);
// Known and readable / writable; false for unknown names.
bool IsReadableFeature(std::string_view name);
bool IsWritableFeature(std::string_view name);

}  // namespace lithify::delta
