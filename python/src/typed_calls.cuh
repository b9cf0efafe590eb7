// python/src/typed_calls.cuh -- the pieces the extension's .cu files share: the Workspace behind
// the opaque handle, and one scan of the library for one choice of types, direction and
// operator.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <scan_zoo/axis.cuh>

#include "entry_points.hpp"

namespace scan_zoo_python {

struct Workspace {
  scan_zoo::Workspace library;
};

inline scan_zoo::Shape shape_of(const Lines& lines) { return {lines.outer, lines.length, lines.inner}; }
inline cudaStream_t stream_of(std::uintptr_t stream) { return reinterpret_cast<cudaStream_t>(stream); }

// The scan of `call` with these element types: inclusive or exclusive at run time (the exclusive
// scan starts every line with the operator's identity), forward or reverse at compile time.
template <class In, class Out, class Op>
int typed_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  using Acc = scan_zoo::accumulator_t<scan_zoo::UseDefault, Out>;
  const In* x = static_cast<const In*>(in);
  Out* y = static_cast<Out*>(out);
  const scan_zoo::Shape shape = shape_of(call.lines);
  const Acc identity = Op::template identity<Acc>();
  scan_zoo::Workspace& w = workspace->library;
  const cudaStream_t s = stream_of(stream);
  if (call.reverse)
    return call.exclusive ? scan_zoo::reverse_exclusive_scan(x, y, shape, identity, Op{}, w, s)
                          : scan_zoo::reverse_inclusive_scan(x, y, shape, Op{}, w, s);
  return call.exclusive ? scan_zoo::exclusive_scan(x, y, shape, identity, Op{}, w, s)
                        : scan_zoo::inclusive_scan(x, y, shape, Op{}, w, s);
}

// What sums.cu and extremes.cu do for the In and Out their dtype switch picks: each switch calls
// fn.template operator()<In, Out>() of one of these.
struct WorkspaceBytesOf {
  const ScanCall& call;
  std::size_t bytes = SIZE_MAX;
  template <class In, class Out>
  void operator()() {
    bytes = scan_zoo::workspace_bytes<scan_zoo::accumulator_t<scan_zoo::UseDefault, Out>, In>(shape_of(call.lines));
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
  template <class In, class Out>
  void operator()() { result = typed_scan<In, Out, Op>(call, in, out, workspace, stream); }
};

}  // namespace scan_zoo_python
