// Classic Parquet checkpoint writing (see checkpoint_writer.h).
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/io/uri.h"

#include <array>
#include <cctype>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/delta/action_fields.h"
#include "lithify/delta/log_segment.h"
#include "lithify/delta/maintenance_policy.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"

namespace lithify::delta {

namespace {

using parquet::FieldSpec;
using parquet::Value;

// ---- interval parsing --------------------------------------------------------------

std::vector<std::string_view> SplitWords(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

// Microseconds per unit; 0 for a unit Delta refuses (month-based); nullopt if unknown.
std::optional<int64_t> UnitMicros(std::string unit) {
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  if (unit == "week") return int64_t{7} * 24 * 3600 * 1000000;
  if (unit == "day") return int64_t{24} * 3600 * 1000000;
  if (unit == "hour") return int64_t{3600} * 1000000;
  if (unit == "minute") return int64_t{60} * 1000000;
  if (unit == "second") return int64_t{1000000};
  if (unit == "millisecond") return int64_t{1000};
  if (unit == "microsecond") return int64_t{1};
  if (unit == "month" || unit == "year") return int64_t{0};
  return std::nullopt;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[i] - '0', &v)) return std::nullopt;
  }
  return neg ? -v : v;
}

// ---- path encoding -----------------------------------------------------------------

// java.net.URI's legal path characters in ASCII: unreserved, punct, '/' and '@'.
constexpr std::array<bool, 128> MakeUriPathTable() {
  std::array<bool, 128> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = true;
  for (char c : std::string_view("-_.!~*'(),;:$&+=/@")) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr std::array<bool, 128> kUriPathAscii = MakeUriPathTable();

bool IsUriPathAscii(unsigned char c) { return c < 128 && kUriPathAscii[c]; }

// Length of the valid UTF-8 sequence at s[i] and its code point; 0 when invalid.
size_t Utf8Sequence(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  // Lead bytes F5-FF (and C0, C1, 80-BF) start no sequence: they are escaped alone.
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  uint32_t v = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  if ((n == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) || (n == 4 && (v < 0x10000 || v > 0x10FFFF))) {
    return 0;
  }
  *cp = v;
  return n;
}

// java.lang.Character.isSpaceChar or isISOControl: java.net.URI quotes these.
bool JavaQuotesCodePoint(uint32_t cp) {
  if (cp >= 0x80 && cp <= 0x9F) return true;
  return cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

void AppendEscaped(std::string* out, unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('%');
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 15]);
}

// ---- the checkpoint schema and rows ------------------------------------------------

FieldSpec StringMapSpec(std::string name) {
  return FieldSpec::Map(std::move(name), FieldSpec::String("key", false), FieldSpec::String("value"));
}

// The checkpoint struct of an action (or of a struct inside one) from its field table
// (action_fields.h), in the table's order, without the fields checkpoints omit.
FieldSpec ActionSpec(std::string name, std::span<const action_fields::Field> fields) {
  using action_fields::Kind;
  std::vector<FieldSpec> children;
  for (const action_fields::Field& f : fields) {
    if (!f.in_checkpoint) continue;
    std::string n(f.name);
    switch (f.kind) {
      case Kind::kString: children.push_back(FieldSpec::String(n, f.checkpoint_nullable)); break;
      case Kind::kInt32: children.push_back(FieldSpec::Int(n, f.checkpoint_nullable)); break;
      case Kind::kInt64: children.push_back(FieldSpec::Long(n, f.checkpoint_nullable)); break;
      case Kind::kBool: children.push_back(FieldSpec::Boolean(n, f.checkpoint_nullable)); break;
      case Kind::kPartitionMap:
      case Kind::kTagMap: children.push_back(StringMapSpec(n)); break;
      case Kind::kDeletionVector: children.push_back(ActionSpec(n, action_fields::kDeletionVectorFields)); break;
      case Kind::kStringList: children.push_back(FieldSpec::List(n, FieldSpec::String("element"))); break;
      case Kind::kFormat: children.push_back(ActionSpec(n, action_fields::kFormatFields)); break;
    }
  }
  return FieldSpec::Struct(std::move(name), std::move(children));
}

