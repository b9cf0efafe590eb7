// python/src/extremes.cu -- cummax's and cummin's instantiations: output of the input's dtype
// (16-bit floats compared in float, which changes no value), Max or Min of operators.cuh.
#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

// Calls fn.template operator()<T>() for the call's dtype (input and output alike); false when
// not built.
template <class Fn>
bool with_extreme_type(const ScanCall& call, Fn& fn) {
  using D = Dtype;
  if (call.in_type != call.out_type) return false;
  switch (call.in_type) {
    case D::Float32: return fn.template operator()<float>(), true;
    case D::Float64: return fn.template operator()<double>(), true;
    case D::Int32: return fn.template operator()<std::int32_t>(), true;
    case D::Int64: return fn.template operator()<std::int64_t>(), true;
    case D::BFloat16: return fn.template operator()<__nv_bfloat16>(), true;
    case D::Float16: return fn.template operator()<__half>(), true;
  }
  return false;
}

struct ExtremeBytes {
  const ScanCall& call;
  std::size_t bytes = SIZE_MAX;
  template <class T>
  void operator()() { bytes = typed_workspace_bytes<T, T>(call); }
};

struct ExtremeScan {
  const ScanCall& call;
  const void* in;
  void* out;
  Workspace* workspace;
  std::uintptr_t stream;
  int result = kNotBuilt;
  template <class T>
  void operator()() {
    result = call.op == Operator::Max ? typed_scan<T, T, scan_zoo::Max>(call, in, out, workspace, stream)
                                      : typed_scan<T, T, scan_zoo::Min>(call, in, out, workspace, stream);
  }
};

}  // namespace

std::size_t extreme_workspace_bytes(const ScanCall& call) {
  ExtremeBytes bytes{call};
  with_extreme_type(call, bytes);
  return bytes.bytes;
}

int extreme_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  ExtremeScan scan{call, in, out, workspace, stream};
  with_extreme_type(call, scan);
  return scan.result;
}

}  // namespace scan_zoo_python
