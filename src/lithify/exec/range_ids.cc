#include "lithify/exec/range_ids.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "lithify/base/macros.h"
#include "lithify/parquet/schema.h"

namespace lithify::exec {

namespace {

void AppendBigEndian(uint64_t v, std::string* out) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (56 - 8 * i)) & 0xff);
  out->append(b, 8);
}

void AppendSignedInt(int64_t v, std::string* out) {
  AppendBigEndian(static_cast<uint64_t>(v) ^ (uint64_t{1} << 63), out);
}

// IEEE bits -> unsigned order: negatives inverted, positives with the sign bit set.
// -0.0 is 0.0 and every NaN the largest value, as Spark orders doubles.
void AppendDouble(double d, std::string* out) {
  if (std::isnan(d)) {
    AppendBigEndian(~uint64_t{0}, out);
    return;
  }
  if (d == 0) d = 0.0;
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  bits = (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
  AppendBigEndian(bits, out);
}

uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Dense value index of each row of a flat column, -1 for null.
void ValueIndexes(const parquet::ColumnData& c, int64_t rows, std::vector<int64_t>* out) {
  out->resize(static_cast<size_t>(rows));
  const int16_t max_def = c.descr ? c.descr->max_def : 0;
  int64_t k = 0;
  for (int64_t r = 0; r < rows; ++r) (*out)[r] = c.IsValid(r, max_def) ? k++ : -1;
}

}  // namespace

void AppendSortableValue(const parquet::ColumnValues& v, int64_t i, std::string* out) {
  using parquet::PhysicalType;
  switch (v.type) {
    case PhysicalType::kBoolean:
      out->push_back(static_cast<char>(v.fixed_at(i)[0] ? 1 : 0));
      return;
    case PhysicalType::kInt32:
      AppendSignedInt(v.value<int32_t>(i), out);
      return;
    case PhysicalType::kInt64:
      AppendSignedInt(v.value<int64_t>(i), out);
      return;
    case PhysicalType::kFloat:
      AppendDouble(static_cast<double>(v.value<float>(i)), out);
      return;
    case PhysicalType::kDouble:
      AppendDouble(v.value<double>(i), out);
      return;
    case PhysicalType::kInt96: {
      const uint8_t* p = v.fixed_at(i);
      int64_t nanos;
      int32_t day;
      std::memcpy(&nanos, p, 8);
      std::memcpy(&day, p + 8, 4);
      AppendSignedInt(day, out);
      AppendSignedInt(nanos, out);
      return;
    }
    case PhysicalType::kFixedLenByteArray: {
      const size_t w = v.width();
      const uint8_t* p = v.fixed_at(i);
      if (w == 0) return;
      out->push_back(static_cast<char>(p[0] ^ 0x80));
      out->append(reinterpret_cast<const char*>(p) + 1, w - 1);
      return;
    }
    case PhysicalType::kByteArray: {
      std::string_view s = v.binary(i);
      out->append(s.data(), s.size());
      return;
    }
  }
}

RangeBounds RangeBounds::FromSample(std::vector<std::string> sample, int num_ids) {
  std::sort(sample.begin(), sample.end());
  std::vector<std::string> bounds;
  if (num_ids <= 1 || sample.empty()) return RangeBounds(std::move(bounds));
  const double step = static_cast<double>(sample.size()) / num_ids;
  double cum = 0, target = step;
  for (size_t i = 0; i < sample.size() && static_cast<int>(bounds.size()) < num_ids - 1; ++i) {
    cum += 1;
    if (cum >= target && (bounds.empty() || sample[i] > bounds.back())) {
      bounds.push_back(sample[i]);
      target += step;
    }
  }
  return RangeBounds(std::move(bounds));
}

namespace {

// `b` (at most 8 bytes) as the big-endian word of its bytes followed by zeros.
uint64_t BigEndianWord(std::string_view b) {
  uint8_t bytes[8] = {};
  std::memcpy(bytes, b.data(), b.size());
  uint64_t w = 0;
  for (uint8_t x : bytes) w = (w << 8) | x;
  return w;
}

}  // namespace

RangeBounds::RangeBounds(std::vector<std::string> bounds) : bounds_(std::move(bounds)) {
  if (bounds_.empty() || bounds_[0].size() > 8) return;
  const size_t len = bounds_[0].size();
  if (!std::all_of(bounds_.begin(), bounds_.end(), [&](const std::string& b) { return b.size() == len; })) return;
  words_.reserve(bounds_.size());
  for (const std::string& b : bounds_) words_.push_back(BigEndianWord(b));
  word_len_ = len;
}

int32_t RangeBounds::Id(std::string_view encoded) const {
  if (word_len_ != 0 && encoded.size() == word_len_) {
    // Branch-free lower bound: the bounds a value falls between are unpredictable, so a
    // compare-and-move per halving beats a mispredicted branch. Invariant: every word
    // before lo is below w, and the answer is in [lo, lo + len].
    const uint64_t w = BigEndianWord(encoded);
    const size_t n = words_.size();
    size_t lo = 0;
    for (size_t len = n; len > 1;) {
      const size_t half = len / 2;
      lo = words_[lo + half - 1] < w ? lo + half : lo;
      len -= half;
    }
    return static_cast<int32_t>(lo + (n > 0 && words_[lo] < w ? 1 : 0));
  }
  auto it = std::lower_bound(bounds_.begin(), bounds_.end(), encoded,
                             [](const std::string& b, std::string_view v) { return std::string_view(b) < v; });
  return static_cast<int32_t>(it - bounds_.begin());
}

