// python/src/extremes.cu -- cummax's and cummin's instantiations: output of the input's dtype
// (16-bit floats compared in float, which changes no value), Max or Min of operators.cuh.
#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

// Calls fn.template operator()<T, T>() for the call's dtype (input and output alike); false
// when not built.
template <class Fn>
bool with_extreme_type(const ScanCall& call, Fn& fn) {
  using D = Dtype;
  if (call.in_type != call.out_type) return false;
  switch (call.in_type) {
    case D::Float32: return fn.template operator()<float, float>(), true;
    case D::Float64: return fn.template operator()<double, double>(), true;
    case D::Int32: return fn.template operator()<std::int32_t, std::int32_t>(), true;
    case D::Int64: return fn.template operator()<std::int64_t, std::int64_t>(), true;
    case D::BFloat16: return fn.template operator()<__nv_bfloat16, __nv_bfloat16>(), true;
    case D::Float16: return fn.template operator()<__half, __half>(), true;
  }
  return false;
}

}  // namespace

std::size_t extreme_workspace_bytes(const ScanCall& call) {
  WorkspaceBytesOf bytes{call};
  with_extreme_type(call, bytes);
  return bytes.bytes;
}

int extreme_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  if (call.op == Operator::Max) {
    ScanWith<scan_zoo::Max> scan{call, in, out, workspace, stream};
    with_extreme_type(call, scan);
    return scan.result;
  }
  ScanWith<scan_zoo::Min> scan{call, in, out, workspace, stream};
  with_extreme_type(call, scan);
  return scan.result;
}

}  // namespace scan_zoo_python
