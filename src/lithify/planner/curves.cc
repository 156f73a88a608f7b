#include "lithify/planner/curves.h"

#include <array>
#include <bit>
#include <cassert>
#include <deque>
#include <mutex>

namespace lithify::planner {

namespace {

// ---- Hilbert state-table generation (Delta's HilbertIndex.getStateGenerator and
// GeneratorTable.generateStateList, re-derived from their description). Everything works
// on n-bit masks where bit n-1 is column 0 ("columns count from the left").

uint32_t Mask(int n) { return (uint32_t{1} << n) - 1; }

uint32_t RotateLeft(int n, uint32_t v, int shift) {
  if (shift == 0) return v & Mask(n);
  return ((v << shift) | (v >> (n - shift))) & Mask(n);
}

uint32_t RotateRight(int n, uint32_t v, int shift) {
  if (shift == 0) return v & Mask(n);
  return ((v >> shift) | (v << (n - shift))) & Mask(n);
}

// The transformation matrices of the construction are signed permutation matrices that
// Delta encodes by two numbers: x2 (which columns are negated) and dy (a rotation).
struct Matrix {
  uint32_t x2 = 0;
  int dy = 0;
};

uint32_t Transform(int n, const Matrix& m, uint32_t e) { return RotateLeft(n, e ^ m.x2, m.dy); }

Matrix Multiply(int n, const Matrix& a, const Matrix& b) {
  return Matrix{RotateRight(n, a.x2, b.dy) ^ b.x2, (a.dy + b.dy) % n};
}

// The "X2" Gray-code sequence of order n (2^(n+1) values): pairs (first, last) of the
// sub-curve corners each first-order cell maps to.
std::vector<uint32_t> X2GrayCodes(int n) {
  if (n == 1) return {0, 1, 0, 1};
  const uint32_t mask = uint32_t{1} << (n - 1);
  std::vector<uint32_t> base = X2GrayCodes(n - 1);
  base[base.size() - 1] = base[base.size() - 2] + mask;
  std::vector<uint32_t> out(base.size() * 2);
  for (size_t i = 0; i < base.size(); ++i) {
    out[i] = base[i];
    out[out.size() - 1 - i] = base[i] ^ mask;
  }
  return out;
}

// One generator row: key digit y, its Gray code x1 and the matrix of its sub-curve.
struct Row {
  uint32_t y = 0;
  uint32_t x1 = 0;
  Matrix m;
};

std::vector<Row> GeneratorRows(int n) {
  const std::vector<uint32_t> x2s = X2GrayCodes(n);
  std::vector<Row> rows(size_t{1} << n);
  for (uint32_t i = 0; i < rows.size(); ++i) {
    const uint32_t x21 = x2s[2 * i];
    const uint32_t x22 = x2s[2 * i + 1];
    // dy: the column (counted from the left) of the single bit where x21 and x22 differ.
    const int dy = n - 1 - std::countr_zero(x21 ^ x22);
    rows[i] = Row{i, i ^ (i >> 1), Matrix{x21, dy}};
  }
  return rows;
}

struct PointState {
  uint32_t x1 = 0;
  uint32_t next = 0;
};

struct State {
  Matrix m;
  std::vector<PointState> by_y;  // indexed by the key digit y
};

// Breadth-first over the matrices reachable from the identity; state ids in creation
// order, which is what makes the table (and so the keys' orientation) Delta's. Matrices
// are identified by their (x2, dy) slot, as Delta compares them by value.
class StateBuilder {
 public:
  explicit StateBuilder(int n)
      : n_(n), rows_(GeneratorRows(n)), id_of_(static_cast<size_t>(n) << n, -1) {}

