// scan_zoo/axis.cuh -- scans along one axis of a batched array: every row of a matrix at once
// (torch.cumsum(x, -1), offsets per row of a sparse matrix, top-p over a vocabulary) or every
// column (torch.cumsum(x, 0)), in one launch, whatever the shape. Header-only, like scan.cuh
// (which it includes). A preview: outside version 1.0's promise (CHANGELOG.md), its interface
// may still change in 1.x.
//
//   #include <scan_zoo/axis.cuh>
//
//   scan_zoo::Workspace workspace;
//   // cumsum along the last axis of a float [8, 131072] tensor:
//   cudaError_t e = scan_zoo::inclusive_scan(d_x, d_y, scan_zoo::Shape{8, 131072}, scan_zoo::Plus{}, workspace, stream);
//   // along the first axis of a [131072, 64] tensor (every column):
//   e = scan_zoo::inclusive_scan(d_x, d_y, scan_zoo::Shape{1, 131072, 64}, scan_zoo::Plus{}, workspace, stream);
//
// The array is seen as [outer, length, inner], contiguous and row-major; the scan runs along
// `length`, each of the outer x inner lines on its own. inner = 1 (the default) is the rows of an
// [outer, length] matrix, the last axis of any tensor; outer = 1 the columns of a [length, inner]
// matrix; both more than 1 a middle axis (dim 1 of a [batch, length, channels] tensor).
//
// The six scans of scan.cuh take a Shape where they take n, with the same meaning per line:
//   inclusive_scan(in, out, shape, op, workspace, stream = 0, options = {})
//   inclusive_scan_init, exclusive_scan (an initial value in front of every line), and their
//   reverse_ forms (each line scanned from its end: the suffix sums along the axis).
// Everything else is scan.cuh's: In -> Acc -> Out types, operators as values (state included),
// the initial value as a value or device_value(pointer), errors returned, the Workspace and its
// contract, except its size: workspace_bytes<Acc, In>(shape) (below; In only when wider than
// Acc) is enough for a scan of `shape`.
// Options: `total` receives the outer x inner line totals (row-major, [outer, inner], initial
// value included; allocate that many Out; a call without Options asks for none, and compiles
// the row kernel only in its form without them); `config` must stay kAutomatic (the
// configurations of the table are the 1-D scan's); Determinism as scan.cuh's: RunToRun runs
// every kernel below with its look-back in a fixed order (the same bits in every run: the row
// kernel's chain of windows starts where each row starts, the column kernel's at each column
// block's first band), and ChosenAtRunTime compiles both look-backs, `run_to_run` choosing per
// call. ChosenAtRunTime is the form for a build that counts its kernels (the Python package's):
// it writes no line totals, so that the row kernel is compiled once (LineTotals, below).
// Errors: cudaErrorInvalidValue for a negative extent, outer x length x inner beyond 2^63 - 1, a
// null pointer with elements to scan, in == out with In and Out of different sizes, a forced
// configuration, a column scan of more than 2^31 - 1 tiles, or line totals asked of
// ChosenAtRunTime; else scan.cuh's.
//
// How: rows (inner = 1, detail/rows_kernel.cuh): the rows laid end to end are one array, and
// scanning every row is a segmented scan of it, a plain scan under a lifted operator with a row
// starting every `length` elements; so the one-launch look-back kernel of scan.cuh runs over the
// flattened array, with tiles that ignore where rows end (every tile whole and aligned, short
// rows or long), and the look-back stopping at the nearest tile that holds a row start.
// Two to four columns (inner = 2, 3, 4, detail/narrow_columns.cuh): each row one item, the
// operator applied column by column; one slab of them is scan.cuh's 1-D kernel, and the slabs of
// a middle axis, for two columns, the row kernel's rows.
// Columns (inner > 1, detail/columns_kernel.cuh): tiles of rows x columns copied into shared
// memory a row at a time, each thread scanning its columns down a chunk of rows there, and a
// look-back down the bands of each column block whose descriptors hold a value per column.
// Forward progress: as scan.cuh (blocks dispatched in blockIdx.x order; a tile waits only on
// tiles with smaller indices).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "detail/columns_kernel.cuh"
#include "detail/narrow_columns.cuh"
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

