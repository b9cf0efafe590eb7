// python/src/typed_calls.cuh -- the pieces the extension's .cu files share: the Workspace behind
// the opaque handle, and one scan of the library for one choice of types, direction and
// operator.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <scan_zoo/axis.cuh>

#include "entry_points.hpp"

namespace scan_zoo_python {

struct Workspace {
  scan_zoo::Workspace library;
};

inline scan_zoo::Shape shape_of(const Lines& lines) { return {lines.outer, lines.length, lines.inner}; }
inline cudaStream_t stream_of(std::uintptr_t stream) { return reinterpret_cast<cudaStream_t>(stream); }

// One line (outer = inner = 1) is a 1-D array, which scan.cuh's tuned kernel scans. axis.cuh
// would run its row kernel, the same look-back under an operator lifted with row starts, which
// measured slower than the tuned kernel on one long line (bench/NOTES.md, "From Python").
inline bool one_line(const Lines& lines) { return lines.outer == 1 && lines.inner == 1; }

// The accumulator a scan into Out runs in: the library's default (accumulator_t: Out, or float
// for the 16-bit floats), except that logcumsumexp keeps a LogSumExp of it (operators.cuh: one
// exp a combine, where LogAddExp on plain values costs an exp and a log1p).
template <class Op, class Out>
struct AccumulatorOf {
  using type = scan_zoo::accumulator_t<scan_zoo::UseDefault, Out>;
};
template <class Out>
struct AccumulatorOf<scan_zoo::LogAddExp, Out> {
  using type = scan_zoo::LogSumExp<scan_zoo::accumulator_t<scan_zoo::UseDefault, Out>>;
};
template <class Op, class Out>
using accumulator_of = typename AccumulatorOf<Op, Out>::type;

// How much of the library a choice of types is instantiated with, the package's build time being
// what it is (docs/python.md, "Build cost"): Both, forward and reverse, a single line by the 1-D
// tuned kernel (torch.cumsum's types and their backward); Forward, forward only, every shape by
// axis.cuh's kernels (a single line is one row): a reverse call has no code (kNotBuilt), and
// Python refuses it first.
enum class Built { Both, Forward };

// Whether a scan's bits depend on how its combines are grouped, which the look-back's timing
// decides (scan.cuh, "Determinism"): the sums, products and log-sum-exps (sums.cu, half_sums.cu,
// products.cu, logsumexps.cu) in a floating-point (or complex, or LogSumExp) accumulator;
// integers are exact in any grouping.
// Those scans along an axis are compiled with both look-backs in one kernel
// (Determinism::ChosenAtRunTime: the build's kernels stay as many), and ScanCall::deterministic
// takes the fixed order; a deterministic single line goes to axis.cuh's row kernel, its one row,
// so that the 1-D kernel's configurations need no second look-back.
template <class Acc>
inline constexpr bool kGroupingMatters = !std::is_integral_v<Acc>;

// Whether the call goes to scan.cuh's 1-D kernel: a single line of types built both ways, unless
// it is to be deterministic and its grouping matters.
template <class Op, class Out, Built Kind>
bool by_1d_kernel(const ScanCall& call) {
  return Kind == Built::Both && one_line(call.lines) &&
         !(kGroupingMatters<accumulator_of<Op, Out>> && call.deterministic);
}

// The library's four scans over `extent`: n elements (scan.cuh) or a Shape (axis.cuh), with the
// Options given (none, or one); Forward has no reverse code (kNotBuilt).
template <class Op, Built Kind, class In, class Out, class Extent, class... Options>
int scan_extent(const ScanCall& call, const In* x, Out* y, const Extent& extent, Workspace* workspace,
                std::uintptr_t stream, const Options&... options) {
  using Acc = accumulator_of<Op, Out>;
  const Acc identity = Op::template identity<Acc>();  // what starts every exclusive line
  scan_zoo::Workspace& w = workspace->library;
  const cudaStream_t s = stream_of(stream);
  if (call.reverse) {
    if constexpr (Kind == Built::Forward) return kNotBuilt;
    else
      return call.exclusive ? scan_zoo::reverse_exclusive_scan<Acc>(x, y, extent, identity, Op{}, w, s, options...)
                            : scan_zoo::reverse_inclusive_scan<Acc>(x, y, extent, Op{}, w, s, options...);
  }
  return call.exclusive ? scan_zoo::exclusive_scan<Acc>(x, y, extent, identity, Op{}, w, s, options...)
                        : scan_zoo::inclusive_scan<Acc>(x, y, extent, Op{}, w, s, options...);
}

// The scan of `call` with these element types: inclusive or exclusive at run time, forward or
// reverse at compile time (Both: both instantiated), deterministic at run time where the grouping
// matters.
template <class In, class Out, class Op, Built Kind>
int typed_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  const In* x = static_cast<const In*>(in);
  Out* y = static_cast<Out*>(out);
  if constexpr (Kind == Built::Both)
    if (by_1d_kernel<Op, Out, Kind>(call))
      return scan_extent<Op, Kind>(call, x, y, call.lines.length, workspace, stream);
  if constexpr (kGroupingMatters<accumulator_of<Op, Out>>) {
    scan_zoo::Options<Out, scan_zoo::Determinism::ChosenAtRunTime> options;
    options.run_to_run = call.deterministic;
    return scan_extent<Op, Kind>(call, x, y, shape_of(call.lines), workspace, stream, options);
  } else {
    return scan_extent<Op, Kind>(call, x, y, shape_of(call.lines), workspace, stream);
  }
}

