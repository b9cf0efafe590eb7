// cub_column_scans -- every column of a [rows, columns] array scanned by its own call of NVIDIA
// CUB's cub::DeviceScan, through strided iterators: what a CUB user writes for a scan down
// columns (CUB has no strided or batched scan). The reference row for column_scan.
//
// Idea: for c in columns: DeviceScan::InclusiveScan over in[c], in[c + C], in[c + 2C], ... (a
// transform iterator over a counting iterator) into out at the same places (a permutation
// iterator), all in one stream with one temporary storage. Each call launches CUB's two kernels,
// and each reads one element of every row: a 32-byte sector serves one 4-byte element, so a call
// moves 8 times the bytes it uses unless the other columns' calls find the sectors in L2.
//
// Work: O(N); depth: columns x (O(log tile) + the look-back) in sequence. Launches: 2 per column.
// Global traffic: 2 accesses per element at best (L2 catching the sectors the columns share), up
// to 16 when it does not: far from the copy's bound for any shape, launch-bound for many columns.
//
// Constraints: int32, float32, int64; sum, max, min; exclusive columns start with the identity;
// in place. N < 2^31 uses CUB's 32-bit offsets.
//
// In the charts: the columns sweep, beside column_scan (bench/NOTES.md, "Scans along an axis").
//
// Run: make bin/cub_column_scans && ./bin/cub_column_scans 2^23 --columns 64
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../baselines/cub_reference.cuh"
#include "../harness/harness.cuh"
#include "axis_problem.cuh"

namespace {

// The index of row i of one column: first + i x stride.
struct Strided {
  std::int64_t first, stride;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return first + i * stride; }
};

struct CubColumnScans : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::ColumnsScanProblem<T, Op>;
  // The types of the sweep's targets, as for CUB's row references (cub_row_scans).
  using Types = zoo::TypeList<std::int32_t, float, std::int64_t>;

  template <class T, class Op, class NumItems>
  static cudaError_t column_scan(void* storage, std::size_t& bytes, const T* in, T* out, std::int64_t column,
                                 std::int64_t columns, NumItems rows, zoo::ScanKind kind, cudaStream_t stream) {
    const auto index = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), Strided{column, columns});
    const auto column_in = thrust::make_permutation_iterator(in, index);
    const auto column_out = thrust::make_permutation_iterator(out, index);
    using CubOp = typename CubOperator<Op>::type;
    return kind == zoo::ScanKind::Inclusive
               ? cub::DeviceScan::InclusiveScan(storage, bytes, column_in, column_out, CubOp{}, rows, stream)
               : cub::DeviceScan::ExclusiveScan(storage, bytes, column_in, column_out, CubOp{},
                                                Op::template identity<T>(), rows, stream);
  }

  template <class T, class Op>
  static cudaError_t dispatch(void* storage, std::size_t& bytes, const T* in, T* out, std::int64_t column,
                              std::int64_t columns, std::int64_t rows, zoo::ScanKind kind, cudaStream_t stream) {
    return with_cub_offsets(rows, [&](auto items) {
      return column_scan<T, Op>(storage, bytes, in, out, column, columns, items, kind, stream);
    });
  }

  // Enough for one call on a column of any length up to n.
  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return cub_storage_bytes([&](std::size_t& bytes, zoo::ScanKind kind) {
      return dispatch<T, Op>(nullptr, bytes, nullptr, nullptr, 0, 1, n, kind, nullptr);
    });
  }

  template <class T, class Op>
  static void run(const T* in, T* out, const scan_zoo::Shape& shape, zoo::ScanKind kind, zoo::Workspace workspace,
                  cudaStream_t stream) {
    for (std::int64_t column = 0; column < shape.inner; ++column) {
      std::size_t bytes = workspace.bytes;  // no size query inside the timed region
      ZOO_CUDA((dispatch<T, Op>(workspace.data, bytes, in, out, column, shape.inner, shape.length, kind, stream)));
    }
  }
};

}  // namespace

ZOO_MAIN(CubColumnScans)
