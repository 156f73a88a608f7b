// Checkpoint reading: direct extraction, or canonical JSON rendering (see checkpoint.h).
#include "lithify/delta/checkpoint.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string_view>
#include <thread>

#include "lithify/base/macros.h"
#include "lithify/base/thread_pool.h"
#include "lithify/delta/checkpoint_extract.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rows_json.h"

namespace lithify::delta {

namespace {

// Appendix "Checkpoint Schema": the action columns replay needs.
constexpr std::string_view kActionColumns[] = {"add",  "remove",         "metaData",
                                               "protocol", "txn",        "domainMetadata",
                                               "checkpointMetadata", "sidecar"};

bool IsActionColumn(std::string_view name) {
  for (auto c : kActionColumns) {
    if (c == name) return true;
  }
  return false;
}

// Top-level action fields present in the file and the leaves to read for them
// (everything under each, except add.partitionValues_parsed which replay ignores).
void ProjectActions(const parquet::Schema& schema, std::vector<int>* fields,
                    std::vector<int>* leaves) {
  for (int node : schema.top_level_fields()) {
    if (!IsActionColumn(schema.node(node).name)) continue;
    fields->push_back(node);
    for (int leaf : schema.LeavesUnder(node)) {
      const auto& path = schema.leaf(leaf).path;
      if (path.size() >= 2 && path[0] == "add" && path[1] == "partitionValues_parsed") continue;
      leaves->push_back(leaf);
    }
  }
}

Status ParseLines(std::string_view text, const std::string& path, int64_t first_row,
                  const ActionSink& sink) {
  size_t pos = 0;
  int64_t row = first_row;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    auto action = ParseActionLine(text.substr(pos, end - pos));
    if (!action.ok()) return action.status().WithContextF("{} row {}", path, row);
    if (action->has_value()) LITHIFY_RETURN_NOT_OK(sink(std::move(**action)));
    pos = end + 1;
    ++row;
  }
  return Status::OK();
}

}  // namespace

Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink) {
  return ReadParquetCheckpoint(fs, path, sink, /*read_stats=*/true);
}

Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink,
                             bool read_stats) {
  return ReadParquetCheckpoint(fs, path, sink, read_stats, nullptr);
}

Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink,
                             bool read_stats, const std::function<void(int64_t)>& on_rows) {
  CheckpointReadOptions options;
  options.read_stats = read_stats;
  options.on_rows = on_rows;
  return ReadParquetCheckpoint(fs, path, sink, options);
}

namespace {

// Streams every row group of `reader` in batches of the extractor's leaves.
class BatchSource {
 public:
  BatchSource(parquet::FileReader* reader, const std::vector<int>& leaves, const std::string& path)
      : reader_(reader), leaves_(leaves), path_(path) {}
  // Fills `out` with the next batch; false at the end.
  Result<bool> Next(parquet::RowBatch* out) {
    while (true) {
      if (stream_ == nullptr) {
        if (rg_ >= reader_->num_row_groups()) return false;
        LITHIFY_ASSIGN_OR_RETURN_CTX(stream_, reader_->OpenRowGroup(rg_, leaves_, kCheckpointBatchRows),
                                     "{}: row group {}", path_, rg_);
      }
      LITHIFY_ASSIGN_OR_RETURN(bool more, stream_->Next(out));
      if (more) return true;
      stream_.reset();
      ++rg_;
    }
  }

 private:
  parquet::FileReader* reader_;
  const std::vector<int>& leaves_;
  const std::string& path_;
  int rg_ = 0;
  std::unique_ptr<parquet::RowGroupStream> stream_;
};

// A decoded batch and its add paths classified for extraction (add_path_keys on the
// decoding thread -- a pool thread or the consumer --, add_path_hints on the consuming one).
struct DecodedBatch {
  parquet::RowBatch batch;
  std::vector<std::string_view> paths;  // per row; empty when not computed
  std::vector<uint64_t> keys;
  std::vector<uint32_t> hints;
};

// Two batches in flight: a decoding task on the CPU pool fills one (and runs `prepare`
// on it) while the calling thread consumes the other. The source is sequential, so one
// decode runs at a time: the task decodes while a batch is free, then ends rather than
// block a pool thread, and the consumer queues it again when it frees a batch. When the
// consumer would wait for a decode nobody has started (the pool busy), it decodes
// itself. Batches reach the consumer in stream order, and a decode error reaches it only
// after every batch decoded before it, so the outcome is that of the sequential loop.
class BatchPipeline {
 public:
  BatchPipeline(BatchSource* source, const std::function<void(DecodedBatch*)>& prepare)
      : source_(source), prepare_(prepare) {
    for (auto& b : batches_) free_.push_back(&b);
  }
  ~BatchPipeline() { Stop(); }

