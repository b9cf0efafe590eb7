// scan_zoo/segmented.cuh -- scans of segments given by offsets: every segment of an array scanned
// on its own, in one launch, whatever the segments' lengths (ragged batches, the rows of a
// sparse matrix in CSR form, variable-length sequences). CUB's DeviceSegmentedScan in the
// library's style. Header-only, like scan.cuh; a preview, as axis.cuh is (outside version
// 1.0's promise, CHANGELOG.md).
//
//   #include <scan_zoo/segmented.cuh>
//
//   scan_zoo::Workspace workspace;
//   // CSR row offsets (rows + 1 of them): each row's prefix sums
//   cudaError_t e = scan_zoo::inclusive_segmented_scan(d_values, d_sums, nnz, d_row_offsets, d_row_offsets + 1,
//                                                      rows, scan_zoo::Plus{}, workspace, stream);
//
//   inclusive_segmented_scan(in, out, n, begin_offsets, end_offsets, segments, op, workspace, stream = 0)
//   exclusive_segmented_scan(in, out, n, begin_offsets, end_offsets, segments, initial, op, workspace,
//                            stream = 0)
//       in and out hold n elements; segment s is in[begin_offsets[s] .. end_offsets[s] - 1], and
//       each segment is scanned on its own (the exclusive scan starts each with `initial`).
//
// The segments (device memory, 32- or 64-bit integers, `segments` of each): ascending and
// disjoint, begin_offsets[s] <= begin_offsets[s + 1] and end_offsets[s] <= begin_offsets[s + 1],
// within [0, n]. A segment with end <= begin is empty (as in CUB). Elements outside every segment
// are left as they are in `out` (not written). Unlike CUB's, the segments must come in order:
// that is what lets tiles be cut from the whole array, so that one long segment spreads over
// many blocks (CUB gives each segment one block); their order is not checked (a check would
// read the offsets once more), and offsets out of order give wrong results, never a fault
// outside [0, n).
// Everything else is scan.cuh's: In -> Acc -> Out types, operators as values, the initial value
// as a value or device_value(pointer), errors returned, the Workspace and its contract;
// workspace_bytes<Acc>(n) is enough. Errors: cudaErrorInvalidValue for a negative n or segment
// count, a null pointer where there is something to scan, in == out with In and Out of
// different sizes.
//
// How: the row kernel of axis.cuh (detail/rows_kernel.cuh: the array as one line under a lifted
// operator that restarts at every segment start, a look-back that stops at the nearest start)
// with the starts read from the offsets instead of computed (detail/segment_starts.cuh: each
// tile searches the offsets for its first segment and marks its starts and gaps in shared
// memory). Forward progress: as scan.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "axis.cuh"
#include "detail/segment_starts.cuh"

namespace scan_zoo {

namespace detail {

template <class AccChoice, class In, class Out, class Offset, class Init, class Op>
cudaError_t segmented_scan(const In* in, Out* out, std::int64_t n, const Offset* begin_offsets,
                           const Offset* end_offsets, std::int64_t segments, ScanKind kind, const Init& initial,
                           const Op& op, Workspace& workspace, cudaStream_t stream) {
  using Acc = accumulator_t<AccChoice, Out>;
  static_assert(std::is_integral<Offset>::value, "scan_zoo: segment offsets are integers");
  if constexpr (check_scannable<In, Out, Acc, Op>()) {
    if (refuses(in, out, n, kAutomatic) || segments < 0 ||
        (n > 0 && segments > 0 && (begin_offsets == nullptr || end_offsets == nullptr)))
      return cudaErrorInvalidValue;
    if (n == 0 || segments == 0) return cudaSuccess;  // nothing in a segment
    const ScanArgs<In, Out, Acc, Op> args{in, out, n, kind == ScanKind::Exclusive, front_of<Acc>(initial, op), op};
    return scan_lines(args, SegmentStarts<Offset>{begin_offsets, end_offsets, segments, n}, workspace, stream);
  } else {
    return cudaErrorInvalidValue;  // unreachable: a static_assert above has failed
  }
}

}  // namespace detail

template <class AccChoice = UseDefault, class In, class Out, class Offset, class Op>
cudaError_t inclusive_segmented_scan(const In* in, Out* out, std::int64_t n, const Offset* begin_offsets,
                                     const Offset* end_offsets, std::int64_t segments, Op op, Workspace& workspace,
                                     cudaStream_t stream = 0) {
  return detail::segmented_scan<AccChoice>(in, out, n, begin_offsets, end_offsets, segments,
                                           detail::ScanKind::Inclusive, detail::IdentityInFront{}, op, workspace,
                                           stream);
}

template <class AccChoice = UseDefault, class In, class Out, class Offset, class Init, class Op>
cudaError_t exclusive_segmented_scan(const In* in, Out* out, std::int64_t n, const Offset* begin_offsets,
                                     const Offset* end_offsets, std::int64_t segments, const Init& initial, Op op,
                                     Workspace& workspace, cudaStream_t stream = 0) {
  return detail::segmented_scan<AccChoice>(in, out, n, begin_offsets, end_offsets, segments,
                                           detail::ScanKind::Exclusive, initial, op, workspace, stream);
}

}  // namespace scan_zoo
