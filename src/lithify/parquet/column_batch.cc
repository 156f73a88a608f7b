#include "lithify/parquet/column_batch.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "lithify/parquet/schema.h"

namespace lithify::parquet {

size_t PhysicalTypeWidth(PhysicalType type, int32_t type_length) {
  switch (type) {
    case PhysicalType::kBoolean: return 1;
    case PhysicalType::kInt32: return 4;
    case PhysicalType::kInt64: return 8;
    case PhysicalType::kInt96: return 12;
    case PhysicalType::kFloat: return 4;
    case PhysicalType::kDouble: return 8;
    case PhysicalType::kByteArray: return 0;
    case PhysicalType::kFixedLenByteArray: return type_length > 0 ? type_length : 0;
  }
  return 0;
}

void ColumnData::Reset(const ColumnDescriptor& d) {
  descr = &d;
  num_levels = 0;
  def_levels.clear();
  rep_levels.clear();
  values.Clear();
  values.type = d.physical_type;
  values.type_length = d.type_length;
}

void ColumnValues::Clear() {
  count = 0;
  fixed.Clear();
  offsets.clear();
  data.Clear();
  dictionary = nullptr;
  dictionary_id = 0;
  indices.clear();
}

namespace {

template <size_t W>
void GatherFixed(const uint8_t* dict, const uint32_t* idx, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * W, dict + size_t{idx[i]} * W, W);
}

void GatherFixedAny(const uint8_t* dict, const uint32_t* idx, int64_t n, size_t w, uint8_t* out) {
  switch (w) {
    case 1: return GatherFixed<1>(dict, idx, n, out);
    case 4: return GatherFixed<4>(dict, idx, n, out);
    case 8: return GatherFixed<8>(dict, idx, n, out);
    case 12: return GatherFixed<12>(dict, idx, n, out);
    case 16: return GatherFixed<16>(dict, idx, n, out);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * w, dict + size_t{idx[i]} * w, w);
  }
}

}  // namespace

void ColumnValues::AppendGathered(const ColumnValues& dict, const uint32_t* idx, int64_t n, int64_t data_bytes) {
  if (n <= 0) return;
  if (!dict.is_byte_array()) {
    const size_t w = dict.width();
    const size_t old = fixed.size();
    fixed.Resize(old + static_cast<size_t>(n) * w);
    GatherFixedAny(dict.fixed.data(), idx, n, w, fixed.data() + old);
    count += n;
    return;
  }
  const int64_t* doff = dict.offsets.data();
  int64_t total = data_bytes;
  if (total < 0) {
    total = 0;
    for (int64_t i = 0; i < n; ++i) total += doff[idx[i] + 1] - doff[idx[i]];
  }
  if (offsets.empty()) offsets.push_back(0);
  const size_t old_off = offsets.size();
  offsets.resize(old_off + static_cast<size_t>(n));
  const size_t old_data = data.size();
  data.Resize(old_data + static_cast<size_t>(total));
  int64_t* off = offsets.data() + old_off;
  uint8_t* out = data.data();
  const uint8_t* src = dict.data.data();
  int64_t end = static_cast<int64_t>(old_data);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = doff[idx[i]];
    const int64_t len = doff[idx[i] + 1] - b;
    if (len > 0) std::memcpy(out + end, src + b, static_cast<size_t>(len));
    end += len;
    off[i] = end;
  }
  count += n;
}

void ColumnValues::Materialize() {
  if (!is_dictionary()) return;
  const ColumnValues* dict = dictionary;
  std::vector<uint32_t> idx = std::move(indices);
  const int64_t n = count;
  Clear();
  AppendGathered(*dict, idx.data(), n);
  indices = std::move(idx);  // keeps its capacity for the next dictionary form
  indices.clear();
}

void ColumnValues::AppendRange(const ColumnValues& other, int64_t begin, int64_t end) {
  if (end <= begin) return;
  if (count == 0) {
    type = other.type;
    type_length = other.type_length;
  }
  int64_t n = end - begin;
  if (other.is_dictionary()) {
    if (count == 0 || (is_dictionary() && dictionary_id == other.dictionary_id)) {
      if (count == 0) {
        fixed.Clear();
        offsets.clear();
        data.Clear();
        dictionary = other.dictionary;
        dictionary_id = other.dictionary_id;
      }
      indices.insert(indices.end(), other.indices.begin() + begin, other.indices.begin() + end);
      count += n;
      return;
    }
    Materialize();
    AppendGathered(*other.dictionary, other.indices.data() + begin, n);
    return;
  }
  Materialize();
  if (is_byte_array()) {
    if (offsets.empty()) offsets.push_back(0);
    int64_t src_begin = other.offsets[begin];
    int64_t src_end = other.offsets[end];
    // Rebase the source offsets onto our data buffer in one pass.
    int64_t shift = static_cast<int64_t>(data.size()) - src_begin;
    data.Append(other.data.data() + src_begin, static_cast<size_t>(src_end - src_begin));
    size_t old = offsets.size();
    offsets.resize(old + n);
    const int64_t* src = other.offsets.data() + begin + 1;
    int64_t* dst = offsets.data() + old;
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i] + shift;
  } else {
    size_t w = width();
    fixed.Append(other.fixed.data() + begin * w, static_cast<size_t>(n) * w);
  }
  count += n;
}