// Where the column kernel's descriptor words lie: a layout of its own for every geometry and
// accumulator size, so that a workspace is zeroed whenever a column scan follows a scan of
// another shape or kernel (a word left where another layout put it may carry this run's epoch).
inline std::uint64_t columns_layout(const ColumnGeometry& g, std::size_t acc_bytes) {
  return (static_cast<std::uint64_t>(g.tiles()) << 24) ^ (std::uint64_t(g.width) << 12) ^
         (std::uint64_t(TunedDispatch::kConfigCount + 1) << 8) ^ (acc_bytes << 1) ^ 1u;
}

// The column scan's geometry for this shape and these pointers (ColumnsScan::vector_for).
template <class In, class Out, class Acc>
ColumnGeometry columns_geometry(const Shape& shape, typename InputPointer<In>::type in,
                                typename OutputPointer<Out>::type out) {
  using Columns = ColumnsScan<>;
  return ColumnGeometry::make<ColumnsDefaultConfig>(shape.outer, shape.length, shape.inner,
                                                    Columns::vector_for<In, Out, Acc>(shape.inner, in, out),
                                                    kColumnsElementBytes<In, Acc>);
}

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

// Makes the workspace ready for a register-tile kernel (the 1-D kernel or the row kernel) of
// `bytes` of descriptors over `tiles` tiles, numbered `kernel` in the workspace's bookkeeping
// (descriptor_layout: a workspace last used by another kernel or size is zeroed first), then
// starts it: `launch(scratch, epoch)`.
template <class Acc, class Launch>
cudaError_t run_in_workspace(int kernel, std::size_t bytes, std::int64_t tiles, Workspace& workspace,
                             cudaStream_t stream, Launch launch) {
  std::uint32_t epoch = 0;
  if (const cudaError_t error =
          WorkspaceAccess::prepare(workspace, bytes, descriptor_layout<Acc>(kernel, tiles), stream, epoch);
      error != cudaSuccess)
    return error;
  return launch(Scratch{WorkspaceAccess::memory(workspace).data, bytes}, epoch);
}

// The row kernel over args.n > 0 elements, its lines where `starts` says (RowStarts here,
// SegmentStarts for segmented.cuh).
template <class Args, class Starts>
cudaError_t scan_lines(const Args& args, const Starts& starts, Workspace& workspace, cudaStream_t stream) {
  using Acc = typename Args::AccT;
  using Scan = RowsScan<Acc>;
  return run_in_workspace<Acc>(kRowsKernel, Scan::workspace_bytes(args.n), ceil_div(args.n, Scan::Config::kTileItems),
                               workspace, stream, [&](Scratch scratch, std::uint32_t epoch) {
                                 return Scan::launch(args, starts, scratch, epoch, stream);
                               });
}

// Whether a scan along an axis may be asked for its line totals (Options::total): a call without
// Options never is, nor one under Determinism::ChosenAtRunTime, and then the row kernel is
// compiled without them alone, not beside its form that writes them (RowStarts<true>), which a
// build that makes only such calls (the Python package's) need not compile (bench/NOTES.md,
// "torch's scan ops: the build under five minutes").
enum class LineTotals { Possible, Never };
template <Determinism D>
inline constexpr LineTotals totals_for = D == Determinism::ChosenAtRunTime ? LineTotals::Never : LineTotals::Possible;

// The row kernel over lines of `length` elements each, with their totals when args.total asks.
template <LineTotals Totals, class Args>
cudaError_t scan_rows(const Args& args, std::int64_t length, Workspace& workspace, cudaStream_t stream) {
  if constexpr (Totals == LineTotals::Possible)
    if (args.total) return scan_lines(args, RowStarts<true>{length}, workspace, stream);
  return scan_lines(args, RowStarts<false>{length}, workspace, stream);
}