// A struct value of `fields` from values indexed by field (the table's enum), without the
// fields checkpoints omit. Compacted in place: one vector per row (every add of a
// checkpoint passes here).
Value ActionValue(std::span<const action_fields::Field> fields, std::vector<Value> values) {
  size_t kept = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i].in_checkpoint) continue;
    if (kept != i) values[kept] = std::move(values[i]);
    ++kept;
  }
  values.resize(kept);
  return Value::Struct(std::move(values));
}

Value OptString(const std::optional<std::string>& s) { return s ? Value::String(*s) : Value::Null(); }
Value OptLong(const std::optional<int64_t>& v) { return v ? Value::Int(*v) : Value::Null(); }

Value PartitionMap(const std::map<std::string, std::optional<std::string>>& m) {
  std::vector<std::pair<Value, Value>> entries;
  entries.reserve(m.size());
  for (const auto& [k, v] : m) entries.emplace_back(Value::String(k), OptString(v));
  return Value::Map(std::move(entries));
}

// `null_if_empty`: Spark writes absent tags as null.
Value StringMap(const std::map<std::string, std::string>& m, bool null_if_empty) {
  if (m.empty() && null_if_empty) return Value::Null();
  std::vector<std::pair<Value, Value>> entries;
  entries.reserve(m.size());
  for (const auto& [k, v] : m) entries.emplace_back(Value::String(k), Value::String(v));
  return Value::Map(std::move(entries));
}

Value StringList(const std::vector<std::string>& items) {
  std::vector<Value> out;
  out.reserve(items.size());
  for (const auto& s : items) out.push_back(Value::String(s));
  return Value::List(std::move(out));
}

// maxRowIndex is transient and never serialized (Delta asserts it is stripped).
Value DvValue(const std::optional<DeletionVectorDescriptor>& dv) {
  using namespace action_fields;  // NOLINT
  if (!dv) return Value::Null();
  std::vector<Value> v(kNumDvFields);
  v[kDvStorageType] = Value::String(std::string(1, dv->storage_type));
  v[kDvPathOrInlineDv] = Value::String(dv->path_or_inline_dv);
  v[kDvOffset] = dv->offset ? Value::Int(*dv->offset) : Value::Null();
  v[kDvSizeInBytes] = Value::Int(dv->size_in_bytes);
  v[kDvCardinality] = Value::Int(dv->cardinality);
  v[kDvMaxRowIndex] = Value::Null();
  return ActionValue(kDeletionVectorFields, std::move(v));
}

// Top-level column positions, in CheckpointSchemaFields order.
enum Column { kTxn, kAdd, kRemove, kMetaData, kProtocol, kDomainMetadata, kNumColumns };

std::vector<Value> Row(Column column, Value action) {
  std::vector<Value> row(kNumColumns);
  row[column] = std::move(action);
  return row;
}

Value ProtocolValue(const Protocol& p) {
  using namespace action_fields;  // NOLINT
  std::vector<Value> v(kNumProtocolFields);
  v[kProtocolMinReaderVersion] = Value::Int(p.min_reader_version);
  v[kProtocolMinWriterVersion] = Value::Int(p.min_writer_version);
  v[kProtocolReaderFeatures] = p.reader_features ? StringList(*p.reader_features) : Value::Null();
  v[kProtocolWriterFeatures] = p.writer_features ? StringList(*p.writer_features) : Value::Null();
  return ActionValue(kProtocolFields, std::move(v));
}

Value MetadataValue(const Metadata& m) {
  using namespace action_fields;  // NOLINT
  std::vector<Value> format(kNumFormatFields);
  format[kFormatProvider] = Value::String(m.format.provider);
  format[kFormatOptions] = StringMap(m.format.options, false);
  std::vector<Value> v(kNumMetadataFields);
  v[kMetadataId] = Value::String(m.id);
  v[kMetadataName] = OptString(m.name);
  v[kMetadataDescription] = OptString(m.description);
  v[kMetadataFormat] = ActionValue(kFormatFields, std::move(format));
  v[kMetadataSchemaString] = Value::String(m.schema_string);
  v[kMetadataPartitionColumns] = StringList(m.partition_columns);
  v[kMetadataConfiguration] = StringMap(m.configuration, false);
  v[kMetadataCreatedTime] = OptLong(m.created_time);
  return ActionValue(kMetadataFields, std::move(v));
}

