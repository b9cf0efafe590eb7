// linear_recurrence_backward -- the backward pass of h[t] = a[t] h[t - 1] + b[t] along every row
// of [rows, length] arrays: from a, h and dh = dL/dh, the gradients da and db, in one launch
// (the library's linear_recurrence_backward, include/scan_zoo/linear_recurrence.cuh).
//
// Idea: the loss reaches h[t] directly (dh[t]) and through h[t + 1] = a[t + 1] h[t] + ..., so
// g[t] = dL/dh[t] in all = dh[t] + a[t + 1] g[t + 1], a reverse recurrence, and then
// db[t] = g[t] and da[t] = g[t] h[t - 1]. As written it reads a one step ahead, which would cost
// the tiles their aligned vector loads; in v[t] = a[t] g[t] = a[t] (dh[t] + v[t + 1]) everything
// is read unshifted. So the kernel is the row scan (detail/rows_kernel.cuh) of the maps
// (a[t], a[t] dh[t]) from each row's end, exclusive, which leaves v[t + 1] at t; its store makes
// g[t] = dh[t] + v[t + 1] and the two gradients, reading dh again (from L2: the tile loaded it
// a moment before) and h, whose one shifted element a vector comes from the neighbouring lane.
//
// Work: O(N); launches: 1. Global traffic: 5 accesses per element (a, dh and h read, da and db
// written: 20 bytes per float32 element), the bound a copy of those bytes, against the ten
// arrays of the backward that runs linear_recurrence on shifted copies of a and h.
// Forward progress: as the tuned scan (blocks in blockIdx.x order).
//
// Constraints: float32, the sum operator's row only (the recurrence has its own operator),
// inclusive; any shape (N a whole number of rows: --row-length L, default one row of N); not in
// place. The data: a in {-1, 0, 1} (mostly 1), h and dh integers in [-8, 8] (the backward reads h
// as given, so it need not be the forward's), so that every gradient is a small integer and the
// check is exact against the adjoint loop in double, run in its own, shifted form.
//
// In the charts: none yet (bench/NOTES.md, "Recurrences beside accelerated-scan").
//
// Run: make bin/linear_recurrence_backward && ./bin/linear_recurrence_backward 2^23 --row-length 4096
#include <scan_zoo/linear_recurrence.cuh>

#include "../harness/harness.cuh"
#include "recurrence_maps.cuh"

// The problem (harness/problem.cuh's interface): a, h and dh in, da and db out, of n elements,
// the rows of --row-length. In namespace zoo beside the other problems.
namespace zoo {
template <class T, class Op>
class RecurrenceBackwardProblem {
 public:
  static constexpr const char* kName = "linear recurrence backward";
  static constexpr bool kTakesInputFile = false;
  static constexpr const char* kInputDescription =
      "multipliers in {-1, 0, 1}, states and state gradients in [-8, 8], rows of --row-length";
  static constexpr bool kUsesSegmentLength = false;
  static constexpr bool kUsesRowLength = true;
  static constexpr bool kUsesColumns = false;
  static constexpr bool kRunsInPlace = false;
  static constexpr bool kTakesValues = false;
  bool carries_values() const { return false; }
  static std::string op_label() { return Op::name; }
  static std::string mode_label(ScanKind, const Options& options) {
    return options.row_length > 0 ? "recurrence-backward-length" + std::to_string(options.row_length)
                                  : "recurrence-backward";
  }
  static const char* unsupported_reason(ScanKind kind) {
    return std::is_same_v<Op, Sum> && kind == ScanKind::Inclusive
               ? nullptr
               : "the linear recurrence has its own operator (affine maps): sum inclusive only";
  }

  RecurrenceBackwardProblem(std::int64_t n, ScanKind, const Options& options, const T*)
      : n_(n), length_(options.row_length > 0 ? options.row_length : n) {}