// The number the descriptors of one slab of rows as items go by in the workspace's bookkeeping:
// after the row and column kernels'.
inline constexpr int kFlatRowsKernel = TunedDispatch::kConfigCount + 2;

// One slab of two to four columns as the 1-D kernel's scan of its rows (narrow_columns.cuh).
template <class Args>
cudaError_t scan_flat_rows(const Args& args, Workspace& workspace, cudaStream_t stream) {
  using Acc = typename Args::AccT;
  using Config = FlatRowsConfig<Acc::kColumns>;
  using Scan = TunedScan<Config>;
  return run_in_workspace<Acc>(kFlatRowsKernel, Scan::template workspace_bytes<Acc>(args.n),
                               ceil_div(args.n, Config::kTileItems), workspace, stream,
                               [&](Scratch scratch, std::uint32_t epoch) { return Scan::launch(args, scratch, epoch, stream); });
}

// A zipped input (zip.cuh) refuses what a pointer does, for each of its arrays.
template <class A, class B, class Out>
bool refuses(ZipPointer<A, B> in, const Out* out, std::int64_t n, int config) {
  return refuses(in.first, out, n, config) || refuses(in.second, out, n, config);
}

// A split output (indexed_elements.cuh) refuses what a pointer does, for each of its arrays (its
// indices may be null: the values alone).
template <class In, class T, class I>
bool refuses(const In* in, SplitPointer<T, I> out, std::int64_t n, int config) {
  return refuses(in, out.values, n, config) || (out.indices != nullptr && refuses(in, out.indices, n, config));
}

// The scan of `shape` along its axis. In: the element type, read through InputPointer<In> (a
// pointer, or two arrays zipped); Out written through OutputPointer<Out> (a pointer, or a value
// and an index array); Totals: whether options.total may be set.
template <class AccChoice, bool Reverse, class In, LineTotals Totals, class Out, class Init, class Op, Determinism D>
cudaError_t scan_along(typename InputPointer<In>::type in, typename OutputPointer<Out>::type out, const Shape& shape,
                       ScanKind kind, const Init& initial, const Op& op, Workspace& workspace, cudaStream_t stream,
                       const Options<Out, D>& options) {
  using Acc = accumulator_t<AccChoice, Out>;
  if constexpr (check_scannable<In, Out, Acc, Op>()) {
    const std::int64_t n = element_count(shape);
    const std::int64_t lines = element_count(Shape{shape.outer, 1, shape.inner});
    if (refuses(in, out, n, options.config) || lines < 0 || options.config != kAutomatic ||
        (Totals == LineTotals::Never && options.total))
      return cudaErrorInvalidValue;
    const ScanFront<Acc> front = front_of<Acc>(initial, op);
    if (n == 0) return write_fronts(front, op, options.total, lines, stream);
    const ScanArgs<In, Out, Acc, Op, Reverse, kLookbackOrder<D>> args{
        in, out, n, kind == ScanKind::Exclusive, front, op, options.total, options.run_to_run};
    if constexpr (kRowItems<In, Out, Acc, 2>)
      if (shape.inner == 2 && rows_as_items<2>(args)) {
        if constexpr (kFlatRows<Acc, 2>)
          if (shape.outer == 1) return scan_flat_rows(as_rows<2>(args), workspace, stream);
        return scan_rows<Totals>(as_rows<2>(args), shape.length, workspace, stream);
      }
    if constexpr (kRowItems<In, Out, Acc, 3>)
      if (shape.inner == 3 && shape.outer == 1 && rows_as_items<3>(args))
        return scan_flat_rows(as_rows<3>(args), workspace, stream);
    if constexpr (kRowItems<In, Out, Acc, 4>)
      if (shape.inner == 4 && shape.outer == 1 && rows_as_items<4>(args))
        return scan_flat_rows(as_rows<4>(args), workspace, stream);
    if (shape.inner > 1) {
      const ColumnGeometry g = columns_geometry<In, Out, Acc>(shape, in, out);
      if (g.tiles() > INT32_MAX) return cudaErrorInvalidValue;  // a grid of more blocks than CUDA launches
      const std::size_t bytes = ColumnsScan<>::workspace_bytes<Acc>(g);
      std::uint32_t epoch = 0;
      if (const cudaError_t error = WorkspaceAccess::prepare(workspace, bytes, columns_layout(g, sizeof(Acc)), stream, epoch);
          error != cudaSuccess)
        return error;
      const Scratch memory = WorkspaceAccess::memory(workspace);
      return ColumnsScan<>::launch(args, g, {memory.data, bytes}, epoch, stream);
    }
    return scan_rows<Totals>(args, shape.length, workspace, stream);
  } else {
    return cudaErrorInvalidValue;  // unreachable: a static_assert above has failed
  }
}

}  // namespace detail