Value TxnValue(const Txn& t) {
  using namespace action_fields;  // NOLINT
  std::vector<Value> v(kNumTxnFields);
  v[kTxnAppId] = Value::String(t.app_id);
  v[kTxnVersion] = Value::Int(t.version);
  v[kTxnLastUpdated] = OptLong(t.last_updated);
  return ActionValue(kTxnFields, std::move(v));
}

Value DomainValue(const DomainMetadata& d) {
  using namespace action_fields;  // NOLINT
  std::vector<Value> v(kNumDomainFields);
  v[kDomainDomain] = Value::String(d.domain);
  v[kDomainConfiguration] = Value::String(d.configuration);
  v[kDomainRemoved] = Value::Bool(d.removed);
  return ActionValue(kDomainMetadataFields, std::move(v));
}

Value AddValue(const table::FileEntry& f) {
  std::optional<DeletionVectorDescriptor> dv;
  if (f.deletion_vector) dv = DeletionVectorDescriptor::FromRef(*f.deletion_vector);
  const bool has_stats = f.stats && !f.stats->raw.empty();
  using namespace action_fields;  // NOLINT
  std::vector<Value> v(kNumAddFields);
  v[kAddPath] = Value::String(EncodeActionPath(f.path));
  v[kAddPartitionValues] = PartitionMap(f.partition_values);
  v[kAddSize] = Value::Int(f.size);
  v[kAddModificationTime] = Value::Int(f.modification_time_ms);
  v[kAddDataChange] = Value::Bool(false);  // a checkpoint changes no data
  v[kAddStats] = has_stats ? Value::String(f.stats->raw) : Value::Null();
  v[kAddTags] = StringMap(f.tags, true);
  v[kAddDeletionVector] = DvValue(dv);
  v[kAddBaseRowId] = OptLong(f.base_row_id);
  v[kAddDefaultRowCommitVersion] = OptLong(f.default_row_commit_version);
  v[kAddClusteringProvider] = OptString(f.clustering_provider);
  return ActionValue(kAddFields, std::move(v));
}

// Remove rows omit stats (PROTOCOL.md "Checkpoint Schema"); the path stays as logged.
Value RemoveValue(const RemoveFile& r) {
  using namespace action_fields;  // NOLINT
  std::vector<Value> v(kNumRemoveFields);
  v[kRemovePath] = Value::String(r.path);
  v[kRemoveDeletionTimestamp] = OptLong(r.deletion_timestamp);
  v[kRemoveDataChange] = Value::Bool(r.data_change);
  v[kRemoveExtendedFileMetadata] = r.extended_file_metadata ? Value::Bool(*r.extended_file_metadata) : Value::Null();
  v[kRemovePartitionValues] = r.partition_values ? PartitionMap(*r.partition_values) : Value::Null();
  v[kRemoveSize] = OptLong(r.size);
  v[kRemoveStats] = Value::Null();  // not in checkpoints
  v[kRemoveTags] = StringMap(r.tags, true);
  v[kRemoveDeletionVector] = DvValue(r.deletion_vector);
  v[kRemoveBaseRowId] = OptLong(r.base_row_id);
  v[kRemoveDefaultRowCommitVersion] = OptLong(r.default_row_commit_version);
  return ActionValue(kRemoveFields, std::move(v));
}

// Streams rows into a Parquet file in batches.
class RowSink {
 public:
  RowSink(const parquet::Schema& schema, parquet::FileWriter* writer)
      : builder_(schema), writer_(writer) {}

  Status Append(Column column, Value action) {
    LITHIFY_RETURN_NOT_OK(builder_.Append(Row(column, std::move(action))));
    ++rows_;
    if (builder_.num_rows() >= kCheckpointWriteBatchRows) return Flush();
    return Status::OK();
  }
  Status Flush() {
    if (builder_.num_rows() == 0) return Status::OK();
    parquet::RowBatch batch = builder_.Finish();
    return writer_->WriteBatch(batch);
  }
  int64_t rows() const { return rows_; }

 private:
  parquet::RowBatchBuilder builder_;
  parquet::FileWriter* writer_;
  int64_t rows_ = 0;
};

struct Counts {
  int64_t actions = 0;
  int64_t adds = 0;
};

