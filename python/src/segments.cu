// python/src/segments.cu -- segmented_cumsum's instantiations: cumsum's dtype pairs built both
// ways (with_sum_types, typed_calls.cuh) over segments given by 32- or 64-bit CSR offsets, segment s
// running from offsets[s] to offsets[s + 1] (include/scan_zoo/segmented.cuh, with
// begin_offsets = offsets and end_offsets = offsets + 1).
#include <scan_zoo/segmented.cuh>

#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

template <class Offset>
struct SegmentedSumWith {
  const SegmentedCall& call;
  const void* in;
  void* out;
  const Offset* offsets;
  Workspace* workspace;
  std::uintptr_t stream;
  int result = kNotBuilt;

  template <class In, class Out, Built Kind>
  void operator()() {
    if constexpr (Kind == Built::Both) scan<In, Out>();
  }
  template <class In, class Out>
  void scan() {
    using Acc = scan_zoo::accumulator_t<scan_zoo::UseDefault, Out>;
    const In* x = static_cast<const In*>(in);
    Out* y = static_cast<Out*>(out);
    const Offset* begins = offsets;
    const Offset* ends = offsets + 1;
    scan_zoo::Workspace& w = workspace->library;
    const cudaStream_t s = stream_of(stream);
    result = call.exclusive
                 ? scan_zoo::exclusive_segmented_scan(x, y, call.n, begins, ends, call.segments,
                                                      scan_zoo::Plus::identity<Acc>(), scan_zoo::Plus{}, w, s)
                 : scan_zoo::inclusive_segmented_scan(x, y, call.n, begins, ends, call.segments, scan_zoo::Plus{},
                                                      w, s);
  }
};

template <class Offset>
int segmented_sum_with(const SegmentedCall& call, const void* in, void* out, const void* offsets,
                       Workspace* workspace, std::uintptr_t stream) {
  SegmentedSumWith<Offset> scan{call, in, out, static_cast<const Offset*>(offsets), workspace, stream};
  with_sum_types(call, scan);
  return scan.result;
}

// The bytes of segmented.cuh's workspace: scan.cuh's for n elements (the header's contract).
struct SegmentedWorkspaceBytes {
  const SegmentedCall& call;
  std::size_t bytes = SIZE_MAX;
  template <class In, class Out, Built Kind>
  void operator()() {
    if constexpr (Kind == Built::Both) bytes = scan_zoo::workspace_bytes<scan_zoo::accumulator_t<scan_zoo::UseDefault, Out>>(call.n);
  }
};

}  // namespace

std::size_t segmented_workspace_bytes(const SegmentedCall& call) {
  SegmentedWorkspaceBytes bytes{call};
  with_sum_types(call, bytes);
  return bytes.bytes;
}

int segmented_sum_on_stream(const SegmentedCall& call, const void* in, void* out, const void* offsets,
                            Workspace* workspace, std::uintptr_t stream) {
  switch (call.offset_type) {
    case Dtype::Int32: return segmented_sum_with<std::int32_t>(call, in, out, offsets, workspace, stream);
    case Dtype::Int64: return segmented_sum_with<std::int64_t>(call, in, out, offsets, workspace, stream);
    default: return kNotBuilt;
  }
}

}  // namespace scan_zoo_python
