// cub_row_scan_by_key -- every row of a [rows, length] array scanned on its own with NVIDIA
// CUB's scan-by-key, the row number of each element as its key: how a CUB 3.0 user scans rows in
// one call. The reference row for row_scan.
//
// Idea: cub::DeviceScan::InclusiveScanByKey / ExclusiveScanByKey (and the Sum shorthands) restart
// the scan wherever the key changes. The keys are computed, not stored: a transform iterator over
// a counting iterator gives element i the key i / length, so CUB reads no key bytes (a stored
// int32 key would add half of an int32 scan's traffic). Inside, CUB runs its single-pass
// decoupled look-back over (key, value) pairs: each tile publishes its last key beside its
// reduction since that key's run began.
//
// Work: O(N); depth: O(log tile) + the look-back. Launches: 2 (tile-state initialisation, then
// the scan). Global traffic: 2 accesses per element (the keys are arithmetic): the bound is a
// copy of the same bytes. CUB's tile descriptors hold a key and a value, twice the 1-D scan's.
//
// Constraints: int32, float32, int64; sum, max, min (cuda::std::plus, cuda::maximum, cuda::minimum);
// exclusive scans start every row with the identity; in place. N < 2^31 uses CUB's 32-bit offsets.
//
// In the charts: the rows sweep's dashed CUB reference (bench/NOTES.md, "Scans along an axis").
//
// Run: make bin/cub_row_scan_by_key && ./bin/cub_row_scan_by_key 2^20 --row-length 131072
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../baselines/cub_reference.cuh"
#include "../harness/harness.cuh"
#include "axis_problem.cuh"

namespace {

// Element i's key: its row.
struct RowOf {
  std::int64_t length;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i / length; }
};

struct CubRowScanByKey : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::RowsScanProblem<T, Op>;
  // The types of the rows sweep's targets (int32, float32, int64): CUB's kernels for every type
  // would triple the compile for no row of the sweep.
  using Types = zoo::TypeList<std::int32_t, float, std::int64_t>;

  template <class T, class Op, class NumItems>
  static cudaError_t scan_by_key(void* storage, std::size_t& bytes, const T* in, T* out, std::int64_t length,
                                 NumItems n, zoo::ScanKind kind, cudaStream_t stream) {
    const auto keys = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), RowOf{length});
    const bool inclusive = kind == zoo::ScanKind::Inclusive;
    const cuda::std::equal_to<> same_row;
    if constexpr (std::is_same_v<Op, zoo::Sum>) {
      return inclusive ? cub::DeviceScan::InclusiveSumByKey(storage, bytes, keys, in, out, n, same_row, stream)
                       : cub::DeviceScan::ExclusiveSumByKey(storage, bytes, keys, in, out, n, same_row, stream);
    } else {
      using CubOp = typename CubOperator<Op>::type;
      return inclusive ? cub::DeviceScan::InclusiveScanByKey(storage, bytes, keys, in, out, CubOp{}, n, same_row,
                                                             stream)
                       : cub::DeviceScan::ExclusiveScanByKey(storage, bytes, keys, in, out, CubOp{},
                                                             Op::template identity<T>(), n, same_row, stream);
    }
  }

  template <class T, class Op>
  static cudaError_t dispatch(void* storage, std::size_t& bytes, const T* in, T* out, std::int64_t length,
                              std::int64_t n, zoo::ScanKind kind, cudaStream_t stream) {
    return with_cub_offsets(
        n, [&](auto items) { return scan_by_key<T, Op>(storage, bytes, in, out, length, items, kind, stream); });
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return cub_storage_bytes([&](std::size_t& bytes, zoo::ScanKind kind) {
      return dispatch<T, Op>(nullptr, bytes, nullptr, nullptr, 1, n, kind, nullptr);
    });
  }

  template <class T, class Op>
  static void run(const T* in, T* out, const scan_zoo::Shape& rows, zoo::ScanKind kind, zoo::Workspace workspace,
                  cudaStream_t stream) {
    std::size_t bytes = workspace.bytes;  // no size query inside the timed region
    ZOO_CUDA((dispatch<T, Op>(workspace.data, bytes, in, out, rows.length, rows.outer * rows.length, kind, stream)));
  }
};

}  // namespace

ZOO_MAIN(CubRowScanByKey)
