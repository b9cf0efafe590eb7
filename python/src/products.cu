// python/src/products.cu -- cumprod's instantiations, forward along any axis (typed_calls.cuh,
// Built::Forward), each scanned with scan_zoo::Multiplies: the dtypes torch.cumprod produces,
// integers widened to int64 (bool and uint8 the same bytes), floats kept (16-bit floats
// multiplied in float and rounded once), complex numbers kept (the schoolbook product, as
// torch's: operators.cuh, Multiplies).
#include <scan_zoo/complex.cuh>

#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

const auto product_types = [](const ScanCall& call, auto& fn) {
  using D = Dtype;
  constexpr Built kForward = Built::Forward;
  const D in = call.in_type, out = call.out_type;
  if (in == D::Float32 && out == D::Float32) return fn.template operator()<float, float, kForward>(), true;
  if (in == D::Float64 && out == D::Float64) return fn.template operator()<double, double, kForward>(), true;
  if (in == D::BFloat16 && out == D::BFloat16)
    return fn.template operator()<__nv_bfloat16, __nv_bfloat16, kForward>(), true;
  if (in == D::Float16 && out == D::Float16) return fn.template operator()<__half, __half, kForward>(), true;
  if (in == D::Int64 && out == D::Int64) return fn.template operator()<std::int64_t, std::int64_t, kForward>(), true;
  if (in == D::Int32 && out == D::Int64) return fn.template operator()<std::int32_t, std::int64_t, kForward>(), true;
  if ((in == D::Bool || in == D::UInt8) && out == D::Int64)
    return fn.template operator()<std::uint8_t, std::int64_t, kForward>(), true;
  if (in == D::Complex64 && out == D::Complex64)
    return fn.template operator()<scan_zoo::Complex<float>, scan_zoo::Complex<float>, kForward>(), true;
  if (in == D::Complex128 && out == D::Complex128)
    return fn.template operator()<scan_zoo::Complex<double>, scan_zoo::Complex<double>, kForward>(), true;
  return false;
};

}  // namespace

std::size_t product_workspace_bytes(const ScanCall& call) {
  return workspace_bytes_for<scan_zoo::Multiplies>(call, product_types);
}

int product_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  return scan_for<scan_zoo::Multiplies>(call, in, out, workspace, stream, product_types);
}

}  // namespace scan_zoo_python