// Calls fn.template operator()<In, Out, Kind>() for the call's dtypes among cumsum's built both
// ways: the input -> output pairs torch.cumsum and numpy.cumsum produce for int32, int64 and the
// floats (int32 widened to int64 unless a dtype is asked, 16-bit floats kept or widened to
// float32), each accumulating in the output's accumulator (float for 16-bit floats). False when
// not built. Two halves, each one file's instantiations (sums.cu: the 32- and 64-bit types;
// half_sums.cu: the 16-bit floats), so that the build compiles them side by side: in one file
// they were the build's longest compile, alone at its end; segments.cu takes both.
template <class Call, class Fn>
bool with_wide_sum_types(const Call& call, Fn& fn) {
  using D = Dtype;
  constexpr Built kBoth = Built::Both;
  const D in = call.in_type, out = call.out_type;
  if (in == D::Float32 && out == D::Float32) return fn.template operator()<float, float, kBoth>(), true;
  if (in == D::Float64 && out == D::Float64) return fn.template operator()<double, double, kBoth>(), true;
  if (in == D::Int32 && out == D::Int64) return fn.template operator()<std::int32_t, std::int64_t, kBoth>(), true;
  if (in == D::Int32 && out == D::Int32) return fn.template operator()<std::int32_t, std::int32_t, kBoth>(), true;
  if (in == D::Int64 && out == D::Int64) return fn.template operator()<std::int64_t, std::int64_t, kBoth>(), true;
  return false;
}
template <class Call, class Fn>
bool with_half_sum_types(const Call& call, Fn& fn) {
  using D = Dtype;
  constexpr Built kBoth = Built::Both;
  const D in = call.in_type, out = call.out_type;
  if (in == D::BFloat16 && out == D::BFloat16)
    return fn.template operator()<__nv_bfloat16, __nv_bfloat16, kBoth>(), true;
  if (in == D::BFloat16 && out == D::Float32) return fn.template operator()<__nv_bfloat16, float, kBoth>(), true;
  if (in == D::Float16 && out == D::Float16) return fn.template operator()<__half, __half, kBoth>(), true;
  if (in == D::Float16 && out == D::Float32) return fn.template operator()<__half, float, kBoth>(), true;
  return false;
}
template <class Call, class Fn>
bool with_sum_types(const Call& call, Fn& fn) {
  return with_wide_sum_types(call, fn) || with_half_sum_types(call, fn);
}

// cumsum's forward pairs (mask_sums.cu): bool and uint8 (the same bytes, 0 and 1 for bool), int8
// and int16, widened to int64.
template <class Call, class Fn>
bool with_mask_sum_types(const Call& call, Fn& fn) {
  using D = Dtype;
  constexpr Built kForward = Built::Forward;
  const D in = call.in_type, out = call.out_type;
  if ((in == D::Bool || in == D::UInt8) && out == D::Int64)
    return fn.template operator()<std::uint8_t, std::int64_t, kForward>(), true;
  if (in == D::Int8 && out == D::Int64) return fn.template operator()<std::int8_t, std::int64_t, kForward>(), true;
  if (in == D::Int16 && out == D::Int64) return fn.template operator()<std::int16_t, std::int64_t, kForward>(), true;
  return false;
}

// What sums.cu, half_sums.cu, mask_sums.cu, products.cu and logsumexps.cu do for the In, Out and Kind their dtype switch
// picks: each switch calls fn.template operator()<In, Out, Kind>() of one of these.
template <class Op>
struct WorkspaceBytesOf {
  const ScanCall& call;
  std::size_t bytes = SIZE_MAX;
  template <class In, class Out, Built Kind>
  void operator()() {
    using Acc = accumulator_of<Op, Out>;
    bytes = by_1d_kernel<Op, Out, Kind>(call) ? scan_zoo::workspace_bytes<Acc>(call.lines.length)
                                              : scan_zoo::workspace_bytes<Acc, In>(shape_of(call.lines));
  }
};

template <class Op>
struct ScanWith {
  const ScanCall& call;
  const void* in;
  void* out;
  Workspace* workspace;
  std::uintptr_t stream;
  int result = kNotBuilt;
  template <class In, class Out, Built Kind>
  void operator()() { result = typed_scan<In, Out, Op, Kind>(call, in, out, workspace, stream); }
};

// The workspace and the scan of an operator's dtype switch (sums.cu, half_sums.cu, mask_sums.cu,
// products.cu, logsumexps.cu).
template <class Op, class Switch>
std::size_t workspace_bytes_for(const ScanCall& call, Switch with_types) {
  WorkspaceBytesOf<Op> bytes{call};
  with_types(call, bytes);
  return bytes.bytes;
}
template <class Op, class Switch>
int scan_for(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream,
             Switch with_types) {
  ScanWith<Op> scan{call, in, out, workspace, stream};
  with_types(call, scan);
  return scan.result;
}

}  // namespace scan_zoo_python