Status WriteRows(const Snapshot& snap, int64_t min_deletion_timestamp, const parquet::Schema& schema,
                 parquet::FileWriter* writer, Counts* counts) {
  RowSink sink(schema, writer);
  LITHIFY_RETURN_NOT_OK(sink.Append(kProtocol, ProtocolValue(snap.protocol())));
  LITHIFY_RETURN_NOT_OK(sink.Append(kMetaData, MetadataValue(snap.metadata())));
  for (const auto& [app, txn] : snap.txns()) LITHIFY_RETURN_NOT_OK(sink.Append(kTxn, TxnValue(txn)));
  for (const auto& [domain, d] : snap.domain_metadata()) {
    if (!d.removed) LITHIFY_RETURN_NOT_OK(sink.Append(kDomainMetadata, DomainValue(d)));
  }
  for (const table::FileEntry& f : snap.files()) {
    LITHIFY_RETURN_NOT_OK_CTX(sink.Append(kAdd, AddValue(f)), "add '{}'", f.path);
    ++counts->adds;
  }
  for (const Tombstone& t : snap.tombstones()) {
    if (t.remove.deletion_timestamp.value_or(0) <= min_deletion_timestamp) continue;  // expired
    LITHIFY_RETURN_NOT_OK_CTX(sink.Append(kRemove, RemoveValue(t.remove)), "remove '{}'", t.path);
  }
  LITHIFY_RETURN_NOT_OK(sink.Flush());
  counts->actions = sink.rows();
  return Status::OK();
}

Result<int64_t> WriteCheckpointFile(const Snapshot& snap, int64_t min_deletion_timestamp,
                                    const std::string& path, Counts* counts) {
  LITHIFY_ASSIGN_OR_RETURN(parquet::Schema schema, parquet::BuildSchema(CheckpointSchemaFields(), "spark_schema"));
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<io::OutputStream> out, snap.fs()->Create(path));
  parquet::WriterOptions options;
  options.codec = parquet::CompressionCodec::kSnappy;  // what Spark writes checkpoints with
  options.row_group_size_bytes = int64_t{64} << 20;
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileWriter> writer,
                           parquet::FileWriter::Open(std::move(out), std::move(schema), options));
  Status st = WriteRows(snap, min_deletion_timestamp, writer->schema(), writer.get(), counts);
  if (!st.ok()) {
    writer->Abandon();
    return st;
  }
  LITHIFY_RETURN_NOT_OK(writer->Close().status());
  return writer->EstimatedFileSize();
}

}  // namespace

Result<int64_t> ParseIntervalMs(std::string_view text) {
  std::vector<std::string_view> words = SplitWords(text);
  size_t i = 0;
  if (!words.empty() && AsciiLower(words[0]) == "interval") i = 1;
  if (i >= words.size() || (words.size() - i) % 2 != 0) {
    return Status::InvalidArgument("'{}' is not an interval such as 'interval 1 week'", text);
  }
  int64_t micros = 0;
  for (; i < words.size(); i += 2) {
    std::optional<int64_t> n = ParseInt(words[i]);
    std::optional<int64_t> unit = UnitMicros(AsciiLower(words[i + 1]));
    if (!n) return Status::InvalidArgument("interval '{}': '{}' is not an integer", text, words[i]);
    if (!unit) return Status::InvalidArgument("interval '{}': unknown unit '{}'", text, words[i + 1]);
    if (*unit == 0) {
      return Status::InvalidArgument("interval '{}': months and years are not allowed (Delta needs a fixed duration)", text);
    }
    int64_t part = 0;
    if (__builtin_mul_overflow(*n, *unit, &part) || __builtin_add_overflow(micros, part, &micros)) {
      return Status::InvalidArgument("interval '{}' is out of range", text);
    }
  }
  if (micros < 0) return Status::InvalidArgument("interval '{}' is negative", text);
  return micros / 1000;
}

Result<int64_t> TombstoneRetentionMs(const Metadata& metadata) {
  static constexpr const char* kKey = kDeletedFileRetentionProperty;
  auto it = metadata.configuration.find(kKey);
  if (it == metadata.configuration.end()) return kDefaultDeletedFileRetentionMs;
  auto ms = ParseIntervalMs(it->second);
  if (!ms.ok()) return ms.status().WithContextF("table property {}", kKey);
  return ms;
}

