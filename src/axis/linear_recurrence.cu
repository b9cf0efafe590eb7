// linear_recurrence -- h[t] = a[t] h[t - 1] + b[t] along every row of [rows, length] arrays a, b
// and h (the state update of a diagonal state-space model along its sequence axis), in one
// launch: the library's linear_recurrence (include/scan_zoo/linear_recurrence.cuh).
//
// Idea: the step h -> a h + b is an affine map and maps compose associatively, not
// commutatively: (a1, b1) then (a2, b2) = (a1 a2, a2 b1 + b2) (Blelloch 1990, "Prefix sums and
// their applications", section 1.4). So h is the inclusive scan of the maps along each row, and
// the row scan (row_scan, detail/rows_kernel.cuh) runs it with the map as its accumulator: tiles
// cut from the flattened rows, a look-back that stops at the nearest row start, a and b read
// by vectors from their own arrays and paired in registers (detail/zip.cuh).
//
// Work: O(N) (two multiplies and an add a composition); depth: O(log tile) + the look-back.
// Barriers: 2 per tile. Launches: 1. Global traffic: 3 accesses per element (a and b read, h
// written: 12 bytes per float32 element), the bound a copy of those bytes (the memcpy row of
// the same N moves 8 a element: compare GB/s). Forward progress: as the tuned scan (blocks in blockIdx.x order).
//
// Constraints: float32, the sum operator's row of the table only (the recurrence has its own
// operator), inclusive; any shape (N a whole number of rows: --row-length L, default one row of
// N); not in place (h over b is allowed by the library and tested in recurrence_selftest).
// The data: a in {-1, 0, 1} (mostly 1), b integers in [-8, 8], so every state is a small integer
// and the check is exact against a loop in double.
//
// In the charts: none yet; its first sweep (scripts/device_session.sh recurrence) puts it beside
// memcpy_baseline and row_scan of the same shape, compared in GB/s (bench/NOTES.md, "Scans
// along an axis").
//
// Run: make bin/linear_recurrence && ./bin/linear_recurrence 2^23 --row-length 131072   (64 rows)
#include <scan_zoo/linear_recurrence.cuh>

#include "../harness/harness.cuh"
#include "recurrence_maps.cuh"

// The problem (harness/problem.cuh's interface): a, b and h of n elements, the rows of
// --row-length. In namespace zoo beside the other problems (an anonymous namespace would count
// the harness's unused flags as unreferenced).
namespace zoo {
template <class T, class Op>
class RecurrenceProblem {
 public:
  static constexpr const char* kName = "linear recurrence";
  static constexpr bool kTakesInputFile = false;
  static constexpr const char* kInputDescription =
      "multipliers in {-1, 0, 1} and addends in [-8, 8], rows of --row-length";
  static constexpr bool kUsesSegmentLength = false;
  static constexpr bool kUsesRowLength = true;
  static constexpr bool kUsesColumns = false;
  static constexpr bool kRunsInPlace = false;
  static constexpr bool kTakesValues = false;
  bool carries_values() const { return false; }
  static std::string op_label() { return Op::name; }
  static std::string mode_label(ScanKind, const Options& options) {
    return options.row_length > 0 ? "recurrence-length" + std::to_string(options.row_length) : "recurrence";
  }
  static const char* unsupported_reason(ScanKind kind) {
    return std::is_same_v<Op, Sum> && kind == ScanKind::Inclusive
               ? nullptr
               : "the linear recurrence has its own operator (affine maps) and is inclusive: sum inclusive only";
  }

  RecurrenceProblem(std::int64_t n, ScanKind, const Options& options, const T*)
      : n_(n), length_(options.row_length > 0 ? options.row_length : n) {}

  std::size_t device_bytes() const { return checked_bytes(3, array_bytes()); }
  std::size_t host_bytes() const { return device_bytes(); }
  std::string device_bytes_detail() const { return "a, b and h " + bytes_text(array_bytes()) + " each"; }
  bool allocate_device() { return a_.allocate(array_bytes()) && b_.allocate(array_bytes()) && h_.allocate(array_bytes()); }
  bool allocate_host() {
    host_a_ = try_host_array<T>(n_);
    host_b_ = try_host_array<T>(n_);
    host_h_ = try_host_array<T>(n_);
    return host_a_ && host_b_ && host_h_;
  }
  void prepare(std::uint64_t seed, cudaStream_t stream) {
    parallel_chunks(n_, default_chunks(n_), [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t i = begin; i < end; ++i) {
        host_a_[i] = recurrence_multiplier<T>(seed, i);
        host_b_[i] = input_value<T>(~seed, i);
      }
    });
    ZOO_CUDA(cudaMemcpyAsync(a_.pointer, host_a_.get(), array_bytes(), cudaMemcpyHostToDevice, stream));
    ZOO_CUDA(cudaMemcpyAsync(b_.pointer, host_b_.get(), array_bytes(), cudaMemcpyHostToDevice, stream));
    ZOO_CUDA(cudaMemsetAsync(h_.pointer, kPoisonByte, array_bytes(), stream));
  }
  template <class Variant>
  void run(Workspace, cudaStream_t stream) const {
    Variant::template run<T>(a_.as<const T>(), b_.as<const T>(), h_.as<T>(), scan_zoo::Shape{rows(), length_}, stream);
  }
  void download(cudaStream_t stream) {
    ZOO_CUDA(cudaMemcpyAsync(host_h_.get(), h_.pointer, array_bytes(), cudaMemcpyDeviceToHost, stream));
  }
  // The loop in double, row by row (restarting at each row's first element), compared exactly.
  VerifyResult verify() const {
    const T* a = host_a_.get();
    const T* b = host_b_.get();
    const T* got = host_h_.get();
    const std::int64_t length = length_;
    return chunked_scan_check(
        n_, 0, HeadedMap{1, 0, false},
        [=](std::int64_t i) { return HeadedMap{double(a[i]), double(b[i]), i % length == 0}; }, compose_restarting,
        [&](VerifyResult& result, std::int64_t i, HeadedMap, HeadedMap after) {
          const T want = static_cast<T>(after.b);
          if (!same_value(want, got[i])) result.record(i, want, got[i]);
        });
  }
  const T* output() const { return host_h_.get(); }
  std::int64_t output_count() const { return n_; }
  double bytes_moved() const { return double(device_bytes()); }

 private:
  std::size_t array_bytes() const { return checked_bytes(n_, sizeof(T)); }
  std::int64_t rows() const { return length_ > 0 ? n_ / length_ : 0; }

  std::int64_t n_, length_;
  DeviceBuffer a_, b_, h_;
  std::unique_ptr<T[]> host_a_, host_b_, host_h_;
};

}  // namespace zoo

namespace {

struct LinearRecurrence : zoo::VariantDefaults {
  static constexpr bool kHandsOverAcrossTiles = true;
  template <class T, class Op>
  using Problem = zoo::RecurrenceProblem<T, Op>;
  using Types = zoo::TypeList<float>;
  static constexpr std::int64_t kTileItems = scan_zoo::detail::RowsScan<scan_zoo::Affine<float>>::Config::kTileItems;

  // The library keeps its own workspace, as row_scan's does (axis_problem.cuh).
  template <class T>
  static void run(const T* a, const T* b, T* h, const scan_zoo::Shape& shape, cudaStream_t stream) {
    static scan_zoo::Workspace workspace;
    ZOO_CUDA(scan_zoo::linear_recurrence(a, b, h, shape, workspace, stream));
  }
};

}  // namespace

ZOO_MAIN(LinearRecurrence)
