// python/src/logsumexps.cu -- logcumsumexp's instantiations, forward along any axis
// (typed_calls.cuh, Built::Forward), each scanned with scan_zoo::LogAddExp: the four float types,
// output of the input's dtype (16-bit floats in float, rounded once), and the two complex types
// (operators.cuh, LogSumExp<Complex<T>>).
#include <scan_zoo/complex.cuh>

#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

const auto logsumexp_types = [](const ScanCall& call, auto& fn) {
  using D = Dtype;
  constexpr Built kForward = Built::Forward;
  if (call.in_type != call.out_type) return false;
  switch (call.in_type) {
    case D::Float32: return fn.template operator()<float, float, kForward>(), true;
    case D::Float64: return fn.template operator()<double, double, kForward>(), true;
    case D::BFloat16: return fn.template operator()<__nv_bfloat16, __nv_bfloat16, kForward>(), true;
    case D::Float16: return fn.template operator()<__half, __half, kForward>(), true;
    case D::Complex64:
      return fn.template operator()<scan_zoo::Complex<float>, scan_zoo::Complex<float>, kForward>(), true;
    case D::Complex128:
      return fn.template operator()<scan_zoo::Complex<double>, scan_zoo::Complex<double>, kForward>(), true;
    default: return false;
  }
};

}  // namespace

std::size_t logsumexp_workspace_bytes(const ScanCall& call) {
  return workspace_bytes_for<scan_zoo::LogAddExp>(call, logsumexp_types);
}

int logsumexp_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  return scan_for<scan_zoo::LogAddExp>(call, in, out, workspace, stream, logsumexp_types);
}

}  // namespace scan_zoo_python