  std::size_t device_bytes() const { return checked_bytes(5, array_bytes()); }
  std::size_t host_bytes() const { return device_bytes(); }
  std::string device_bytes_detail() const { return "a, h, dh, da and db " + bytes_text(array_bytes()) + " each"; }
  bool allocate_device() {
    return a_.allocate(array_bytes()) && h_.allocate(array_bytes()) && dh_.allocate(array_bytes()) &&
           da_.allocate(array_bytes()) && db_.allocate(array_bytes());
  }
  bool allocate_host() {
    for (auto* array : {&host_a_, &host_h_, &host_dh_, &host_da_, &host_db_}) {
      *array = try_host_array<T>(n_);
      if (!*array) return false;
    }
    return true;
  }
  void prepare(std::uint64_t seed, cudaStream_t stream) {
    parallel_chunks(n_, default_chunks(n_), [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t i = begin; i < end; ++i) {
        host_a_[i] = recurrence_multiplier<T>(seed, i);
        host_h_[i] = input_value<T>(~seed, i);
        host_dh_[i] = input_value<T>(seed * 3 + 1, i);
      }
    });
    for (auto [device, host] : {std::pair{&a_, &host_a_}, {&h_, &host_h_}, {&dh_, &host_dh_}})
      ZOO_CUDA(cudaMemcpyAsync(device->pointer, host->get(), array_bytes(), cudaMemcpyHostToDevice, stream));
    ZOO_CUDA(cudaMemsetAsync(da_.pointer, kPoisonByte, array_bytes(), stream));
    ZOO_CUDA(cudaMemsetAsync(db_.pointer, kPoisonByte, array_bytes(), stream));
  }
  template <class Variant>
  void run(Workspace, cudaStream_t stream) const {
    Variant::template run<T>(a_.as<const T>(), h_.as<const T>(), dh_.as<const T>(), da_.as<T>(), db_.as<T>(),
                             scan_zoo::Shape{rows(), length_}, stream);
  }
  void download(cudaStream_t stream) {
    ZOO_CUDA(cudaMemcpyAsync(host_da_.get(), da_.pointer, array_bytes(), cudaMemcpyDeviceToHost, stream));
    ZOO_CUDA(cudaMemcpyAsync(host_db_.get(), db_.pointer, array_bytes(), cudaMemcpyDeviceToHost, stream));
  }
  // The adjoint loop in double, shifted as written (g[t] = a[t + 1] g[t + 1] + dh[t]), from the
  // array's end: scan position p is element m = n - 1 - p, and a row starts where m ends one.
  // Both gradients compared exactly.
  VerifyResult verify() const {
    const T* a = host_a_.get();
    const T* h = host_h_.get();
    const T* dh = host_dh_.get();
    const T* got_da = host_da_.get();
    const T* got_db = host_db_.get();
    const std::int64_t n = n_, length = length_;
    return chunked_scan_check(
        n, 0, HeadedMap{1, 0, false},
        [=](std::int64_t p) {
          const std::int64_t m = n - 1 - p;
          const bool row_end = m % length == length - 1;  // a row starts there, read from its end
          return HeadedMap{row_end ? 0.0 : double(a[m + 1]), double(dh[m]), row_end};
        },
        compose_restarting,
        [&](VerifyResult& result, std::int64_t p, HeadedMap, HeadedMap after) {
          const std::int64_t m = n - 1 - p;
          const double g = after.b, before = m % length == 0 ? 0.0 : double(h[m - 1]);
          const T want_db = static_cast<T>(g), want_da = static_cast<T>(g * before);
          if (!same_value(want_db, got_db[m])) result.record(m, want_db, got_db[m]);
          if (!same_value(want_da, got_da[m])) result.record(m, want_da, got_da[m]);
        });
  }
  const T* output() const { return host_da_.get(); }
  std::int64_t output_count() const { return n_; }
  double bytes_moved() const { return double(device_bytes()); }

 private:
  std::size_t array_bytes() const { return checked_bytes(n_, sizeof(T)); }
  std::int64_t rows() const { return length_ > 0 ? n_ / length_ : 0; }

  std::int64_t n_, length_;
  DeviceBuffer a_, h_, dh_, da_, db_;
  std::unique_ptr<T[]> host_a_, host_h_, host_dh_, host_da_, host_db_;
};

}  // namespace zoo

namespace {

struct LinearRecurrenceBackward : zoo::VariantDefaults {
  static constexpr bool kHandsOverAcrossTiles = true;
  template <class T, class Op>
  using Problem = zoo::RecurrenceBackwardProblem<T, Op>;
  using Types = zoo::TypeList<float>;
  static constexpr std::int64_t kTileItems =
      scan_zoo::detail::RowsScan<scan_zoo::AdjointAffine<float>>::Config::kTileItems;

  // The library keeps its own workspace, as linear_recurrence's does.
  template <class T>
  static void run(const T* a, const T* h, const T* dh, T* da, T* db, const scan_zoo::Shape& shape,
                  cudaStream_t stream) {
    static scan_zoo::Workspace workspace;
    ZOO_CUDA(scan_zoo::linear_recurrence_backward(a, h, dh, da, db, shape, workspace, stream));
  }
};

}  // namespace

ZOO_MAIN(LinearRecurrenceBackward)
