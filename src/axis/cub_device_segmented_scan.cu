// cub_device_segmented_scan -- every row of a [rows, length] array scanned on its own by NVIDIA
// CUB's DeviceSegmentedScan, the batched scan newer CCCLs add (3.3 on; the toolkit's CCCL 3.0 has
// none): the third reference row for row_scan, beside scan-by-key and a call per row.
//
// Idea: cub::DeviceSegmentedScan::InclusiveSegmentedScan / ExclusiveSegmentedScan over segments
// given by begin and end offsets, here computed (transform iterators over a counting iterator:
// row r is [r L, (r + 1) L)), so no offset is read. Inside, CUB gives each segment to one thread
// block (its `block` worker), which scans the segment tile by tile with a running carry: no
// look-back, and as many blocks at work as there are rows, so a few long rows keep a few SMs
// busy (the issue of CCCL's optimisation epic) while many short rows fill the GPU.
//
// Work: O(N); depth: O(length / tile) tiles in sequence per row. Launches: 1.
// Global traffic: 2 accesses per element: the bound is a copy of the same bytes, reached only
// with enough rows.
//
// Constraints: int32, float32, int64; sum, max, min; exclusive rows start with the identity; in
// place. Built against the headers of the Python package index's nvidia-cuda-cccl
// (build/cccl-new, scripts/cccl_new.sh; make leaves the binary out without them, saying so).
//
// In the charts: the rows sweep, beside cub_row_scan_by_key and cub_row_scans (bench/NOTES.md,
// "Scans along an axis").
//
// Run: make bin/cub_device_segmented_scan && ./bin/cub_device_segmented_scan 2^20 --row-length 131072
//      (after make cccl-new, once: the headers must be there when make reads its rules)
#include <cub/device/device_segmented_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../baselines/cub_reference.cuh"
#include "../harness/harness.cuh"
#include "axis_problem.cuh"

namespace {

// Where row r starts: r x length.
struct RowStart {
  std::int64_t length;
  __host__ __device__ std::int64_t operator()(std::int64_t r) const { return r * length; }
};

struct CubDeviceSegmentedScan : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::RowsScanProblem<T, Op>;
  // The types of the sweep's targets, as for CUB's other row references.
  using Types = zoo::TypeList<std::int32_t, float, std::int64_t>;

  template <class T, class Op>
  static cudaError_t segmented_scan(void* storage, std::size_t& bytes, const T* in, T* out, const scan_zoo::Shape& rows,
                                    zoo::ScanKind kind, cudaStream_t stream) {
    const auto begins = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), RowStart{rows.length});
    const auto ends = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(1), RowStart{rows.length});
    using CubOp = typename CubOperator<Op>::type;
    return kind == zoo::ScanKind::Inclusive
               ? cub::DeviceSegmentedScan::InclusiveSegmentedScan(storage, bytes, in, out, begins, ends, rows.outer,
                                                                  CubOp{}, stream)
               : cub::DeviceSegmentedScan::ExclusiveSegmentedScan(storage, bytes, in, out, begins, ends, rows.outer,
                                                                  CubOp{}, Op::template identity<T>(), stream);
  }

  // CUB's storage for the most rows n elements can hold (rows of one element).
  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return cub_storage_bytes([&](std::size_t& bytes, zoo::ScanKind kind) {
      return segmented_scan<T, Op>(nullptr, bytes, nullptr, nullptr, scan_zoo::Shape{n, 1}, kind, nullptr);
    });
  }

  template <class T, class Op>
  static void run(const T* in, T* out, const scan_zoo::Shape& rows, zoo::ScanKind kind, zoo::Workspace workspace,
                  cudaStream_t stream) {
    std::size_t bytes = workspace.bytes;  // no size query inside the timed region
    ZOO_CUDA((segmented_scan<T, Op>(workspace.data, bytes, in, out, rows, kind, stream)));
  }
};

}  // namespace

ZOO_MAIN(CubDeviceSegmentedScan)