  // Calls `consume` for each batch in order; returns its first error, else the decoding
  // error, else OK.
  template <typename F>
  Status Run(F&& consume) {
    Status result;
    std::unique_lock<std::mutex> lock(mu_);
    WakeDecoder();
    while (true) {
      bool gave_the_task_a_chance = false;
      while (ready_.empty() && !done_) {
        if (decoding_ || free_.empty()) {
          cv_.wait(lock);
        } else if (task_queued_ && !gave_the_task_a_chance) {
          // The task is queued and has not started. A free pool thread takes it within
          // microseconds, and decoding here at once would win that race every time (the
          // replay then ran on one core); a busy pool may not take it at all. So wait a
          // moment for it, then decode here.
          gave_the_task_a_chance = true;
          cv_.wait_for(lock, kTaskStartGrace);
        } else {
          DecodeOne(lock);  // rather than wait for a task the pool has not started
        }
      }
      if (ready_.empty()) break;  // done, and every decoded batch consumed
      DecodedBatch* batch = ready_.front();
      ready_.pop_front();
      lock.unlock();
      result = consume(batch);
      lock.lock();
      free_.push_back(batch);
      if (!result.ok()) break;
      WakeDecoder();
    }
    lock.unlock();
    Stop();
    if (!result.ok()) return result;
    return decode_status_;
  }

 private:
  bool CanDecode() const { return !decoding_ && !done_ && !stop_ && !free_.empty(); }

  // Decodes the next batch into a free one (mu_ held on entry and exit, not meanwhile).
  void DecodeOne(std::unique_lock<std::mutex>& lock) {
    decoding_ = true;
    DecodedBatch* batch = free_.back();
    free_.pop_back();
    lock.unlock();
    Result<bool> more = source_->Next(&batch->batch);
    if (more.ok() && *more && prepare_) prepare_(batch);
    lock.lock();
    decoding_ = false;
    if (more.ok() && *more) {
      ready_.push_back(batch);
    } else {
      if (!more.ok()) decode_status_ = more.status();
      free_.push_back(batch);
      done_ = true;
    }
    cv_.notify_all();
  }

  // How long the consumer waits for a queued decoding task to start before decoding
  // itself: far above a pool thread's wake-up, far below a batch's decoding.
  static constexpr std::chrono::milliseconds kTaskStartGrace{2};

  // The pool task.
  void Decode() {
    std::unique_lock<std::mutex> lock(mu_);
    while (CanDecode()) DecodeOne(lock);
    task_queued_ = false;
    cv_.notify_all();
  }

  // Queues the decoding task unless it is queued already or has nothing to do (mu_ held).
  void WakeDecoder() {
    if (task_queued_ || !CanDecode()) return;
    task_queued_ = true;
    decoder_.Run([this] { Decode(); });
  }

  // A task still queued runs here (and finds stop_ set); a running decode finishes.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    (void)decoder_.Wait();
  }

  BatchSource* source_;
  const std::function<void(DecodedBatch*)>& prepare_;
  DecodedBatch batches_[2];
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<DecodedBatch*> free_;
  std::deque<DecodedBatch*> ready_;
  bool decoding_ = false;
  bool task_queued_ = false;
  bool done_ = false;
  bool stop_ = false;
  Status decode_status_;
  TaskGroup decoder_{CpuPool(), 1};  // last: destroyed (and waited for) first
};