// The six scans of scan.cuh along one axis of `shape` (the top of this file), each in two
// forms: with Options, and without (no line totals, so that the row kernel is compiled only
// without them: detail::LineTotals).
template <class AccChoice = UseDefault, class In, class Out, class Op, Determinism D = Determinism::NotGuaranteed>
cudaError_t inclusive_scan(const In* in, Out* out, const Shape& shape, Op op, Workspace& workspace, cudaStream_t stream,
                           const Options<Out, D>& options) {
  return detail::scan_along<AccChoice, false, In, detail::totals_for<D>>(
      in, out, shape, detail::ScanKind::Inclusive, detail::IdentityInFront{}, op, workspace, stream, options);
}
template <class AccChoice = UseDefault, class In, class Out, class Op>
cudaError_t inclusive_scan(const In* in, Out* out, const Shape& shape, Op op, Workspace& workspace,
                           cudaStream_t stream = 0) {
  return detail::scan_along<AccChoice, false, In, detail::LineTotals::Never>(
      in, out, shape, detail::ScanKind::Inclusive, detail::IdentityInFront{}, op, workspace, stream, Options<Out>{});
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t inclusive_scan_init(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                                Workspace& workspace, cudaStream_t stream, const Options<Out, D>& options) {
  return detail::scan_along<AccChoice, false, In, detail::totals_for<D>>(
      in, out, shape, detail::ScanKind::Inclusive, initial, op, workspace, stream, options);
}
template <class AccChoice = UseDefault, class In, class Out, class Init, class Op>
cudaError_t inclusive_scan_init(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                                Workspace& workspace, cudaStream_t stream = 0) {
  return detail::scan_along<AccChoice, false, In, detail::LineTotals::Never>(
      in, out, shape, detail::ScanKind::Inclusive, initial, op, workspace, stream, Options<Out>{});
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t exclusive_scan(const In* in, Out* out, const Shape& shape, const Init& initial, Op op, Workspace& workspace,
                           cudaStream_t stream, const Options<Out, D>& options) {
  return detail::scan_along<AccChoice, false, In, detail::totals_for<D>>(
      in, out, shape, detail::ScanKind::Exclusive, initial, op, workspace, stream, options);
}
template <class AccChoice = UseDefault, class In, class Out, class Init, class Op>
cudaError_t exclusive_scan(const In* in, Out* out, const Shape& shape, const Init& initial, Op op, Workspace& workspace,
                           cudaStream_t stream = 0) {
  return detail::scan_along<AccChoice, false, In, detail::LineTotals::Never>(
      in, out, shape, detail::ScanKind::Exclusive, initial, op, workspace, stream, Options<Out>{});
}

template <class AccChoice = UseDefault, class In, class Out, class Op, Determinism D = Determinism::NotGuaranteed>
cudaError_t reverse_inclusive_scan(const In* in, Out* out, const Shape& shape, Op op, Workspace& workspace,
                                   cudaStream_t stream, const Options<Out, D>& options) {
  return detail::scan_along<AccChoice, true, In, detail::totals_for<D>>(
      in, out, shape, detail::ScanKind::Inclusive, detail::IdentityInFront{}, op, workspace, stream, options);
}
template <class AccChoice = UseDefault, class In, class Out, class Op>
cudaError_t reverse_inclusive_scan(const In* in, Out* out, const Shape& shape, Op op, Workspace& workspace,
                                   cudaStream_t stream = 0) {
  return detail::scan_along<AccChoice, true, In, detail::LineTotals::Never>(
      in, out, shape, detail::ScanKind::Inclusive, detail::IdentityInFront{}, op, workspace, stream, Options<Out>{});
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t reverse_inclusive_scan_init(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                                        Workspace& workspace, cudaStream_t stream, const Options<Out, D>& options) {
  return detail::scan_along<AccChoice, true, In, detail::totals_for<D>>(
      in, out, shape, detail::ScanKind::Inclusive, initial, op, workspace, stream, options);
}
template <class AccChoice = UseDefault, class In, class Out, class Init, class Op>
cudaError_t reverse_inclusive_scan_init(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                                        Workspace& workspace, cudaStream_t stream = 0) {
  return detail::scan_along<AccChoice, true, In, detail::LineTotals::Never>(
      in, out, shape, detail::ScanKind::Inclusive, initial, op, workspace, stream, Options<Out>{});
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t reverse_exclusive_scan(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                                   Workspace& workspace, cudaStream_t stream, const Options<Out, D>& options) {
  return detail::scan_along<AccChoice, true, In, detail::totals_for<D>>(
      in, out, shape, detail::ScanKind::Exclusive, initial, op, workspace, stream, options);
}
template <class AccChoice = UseDefault, class In, class Out, class Init, class Op>
cudaError_t reverse_exclusive_scan(const In* in, Out* out, const Shape& shape, const Init& initial, Op op,
                                   Workspace& workspace, cudaStream_t stream = 0) {
  return detail::scan_along<AccChoice, true, In, detail::LineTotals::Never>(
      in, out, shape, detail::ScanKind::Exclusive, initial, op, workspace, stream, Options<Out>{});
}

// Bytes of device memory that a Workspace(memory, bytes) needs for a scan along an axis of
// `shape` with accumulator Acc and input elements In (In matters only when wider than Acc, Out
// not at all: the column scan's vector width, which they decide with the pointers, is taken at
// its most costly).
template <class Acc, class In = Acc>
std::size_t workspace_bytes(const Shape& shape) {
  const std::int64_t n = detail::element_count(shape);
  if (n <= 0) return 0;
  if (shape.inner == 1) return detail::RowsScan<Acc>::workspace_bytes(n);
  std::size_t most = 0;
  if constexpr (detail::kPairableSize<Acc>)
    if (shape.inner == 2) {
      most = detail::RowsScan<detail::ColumnRow<Acc, 2>>::workspace_bytes(n / 2);
      const std::size_t flat =
          detail::TunedScan<detail::FlatRowsConfig<2>>::workspace_bytes<detail::ColumnRow<Acc, 2>>(n / 2);
      most = flat > most ? flat : most;
    }
  if constexpr (sizeof(Acc) == 4) {
    if (shape.inner == 3)
      most = detail::TunedScan<detail::FlatRowsConfig<3>>::workspace_bytes<detail::ColumnRow<Acc, 3>>(n / 3);
    if (shape.inner == 4)
      most = detail::TunedScan<detail::FlatRowsConfig<4>>::workspace_bytes<detail::ColumnRow<Acc, 4>>(n / 4);
  }
  for (const int vector : {1, 2, 4, 8, 16}) {
    const auto g = detail::ColumnGeometry::make<detail::ColumnsDefaultConfig>(shape.outer, shape.length, shape.inner,
                                                                              vector, detail::kColumnsElementBytes<In, Acc>);
    const std::size_t bytes = detail::ColumnsScan<>::workspace_bytes<Acc>(g);
    most = bytes > most ? bytes : most;
  }
  return most;
}

}  // namespace scan_zoo
