// scan_zoo/axis.cuh -- scans along one axis of a batched array: every row of a matrix at once
// (torch.cumsum(x, -1), offsets per row of a sparse matrix, top-p over a vocabulary), in one
// launch, whatever the row length. Header-only, like scan.cuh (which it includes).
//
//   #include <scan_zoo/axis.cuh>
//
//   scan_zoo::Workspace workspace;
//   // cumsum along the last axis of a float [8, 131072] tensor:
//   cudaError_t e = scan_zoo::inclusive_scan(d_x, d_y, scan_zoo::Shape{8, 131072}, scan_zoo::Plus{}, workspace, stream);
//
// The array is seen as [outer, length, inner], contiguous and row-major; the scan runs along
// `length`, each of the outer x inner lines on its own. inner = 1 (the default) is the rows of an
// [outer, length] matrix, the last axis of any tensor. (inner > 1, a middle axis such as
// torch.cumsum(x, 0) of a matrix, is not implemented yet: it returns cudaErrorNotSupported.)
//
// The six scans of scan.cuh take a Shape where they take n, with the same meaning per line:
//   inclusive_scan(in, out, shape, op, workspace, stream = 0, options = {})
//   inclusive_scan_init, exclusive_scan (an initial value in front of every line), and their
//   reverse_ forms (each line scanned from its end: the suffix sums along the axis).
// Everything else is scan.cuh's: In -> Acc -> Out types, operators as values (state included),
// the initial value as a value or device_value(pointer), errors returned, the Workspace and its
// contract (workspace_bytes<Acc>(outer x length x inner) is enough for any of these scans).
// Options: `total` receives the outer x inner line totals (row-major, initial value included;
// allocate that many Out); `config` must stay kAutomatic (the configurations of the table are the
// 1-D scan's); Determinism::RunToRun is not implemented for axis scans yet (a compile error says so).
// Errors: cudaErrorInvalidValue for a negative extent, outer x length x inner beyond 2^63 - 1, a
// null pointer with elements to scan, in == out with In and Out of different sizes, or a forced
// configuration; else scan.cuh's.
//
// How (detail/rows_kernel.cuh): the rows laid end to end are one array, and scanning every row is
// a segmented scan of it, a plain scan under a lifted operator with a row starting every `length`
// elements; so the one-launch look-back kernel of scan.cuh runs over the flattened array, with
// tiles that ignore where rows end (every tile whole and aligned, short rows or long), and the
// look-back stopping at the nearest tile that holds a row start.
// Forward progress: as scan.cuh (blocks dispatched in blockIdx.x order; a tile waits only on
// tiles with smaller indices).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "detail/rows_kernel.cuh"
#include "scan.cuh"

namespace scan_zoo {

// A contiguous row-major array seen as [outer, length, inner]; the scan runs along `length`.
struct Shape {
  std::int64_t outer = 1;
  std::int64_t length = 0;
  std::int64_t inner = 1;
};

namespace detail {

// The number the row kernel's descriptors go by in the workspace's bookkeeping (descriptor_layout):
// after every configuration of the table.
inline constexpr int kRowsKernel = TunedDispatch::kConfigCount;

// outer x length x inner, or -1 when an extent is negative or the product passes 2^63 - 1.
inline std::int64_t element_count(const Shape& shape) {
  if (shape.outer < 0 || shape.length < 0 || shape.inner < 0) return -1;
  if (shape.outer == 0 || shape.length == 0 || shape.inner == 0) return 0;
  std::int64_t count = 1;
  for (const std::int64_t extent : {shape.outer, shape.length, shape.inner}) {
    if (count > INT64_MAX / extent) return -1;
    count *= extent;
  }
  return count;
}

template <class AccChoice, bool Reverse, class In, class Out, class Init, class Op, Determinism D>
cudaError_t scan_along(const In* in, Out* out, const Shape& shape, ScanKind kind, const Init& initial, const Op& op,
                       Workspace& workspace, cudaStream_t stream, const Options<Out, D>& options) {
  using Acc = accumulator_t<AccChoice, Out>;
  static_assert(D == Determinism::NotGuaranteed,
                "scan_zoo: Determinism::RunToRun is not implemented for scans along an axis yet");
  if constexpr (check_scannable<In, Out, Acc, Op>()) {
    const std::int64_t n = element_count(shape);
    const std::int64_t lines = element_count(Shape{shape.outer, 1, shape.inner});
    if (refuses(in, out, n, options.config) || lines < 0 || options.config != kAutomatic) return cudaErrorInvalidValue;
    if (shape.inner != 1) return cudaErrorNotSupported;
    const ScanFront<Acc> front = front_of<Acc>(initial, op);
    if (n == 0) return write_fronts(front, op, options.total, lines, stream);
    const std::size_t bytes = RowsScan::workspace_bytes<Acc>(n);
    const std::uint64_t layout = descriptor_layout<Acc>(kRowsKernel, ceil_div(n, RowsScan::Config::kTileItems));
    std::uint32_t epoch = 0;
    if (const cudaError_t error = WorkspaceAccess::prepare(workspace, bytes, layout, stream, epoch);
        error != cudaSuccess)
      return error;
    const Scratch memory = WorkspaceAccess::memory(workspace);
    const ScanArgs<In, Out, Acc, Op, Reverse> args{in, out, n, kind == ScanKind::Exclusive, front, op, options.total};
    return RowsScan::launch(args, shape.length, {memory.data, bytes}, epoch, stream);
  } else {
    return cudaErrorInvalidValue;  // unreachable: a static_assert above has failed
  }
}

}  // namespace detail

// The six scans of scan.cuh along one axis of `shape` (the top of this file).
template <class AccChoice = UseDefault, class In, class Out, class Op, Determinism D = Determinism::NotGuaranteed>
cudaError_t inclusive_scan(const In* in, Out* out, const Shape& shape, Op op, Workspace& workspace,
                           cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan_along<AccChoice, false>(in, out, shape, detail::ScanKind::Inclusive, detail::IdentityInFront{},
                                              op, workspace, stream, options);
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t inclusive_scan_init(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                                Workspace& workspace, cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan_along<AccChoice, false>(in, out, shape, detail::ScanKind::Inclusive, initial, op, workspace,
                                              stream, options);
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t exclusive_scan(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                           Workspace& workspace, cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan_along<AccChoice, false>(in, out, shape, detail::ScanKind::Exclusive, initial, op, workspace,
                                              stream, options);
}

template <class AccChoice = UseDefault, class In, class Out, class Op, Determinism D = Determinism::NotGuaranteed>
cudaError_t reverse_inclusive_scan(const In* in, Out* out, const Shape& shape, Op op, Workspace& workspace,
                                   cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan_along<AccChoice, true>(in, out, shape, detail::ScanKind::Inclusive, detail::IdentityInFront{},
                                             op, workspace, stream, options);
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t reverse_inclusive_scan_init(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                                        Workspace& workspace, cudaStream_t stream = 0,
                                        const Options<Out, D>& options = {}) {
  return detail::scan_along<AccChoice, true>(in, out, shape, detail::ScanKind::Inclusive, initial, op, workspace,
                                             stream, options);
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t reverse_exclusive_scan(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                                   Workspace& workspace, cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan_along<AccChoice, true>(in, out, shape, detail::ScanKind::Exclusive, initial, op, workspace,
                                             stream, options);
}

}  // namespace scan_zoo