int EffectiveThreads(int requested) {
  if (requested > 0) return requested;
  return std::thread::hardware_concurrency() > 1 ? 2 : 1;
}

}  // namespace

Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink,
                             const CheckpointReadOptions& options) {
  LITHIFY_ASSIGN_OR_RETURN(auto file, fs->OpenForRead(path));
  const uint64_t file_size = file->size();
  LITHIFY_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(std::move(file)));
  if (options.on_rows) {
    // The footer's count is only a hint: a hostile footer must not make the caller
    // reserve gigabytes, and no real checkpoint row takes fewer than 8 bytes.
    options.on_rows(std::clamp<int64_t>(reader->metadata().num_rows, 0, static_cast<int64_t>(file_size / 8)));
  }
  auto extractor = CheckpointExtractor::Make(reader->schema(), options.read_stats);
  if (extractor == nullptr) {
    // No action columns, or a shape only the generic rendering handles.
    if (!options.on_add) return ReadParquetCheckpointRendered(fs, path, sink);
    std::vector<MapEntryView> pv, tags;
    return ReadParquetCheckpointRendered(fs, path, [&](Action&& a) -> Status {
      if (const auto* add = std::get_if<AddFile>(&a)) return options.on_add(ViewOfAdd(*add, &pv, &tags));
      return sink(std::move(a));
    });
  }
  const CheckpointExtractor::AddSink* on_add = options.on_add ? &options.on_add : nullptr;
  const bool hints = on_add != nullptr && options.add_path_keys && options.add_path_hints;
  BatchSource source(reader.get(), extractor->leaves(), path);
  std::function<void(DecodedBatch*)> prepare;
  if (hints) {
    prepare = [&](DecodedBatch* b) {
      if (!extractor->AddPaths(b->batch, &b->paths)) return;
      b->keys.assign(b->paths.size(), 0);
      options.add_path_keys(b->paths, b->keys);
    };
  }
  auto consume = [&](DecodedBatch* b) {
    const uint32_t* row_hints = nullptr;
    if (hints && !b->paths.empty()) {
      b->hints.assign(b->paths.size(), 0);
      options.add_path_hints(b->paths, b->keys, b->hints);
      row_hints = b->hints.data();
    }
    Status st = extractor->Extract(&b->batch, path, sink, on_add, row_hints);
    b->paths.clear();
    return st;
  };
  if (EffectiveThreads(options.threads) >= 2 && reader->metadata().num_rows > kCheckpointBatchRows) {
    BatchPipeline pipeline(&source, prepare);
    return pipeline.Run(consume);
  }
  DecodedBatch batch;
  while (true) {
    LITHIFY_ASSIGN_OR_RETURN(bool more, source.Next(&batch.batch));
    if (!more) return Status::OK();
    if (prepare) prepare(&batch);
    LITHIFY_RETURN_NOT_OK(consume(&batch));
  }
}

Status ReadParquetCheckpointRendered(io::FileSystem* fs, const std::string& path,
                                     const ActionSink& sink) {
  LITHIFY_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs, path));
  std::vector<int> fields, leaves;
  ProjectActions(reader->schema(), &fields, &leaves);
  if (fields.empty()) return Status::Corruption("{}: no action columns (not a Delta checkpoint)", path);
  std::string rendered;
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    LITHIFY_ASSIGN_OR_RETURN(auto batch, reader->ReadRowGroup(rg, leaves));
    rendered.clear();
    LITHIFY_RETURN_NOT_OK_CTX(parquet::RenderRows(reader->schema(), fields, batch,
                                                  parquet::RowFormat::kJsonLines, -1, &rendered),
                              "{}: row group {}", path, rg);
    LITHIFY_RETURN_NOT_OK(ParseLines(rendered, path, reader->RowGroupFirstRow(rg), sink));
  }
  return Status::OK();
}

Status ReadJsonCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink) {
  LITHIFY_ASSIGN_OR_RETURN(Buffer data, fs->ReadFile(path));
  std::string_view text = AsStringView(data.view());
  size_t pos = 0;
  int64_t line = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    auto action = ParseActionLine(text.substr(pos, end - pos));
    if (!action.ok()) return action.status().WithContextF("{} line {}", path, line);
    if (action->has_value()) LITHIFY_RETURN_NOT_OK(sink(std::move(**action)));
    pos = end + 1;
  }
  return Status::OK();
}

}  // namespace lithify::delta
