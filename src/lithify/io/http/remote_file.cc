#include "lithify/io/http/remote_file.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "lithify/base/macros.h"
#include "lithify/base/thread_pool.h"

namespace lithify::io::http {

bool ParseContentRange(std::string_view header, uint64_t* first, uint64_t* total) {
  if (header.substr(0, 6) != "bytes ") return false;
  header.remove_prefix(6);
  const size_t dash = header.find('-'), slash = header.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash) return false;
  auto number = [](std::string_view digits, uint64_t* v) {
    if (digits.empty() || digits.size() > 19) return false;
    *v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      *v = *v * 10 + static_cast<uint64_t>(c - '0');
    }
    return true;
  };
  uint64_t last = 0;
  return number(header.substr(0, dash), first) && number(header.substr(dash + 1, slash - dash - 1), &last) &&
         number(header.substr(slash + 1), total) && *first <= last && last < *total;
}

// ---- RemoteFile ----

ReadProfile RemoteFile::read_profile() const {
  ReadProfile p;
  p.coalesce_gap = 256 << 10;
  p.max_coalesced = 16 << 20;
  p.preferred_read = 64 << 10;
  p.remote = true;
  return p;
}

Status RemoteFile::CheckRange(uint64_t offset, uint64_t length) const {
  if (offset > size_ || length > size_ - offset) {
    return Status::IOError("{}: read of {} bytes at offset {} is past the end ({} bytes)", path_, length, offset,
                           size_);
  }
  return Status::OK();
}

Status RemoteFile::CopyRangeReply(const HttpResponse& r, uint64_t offset, size_t length, uint8_t* out) const {
  std::string_view body = r.body;
  if (r.status == 200) {
    if (body.size() < offset + length) {
      return Status::IOError("{}: GET returned {} bytes, fewer than the {} expected", path_, body.size(),
                             offset + length);
    }
    body = body.substr(offset, length);
  }
  if (body.size() != length) {
    return Status::IOError("{}: ranged GET at {} returned {} bytes instead of {}", path_, offset, body.size(), length);
  }
  std::memcpy(out, body.data(), length);
  return Status::OK();
}

Status RemoteFile::ReadAt(uint64_t offset, size_t length, uint8_t* out) {
  LITHIFY_RETURN_NOT_OK(CheckRange(offset, length));
  if (length == 0) return Status::OK();
  if (InPiece(offset, length)) {
    std::memcpy(out, piece_.data() + (offset - piece_offset_), length);
    return Status::OK();
  }
  return Fetch(offset, length, out);
}

Result<std::vector<Buffer>> RemoteFile::ReadRanges(const std::vector<ReadRange>& ranges) {
  for (const ReadRange& r : ranges) LITHIFY_RETURN_NOT_OK(CheckRange(r.offset, r.length));
  std::vector<Buffer> out(ranges.size());
  // Ranges the kept piece holds cost no request; only the others are coalesced.
  std::vector<ReadRange> remote;
  for (size_t i = 0; i < ranges.size(); ++i) {
    out[i] = Buffer(ranges[i].length);
    if (ranges[i].length == 0) continue;
    if (InPiece(ranges[i].offset, ranges[i].length)) {
      std::memcpy(out[i].data(), piece_.data() + (ranges[i].offset - piece_offset_), ranges[i].length);
    } else {
      remote.push_back(ranges[i]);
    }
  }
  const ReadProfile profile = read_profile();
  std::vector<ReadRange> merged = CoalesceRanges(remote, profile.coalesce_gap, profile.max_coalesced);
  // At most kInFlight GETs at once, each into its own buffer, on the IO pool (requests
  // wait on the network, kInFlight is more than the cores). Every GET is made; the
  // first failure by position is returned below.
  constexpr int kInFlight = 8;
  std::vector<Buffer> bytes(merged.size());
  std::vector<Status> statuses(merged.size());
  (void)ParallelFor(IoPool(), merged.size(), kInFlight, [&](size_t m) {
    bytes[m] = Buffer(merged[m].length);
    statuses[m] = ReadAt(merged[m].offset, merged[m].length, bytes[m].data());
    return Status::OK();
  });
  for (size_t m = 0; m < merged.size(); ++m) {
    LITHIFY_RETURN_NOT_OK(statuses[m]);
    CopyCoveredRanges(merged[m], bytes[m].view(), ranges, &out);
  }
  return out;
}

// ---- PartedOutputStream ----

PartedOutputStream::~PartedOutputStream() { (void)WaitParts(0); }

Status PartedOutputStream::Append(ByteView data) {
  if (closed_ || aborted_) return Status::InvalidArgument("{}: write after {}", path_, closed_ ? "Close" : "Abort");
  buffer_.append(reinterpret_cast<const char*>(data.data()), data.size());
  position_ += data.size();
  while (buffer_.size() >= part_size_) LITHIFY_RETURN_NOT_OK(StartPart());
  return Status::OK();
}

Status PartedOutputStream::StartPart() {
  if (!parts_begun_) {
    Status begun = BeginParts();
    if (!begun.ok()) return Fail(begun);
    parts_begun_ = true;
  }
  Status waited = WaitParts(parts_in_flight_ - 1);
  if (!waited.ok()) return Fail(waited);
  const size_t n = std::min<size_t>(buffer_.size(), part_size_);
  auto bytes = std::make_shared<std::string>(buffer_.substr(0, n));
  buffer_.erase(0, n);
  const size_t number = ++parts_;
  // One group per part, so that parts are waited for (and their errors taken) oldest
  // first; at most parts_in_flight_ exist, bounding the buffered bytes.
  in_flight_.push_back(std::make_unique<TaskGroup>(IoPool(), 1));
  in_flight_.back()->Run([this, bytes, number]() -> Status { return UploadPart(number, AsBytes(*bytes)); });
  return Status::OK();
}

Status PartedOutputStream::WaitParts(size_t max_left) {
  Status first;
  while (in_flight_.size() > max_left) {
    Status st = in_flight_.front()->Wait();  // uploads it here if no pool thread has
    in_flight_.pop_front();
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  return first;
}

Status PartedOutputStream::Close() {
  if (closed_) return Status::OK();
  if (aborted_) return Status::InvalidArgument("{}: Close after Abort", path_);
  if (!parts_begun_) {
    Status put = PutWhole(AsBytes(buffer_));
    if (!put.ok()) return Fail(put);
  } else {
    if (!buffer_.empty()) LITHIFY_RETURN_NOT_OK(StartPart());
    Status parts = WaitParts(0);
    if (!parts.ok()) return Fail(parts);
    Status completed = CompleteParts(parts_);
    if (!completed.ok()) return Fail(completed);
  }
  closed_ = true;
  buffer_.clear();
  buffer_.shrink_to_fit();
  return Status::OK();
}

void PartedOutputStream::Abort() {
  if (closed_ || aborted_) return;
  aborted_ = true;
  buffer_.clear();
  buffer_.shrink_to_fit();
  (void)WaitParts(0);  // a part still travelling would otherwise outlive the abort
  if (parts_begun_) AbortParts();
}

}  // namespace lithify::io::http
