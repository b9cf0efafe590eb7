// cub_row_scans -- every row of a [rows, length] array scanned by its own call of NVIDIA CUB's
// cub::DeviceScan: the loop a user writes when the library has no batched scan. The second
// reference row for row_scan.
//
// Idea: for r in rows: DeviceScan::InclusiveScan(row r) (CubScan, src/baselines/cub_reference.cuh),
// all in one stream, reusing one temporary storage. Each call launches CUB's two kernels (tile
// state, then the scan), so a shape of many short rows costs two launches per row: the launch
// rate, not the memory, bounds it, and a row shorter than a tile leaves most of the GPU idle.
//
// Work: O(N); depth: rows x (O(log tile) + the look-back) in sequence. Launches: 2 per row.
// Global traffic: 2 accesses per element: the bound is a copy of the same bytes, reached only by
// long rows.
//
// Constraints: int32, float32, int64; sum, max, min; exclusive rows start with the identity; in place.
//
// In the charts: the rows sweep, beside cub_row_scan_by_key (bench/NOTES.md, "Scans along an axis").
//
// Run: make bin/cub_row_scans && ./bin/cub_row_scans 2^20 --row-length 131072
#include <cub/device/device_scan.cuh>

#include "../baselines/cub_reference.cuh"
#include "../harness/harness.cuh"
#include "axis_problem.cuh"

namespace {

struct CubRowScans : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::RowsScanProblem<T, Op>;
  // The types of the rows sweep's targets (int32, float32, int64): CUB's kernels for every type
  // would triple the compile for no row of the sweep.
  using Types = zoo::TypeList<std::int32_t, float, std::int64_t>;

  // Enough for one call on any row: CUB's storage grows with the elements of a call, and a row
  // has at most n.
  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return CubScan::workspace_bytes<T, Op>(n);
  }

  template <class T, class Op>
  static void run(const T* in, T* out, const scan_zoo::Shape& rows, zoo::ScanKind kind, zoo::Workspace workspace,
                  cudaStream_t stream) {
    for (std::int64_t r = 0; r < rows.outer; ++r) {
      std::size_t bytes = workspace.bytes;  // no size query inside the timed region
      ZOO_CUDA((CubScan::dispatch<T, Op>(workspace.data, bytes, in + r * rows.length, out + r * rows.length,
                                         rows.length, kind, stream)));
    }
  }
};

}  // namespace

ZOO_MAIN(CubRowScans)