  std::vector<State> Build() {
    State initial;
    initial.m = Matrix{0, 0};
    initial.by_y.resize(rows_.size());
    id_of_[Slot(initial.m)] = 0;
    states_.push_back(initial);
    for (const Row& r : rows_) {
      states_[0].by_y[r.y] = PointState{r.x1, Intern(r.m)};
    }
    // Row lookup by Gray code: x1 -> y.
    std::vector<uint32_t> y_of_x1(rows_.size());
    for (const Row& r : rows_) y_of_x1[r.x1] = r.y;
    while (!queue_.empty()) {
      const uint32_t id = queue_.front();
      queue_.pop_front();
      const Matrix m = states_[id].m;
      std::vector<PointState> by_y(rows_.size());
      for (uint32_t i = 0; i < rows_.size(); ++i) {
        const uint32_t j = Transform(n_, m, i);
        const uint32_t y = y_of_x1[j];
        const uint32_t row_state = states_[0].by_y[y].next;
        by_y[y] = PointState{i, Intern(Multiply(n_, states_[row_state].m, m))};
      }
      states_[id].by_y = std::move(by_y);
    }
    return std::move(states_);
  }

 private:
  size_t Slot(const Matrix& m) const { return static_cast<size_t>(m.x2) * n_ + m.dy; }

  // The id of the state with matrix `m`, created (and queued) when new.
  uint32_t Intern(const Matrix& m) {
    int& id = id_of_[Slot(m)];
    if (id < 0) {
      id = static_cast<int>(states_.size());
      states_.push_back(State{m, {}});
      queue_.push_back(static_cast<uint32_t>(id));
    }
    return static_cast<uint32_t>(id);
  }