std::string EncodeActionPath(std::string_view p) {
  std::string out;
  out.reserve(p.size());
  bool first_segment = true;
  if (io::IsAbsoluteLocation(p) && p.front() != '/') {
    // A key outside the table root ("s3://bucket/key"): "scheme://authority" is kept as
    // it is, the path after it is quoted like any other.
    const size_t authority = p.find("://") + 3;
    const size_t slash = p.find('/', authority);
    out.append(p.substr(0, slash));
    if (slash == std::string_view::npos) return out;
    p.remove_prefix(slash);
    first_segment = false;
  }
  for (size_t i = 0; i < p.size();) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (c < 0x80) {
      if (c == '/') first_segment = false;
      if (IsUriPathAscii(c) && !(c == ':' && first_segment)) {
        out.push_back(static_cast<char>(c));
      } else {
        AppendEscaped(&out, c);
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    size_t n = Utf8Sequence(p, i, &cp);
    if (n == 0) {
      AppendEscaped(&out, c);
      ++i;
      continue;
    }
    for (size_t k = 0; k < n; ++k) {
      if (JavaQuotesCodePoint(cp)) {
        AppendEscaped(&out, static_cast<unsigned char>(p[i + k]));
      } else {
        out.push_back(p[i + k]);
      }
    }
    i += n;
  }
  return out;
}

// In Column order.
std::vector<FieldSpec> CheckpointSchemaFields() {
  using namespace action_fields;  // NOLINT
  std::vector<FieldSpec> f;
  f.push_back(ActionSpec(std::string(kTxnAction), kTxnFields));
  f.push_back(ActionSpec(std::string(kAddAction), kAddFields));
  f.push_back(ActionSpec(std::string(kRemoveAction), kRemoveFields));
  f.push_back(ActionSpec(std::string(kMetadataAction), kMetadataFields));
  f.push_back(ActionSpec(std::string(kProtocolAction), kProtocolFields));
  f.push_back(ActionSpec(std::string(kDomainMetadataAction), kDomainMetadataFields));
  return f;
}

Result<CheckpointWriteResult> WriteCheckpoint(const Snapshot& snapshot, int64_t now_ms) {
  if (snapshot.version() < 0 || snapshot.fs() == nullptr) {
    return Status::InvalidArgument("WriteCheckpoint: the snapshot is not loaded");
  }
  LITHIFY_ASSIGN_OR_RETURN(int64_t retention_ms, TombstoneRetentionMs(snapshot.metadata()));
  int64_t min_deletion_timestamp = 0;
  if (__builtin_sub_overflow(now_ms, retention_ms, &min_deletion_timestamp)) {
    min_deletion_timestamp = std::numeric_limits<int64_t>::min();
  }
  const std::string log_dir = io::JoinPath(snapshot.table_root(), "_delta_log");
  CheckpointWriteResult result;
  result.version = snapshot.version();
  result.path = io::JoinPath(log_dir, ClassicCheckpointFileName(snapshot.version()));
  Counts counts;
  LITHIFY_ASSIGN_OR_RETURN_CTX(result.size_bytes,
                               WriteCheckpointFile(snapshot, min_deletion_timestamp, result.path, &counts),
                               "{}", result.path);
  result.num_actions = counts.actions;
  result.num_add_files = counts.adds;
  const std::string hint =
      fmt::format(R"({{"version":{},"size":{},"sizeInBytes":{},"numOfAddFiles":{}}})", result.version,
                  result.num_actions, result.size_bytes, result.num_add_files);
  // Never move the hint backwards: a checkpoint of an older version (a slow writer
  // racing a newer one) leaves a newer hint in place.
  LITHIFY_ASSIGN_OR_RETURN(auto existing, ReadLastCheckpoint(snapshot.fs(), log_dir));
  if (existing && existing->version > result.version) return result;
  const std::string hint_path = io::JoinPath(log_dir, "_last_checkpoint");
  LITHIFY_RETURN_NOT_OK_CTX(snapshot.fs()->WriteFile(hint_path, AsBytes(hint)), "{}", hint_path);
  return result;
}

}  // namespace lithify::delta