std::vector<int64_t> RowLevelStarts(const ColumnData& c, int64_t num_rows) {
  std::vector<int64_t> starts;
  starts.reserve(static_cast<size_t>(num_rows) + 1);
  if (c.rep_levels.empty()) {
    for (int64_t r = 0; r <= num_rows; ++r) starts.push_back(r);
    return starts;
  }
  const int16_t* rep = c.rep_levels.data();
  int64_t n = static_cast<int64_t>(c.rep_levels.size());
  for (int64_t i = 0; i < n; ++i) {
    if (rep[i] == 0) starts.push_back(i);
  }
  starts.push_back(n);
  return starts;
}

namespace {

int16_t MaxDefOf(const ColumnData& c) {
  if (c.descr != nullptr) return c.descr->max_def;
  // Without a descriptor the highest observed level is the best available guess; it is
  // exact unless every value of the column is null.
  int16_t m = 0;
  for (int16_t d : c.def_levels) m = std::max(m, d);
  return m;
}

// value_starts[r] = index of the first value of row r, given the row's level starts.
std::vector<int64_t> RowValueStarts(const ColumnData& c, const std::vector<int64_t>& level_starts) {
  if (c.def_levels.empty()) return level_starts;  // every level holds a value
  int16_t max_def = MaxDefOf(c);
  std::vector<int64_t> out(level_starts.size());
  const int16_t* def = c.def_levels.data();
  int64_t values = 0;
  size_t rows = level_starts.size() - 1;
  for (size_t r = 0; r < rows; ++r) {
    out[r] = values;
    for (int64_t i = level_starts[r]; i < level_starts[r + 1]; ++i) values += def[i] == max_def;
  }
  out[rows] = values;
  return out;
}

// An empty ColumnValues of the type of `v`, with room for all of `v`.
ColumnValues EmptyLike(const ColumnValues& v) {
  ColumnValues out;
  out.type = v.type;
  out.type_length = v.type_length;
  out.fixed.Reserve(v.fixed.size());
  out.data.Reserve(v.data.size());
  out.offsets.reserve(v.offsets.size());
  out.indices.reserve(v.indices.size());
  return out;
}

bool Kept(const std::vector<bool>& keep, int64_t r) {
  return r >= static_cast<int64_t>(keep.size()) || keep[r];
}

// Required flat columns (the common key/ID case): rows, levels and values coincide, so
// no index vectors are needed.
void FilterRequiredFlat(ColumnData* c, int64_t num_rows, const std::vector<bool>& keep) {
  if (c->values.count < num_rows) return;  // inconsistent: leave alone (see below)
  ColumnValues values = EmptyLike(c->values);
  for (int64_t r = 0; r < num_rows;) {
    if (!Kept(keep, r)) {
      ++r;
      continue;
    }
    int64_t run_end = r + 1;
    while (run_end < num_rows && Kept(keep, run_end)) ++run_end;
    values.AppendRange(c->values, r, run_end);
    r = run_end;
  }
  c->num_levels = values.count;
  c->values = std::move(values);
}

void FilterColumn(ColumnData* c, int64_t num_rows, const std::vector<bool>& keep) {
  if (c->rep_levels.empty() && c->def_levels.empty()) {
    return FilterRequiredFlat(c, num_rows, keep);
  }
  std::vector<int64_t> ls = RowLevelStarts(*c, num_rows);
  // A column inconsistent with the batch (a caller bug) is left alone rather than read
  // out of bounds; FilterRows has no error channel.
  if (static_cast<int64_t>(ls.size()) != num_rows + 1) return;
  if (!c->def_levels.empty() && static_cast<int64_t>(c->def_levels.size()) < ls.back()) return;
  std::vector<int64_t> vs = RowValueStarts(*c, ls);
  if (vs.back() > c->values.count) return;
  std::vector<int16_t> def, rep;
  def.reserve(c->def_levels.size());
  rep.reserve(c->rep_levels.size());
  ColumnValues values = EmptyLike(c->values);
  // Copy maximal runs of kept rows at once: deletion vectors usually drop few rows.
  int64_t r = 0;
  while (r < num_rows) {
    if (!Kept(keep, r)) {
      ++r;
      continue;
    }
    int64_t run_end = r + 1;
    while (run_end < num_rows && Kept(keep, run_end)) ++run_end;
    if (!c->def_levels.empty()) {
      def.insert(def.end(), c->def_levels.begin() + ls[r], c->def_levels.begin() + ls[run_end]);
    }
    if (!c->rep_levels.empty()) {
      rep.insert(rep.end(), c->rep_levels.begin() + ls[r], c->rep_levels.begin() + ls[run_end]);
    }
    values.AppendRange(c->values, vs[r], vs[run_end]);
    r = run_end;
  }
  c->num_levels = static_cast<int64_t>(std::max(def.size(), rep.size()));
  c->def_levels = std::move(def);
  c->rep_levels = std::move(rep);
  c->values = std::move(values);
}

}  // namespace

void FilterRows(RowBatch* batch, const std::vector<bool>& keep) {
  int64_t kept = 0;
  for (int64_t r = 0; r < batch->num_rows; ++r) kept += Kept(keep, r);
  batch->first_row_index = -1;
  if (kept == batch->num_rows) return;
  for (ColumnData& c : batch->columns) FilterColumn(&c, batch->num_rows, keep);
  batch->num_rows = kept;
}

}  // namespace lithify::parquet