RangeSampler::RangeSampler(std::vector<int> columns, int64_t sample_size, uint64_t seed)
    : columns_(std::move(columns)), sample_size_(std::max<int64_t>(1, sample_size)), state_(seed) {
  samples_.resize(columns_.size());
  seen_.assign(columns_.size(), 0);
}

Status RangeSampler::Add(const parquet::RowBatch& batch) {
  LITHIFY_RETURN_NOT_OK(CheckClusterColumns(batch, columns_));
  std::string v;
  for (size_t c = 0; c < columns_.size(); ++c) {
    const parquet::ColumnValues& values = batch.columns[columns_[c]].values;
    std::vector<std::string>& s = samples_[c];
    for (int64_t i = 0; i < values.count; ++i) {
      // Algorithm R: the k-th value replaces a random slot with probability size / k.
      const int64_t k = seen_[c]++;
      int64_t slot = k;
      if (k >= sample_size_) {
        slot = static_cast<int64_t>(SplitMix(&state_) % static_cast<uint64_t>(k + 1));
        if (slot >= sample_size_) continue;
      }
      v.clear();
      AppendSortableValue(values, i, &v);
      if (slot == static_cast<int64_t>(s.size())) {
        bytes_ += static_cast<int64_t>(v.capacity() + sizeof(std::string));
        s.push_back(v);
      } else {
        bytes_ += static_cast<int64_t>(v.size()) - static_cast<int64_t>(s[slot].size());
        s[slot] = v;
      }
    }
  }
  return Status::OK();
}

std::vector<RangeBounds> RangeSampler::Bounds(int num_ids) const {
  std::vector<RangeBounds> out;
  for (const auto& s : samples_) out.push_back(RangeBounds::FromSample(s, num_ids));
  return out;
}

Status CheckClusterColumns(const parquet::RowBatch& batch, const std::vector<int>& columns) {
  for (int c : columns) {
    if (c < 0 || c >= static_cast<int>(batch.columns.size())) {
      return Status::InvalidArgument("clustering column {} is not in the batch ({} columns)", c, batch.columns.size());
    }
    const parquet::ColumnData& d = batch.columns[c];
    if (!d.rep_levels.empty() || (d.descr && d.descr->max_rep > 0)) {
      return Status::InvalidArgument("clustering column '{}' is inside a list or map",
                                     d.descr ? d.descr->dotted_path : std::to_string(c));
    }
  }
  return Status::OK();
}

Result<CurveKeyer> CurveKeyer::Make(planner::CurveEncoder encoder, std::vector<int> columns,
                                    std::vector<RangeBounds> bounds) {
  if (columns.size() != bounds.size() || static_cast<int>(columns.size()) != encoder.num_columns()) {
    return Status::InvalidArgument("curve keyer: {} columns, {} bounds, encoder of {} columns", columns.size(),
                                   bounds.size(), encoder.num_columns());
  }
  CurveKeyer k;
  k.encoder_ = std::move(encoder);
  k.columns_ = std::move(columns);
  k.bounds_ = std::move(bounds);
  std::string probe;
  std::vector<int32_t> zeros(k.columns_.size(), 0);
  k.encoder_.Key(zeros, &probe);
  k.key_width_ = static_cast<int>(probe.size());
  if (k.key_width_ < 1) return Status::InvalidArgument("curve keyer: the encoder gives empty keys");
  return k;
}

Status CurveKeyer::RangeIds(const parquet::RowBatch& batch, std::vector<int32_t>* out) const {
  LITHIFY_RETURN_NOT_OK(CheckClusterColumns(batch, columns_));
  const size_t n = columns_.size();
  out->assign(static_cast<size_t>(batch.num_rows) * n, 0);  // null -> 0
  std::vector<int64_t> vi;
  std::string v;
  for (size_t c = 0; c < n; ++c) {
    const parquet::ColumnData& col = batch.columns[columns_[c]];
    ValueIndexes(col, batch.num_rows, &vi);
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      if (vi[r] < 0) continue;
      v.clear();
      AppendSortableValue(col.values, vi[r], &v);
      (*out)[r * n + c] = bounds_[c].Id(v);
    }
  }
  return Status::OK();
}

Status CurveKeyer::Keys(const parquet::RowBatch& batch, std::string* out) const {
  std::vector<int32_t> ids;
  LITHIFY_RETURN_NOT_OK(RangeIds(batch, &ids));
  const size_t n = columns_.size();
  out->reserve(out->size() + static_cast<size_t>(batch.num_rows * key_width_));
  std::string key;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    encoder_.Key(std::span<const int32_t>(ids.data() + r * n, n), &key);
    if (static_cast<int>(key.size()) != key_width_) {
      return Status::Internal("curve key of {} bytes, expected {}", key.size(), key_width_);
    }
    out->append(key);
  }
  return Status::OK();
}

}  // namespace lithify::exec