  int n_;
  std::vector<Row> rows_;
  std::vector<int> id_of_;  // matrix slot -> state id
  std::vector<State> states_;
  std::deque<uint32_t> queue_;
};

}  // namespace

struct HilbertCurve::Tables {
  int num_states = 0;
  // [state << n | x1] = (y << 32) | next_state (Delta's compact n-point -> key list).
  std::vector<uint64_t> table;
};

namespace {

std::shared_ptr<const HilbertCurve::Tables> BuildTables(int n) {
  auto t = std::make_shared<HilbertCurve::Tables>();
  const std::vector<State> states = StateBuilder(n).Build();
  t->num_states = static_cast<int>(states.size());
  t->table.assign(states.size() << n, 0);
  for (size_t s = 0; s < states.size(); ++s) {
    for (uint32_t y = 0; y < states[s].by_y.size(); ++y) {
      const PointState& ps = states[s].by_y[y];
      t->table[(s << n) | ps.x1] = (uint64_t{y} << 32) | ps.next;
    }
  }
  return t;
}

// Built once per dimension count, on first use, shared by every curve.
std::shared_ptr<const HilbertCurve::Tables> TablesFor(int n) {
  static std::array<std::once_flag, HilbertCurve::kMaxDims + 1> once;
  static std::array<std::shared_ptr<const HilbertCurve::Tables>, HilbertCurve::kMaxDims + 1> tables;
  std::call_once(once[n], [n] { tables[n] = BuildTables(n); });
  return tables[n];
}

}  // namespace

namespace {

// The bits of x at the even positions of a 64-bit word (bit i -> bit 2i).
uint64_t SpreadBits(uint32_t x) {
  uint64_t v = x;
  v = (v | v << 16) & 0x0000FFFF0000FFFFull;
  v = (v | v << 8) & 0x00FF00FF00FF00FFull;
  v = (v | v << 4) & 0x0F0F0F0F0F0F0F0Full;
  v = (v | v << 2) & 0x3333333333333333ull;
  v = (v | v << 1) & 0x5555555555555555ull;
  return v;
}

void AppendBigEndian64(uint64_t v, std::string* out) {
  char b[8];
  for (int i = 7; i >= 0; --i, v >>= 8) b[i] = static_cast<char>(v & 0xff);
  out->append(b, 8);
}

}  // namespace

void AppendInterleavedBits(std::span<const int32_t> range_ids, std::string* out) {
  const size_t n = range_ids.size();
  // Two columns (the common Z-order) by word arithmetic: the same bits as the loop below,
  // without 64 single-bit steps per row (clustering keys every row twice).
  if (n == 2) {
    AppendBigEndian64(SpreadBits(static_cast<uint32_t>(range_ids[0])) << 1 |
                          SpreadBits(static_cast<uint32_t>(range_ids[1])),
                      out);
    return;
  }
  const size_t start = out->size();
  out->append(4 * n, '\0');
  char* bytes = out->data() + start;
  size_t pos = 0;  // output bit position, MSB-first
  for (int bit = 31; bit >= 0; --bit) {
    for (size_t c = 0; c < n; ++c, ++pos) {
      if ((static_cast<uint32_t>(range_ids[c]) >> bit) & 1u) {
        bytes[pos >> 3] = static_cast<char>(static_cast<uint8_t>(bytes[pos >> 3]) |
                                            (0x80u >> (pos & 7)));
      }
    }
  }
}

std::string InterleaveBits(std::span<const int32_t> range_ids) {
  std::string out;
  AppendInterleavedBits(range_ids, &out);
  return out;
}

std::string InterleaveBits(std::span<const std::optional<int32_t>> range_ids) {
  std::vector<int32_t> ids;
  ids.reserve(range_ids.size());
  for (const auto& id : range_ids) ids.push_back(id.value_or(0));
  return InterleaveBits(ids);
}

int RangeIdBits(int num_range_ids) {
  assert(num_range_ids >= 1);
  // numberOfTrailingZeros(highestOneBit(n)) + 1 = index of the highest set bit + 1.
  return std::bit_width(static_cast<uint32_t>(num_range_ids));
}

Result<HilbertCurve> HilbertCurve::Make(int dims, int bits) {
  if (dims < kMinDims || dims > kMaxDims) {
    return Status::InvalidArgument(
        "Hilbert curve: {} dimensions; Delta's Hilbert index supports 2 to 9", dims);
  }
  if (bits < 1 || dims * bits >= 64) {
    return Status::InvalidArgument(
        "Hilbert curve: {} dimensions of {} bits do not fit a 63-bit key (Delta's "
        "HilbertLongIndex); the byte-array index is not supported",
        dims, bits);
  }
  return HilbertCurve(dims, bits, TablesFor(dims));
}

uint64_t HilbertCurve::Key(std::span<const int32_t> point) const {
  assert(static_cast<int>(point.size()) == dims_);
  const uint64_t* table = tables_->table.data();
  const int n = dims_;
  uint64_t key = 0;
  uint32_t state = 0;
  for (int i = 0; i < bits_; ++i) {
    const int shift = bits_ - 1 - i;
    uint32_t z = 0;
    for (int j = 0; j < n; ++j) z = (z << 1) | ((static_cast<uint32_t>(point[j]) >> shift) & 1u);
    const uint64_t entry = table[(static_cast<size_t>(state) << n) | z];
    key = (key << n) | (entry >> 32);
    state = static_cast<uint32_t>(entry);
  }
  return key;
}

std::span<const uint64_t> HilbertCurve::StateTable() const { return tables_->table; }
int HilbertCurve::NumStates() const { return tables_->num_states; }

std::string_view CurveName(Curve curve) {
  return curve == Curve::kHilbert ? "hilbert" : "zorder";
}

Result<CurveEncoder> CurveEncoder::Make(Curve curve, int num_columns, int num_range_ids) {
  if (num_columns < 1) {
    return Status::InvalidArgument("curve key: needs at least one column, got {}", num_columns);
  }
  if (num_range_ids < 1) {
    return Status::InvalidArgument("curve key: needs at least one range id, got {}",
                                   num_range_ids);
  }
  CurveEncoder e;
  e.curve_ = curve;
  e.num_columns_ = num_columns;
  if (curve == Curve::kHilbert) {
    auto h = HilbertCurve::Make(num_columns, RangeIdBits(num_range_ids));
    if (!h.ok()) return h.status();
    e.hilbert_ = *h;
  }
  return e;
}

void CurveEncoder::Key(std::span<const int32_t> range_ids, std::string* out) const {
  assert(static_cast<int>(range_ids.size()) == num_columns_);
  out->clear();
  if (!hilbert_) {
    AppendInterleavedBits(range_ids, out);
    return;
  }
  const uint64_t key = hilbert_->Key(range_ids);
  out->resize(8);
  for (int i = 0; i < 8; ++i) (*out)[i] = static_cast<char>(key >> (56 - 8 * i));
}

}  // namespace lithify::planner
