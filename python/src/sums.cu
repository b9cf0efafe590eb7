// python/src/sums.cu -- cumsum's instantiations: the input -> output dtypes torch.cumsum and
// numpy.cumsum produce (integers widened to int64 unless a dtype is asked, 16-bit floats kept or
// widened to float32), each accumulating in the output's accumulator (float for 16-bit floats).
#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

// Calls fn.template operator()<In, Out>() for the call's dtypes; false when not built.
template <class Fn>
bool with_sum_types(const ScanCall& call, Fn& fn) {
  using D = Dtype;
  const D in = call.in_type, out = call.out_type;
  if (in == D::Float32 && out == D::Float32) return fn.template operator()<float, float>(), true;
  if (in == D::Float64 && out == D::Float64) return fn.template operator()<double, double>(), true;
  if (in == D::Int32 && out == D::Int64) return fn.template operator()<std::int32_t, std::int64_t>(), true;
  if (in == D::Int32 && out == D::Int32) return fn.template operator()<std::int32_t, std::int32_t>(), true;
  if (in == D::Int64 && out == D::Int64) return fn.template operator()<std::int64_t, std::int64_t>(), true;
  if (in == D::BFloat16 && out == D::BFloat16) return fn.template operator()<__nv_bfloat16, __nv_bfloat16>(), true;
  if (in == D::BFloat16 && out == D::Float32) return fn.template operator()<__nv_bfloat16, float>(), true;
  if (in == D::Float16 && out == D::Float16) return fn.template operator()<__half, __half>(), true;
  if (in == D::Float16 && out == D::Float32) return fn.template operator()<__half, float>(), true;
  return false;
}

}  // namespace

std::size_t sum_workspace_bytes(const ScanCall& call) {
  WorkspaceBytesOf bytes{call};
  with_sum_types(call, bytes);
  return bytes.bytes;
}

int sum_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  ScanWith<scan_zoo::Plus> scan{call, in, out, workspace, stream};
  with_sum_types(call, scan);
  return scan.result;
}

}  // namespace scan_zoo_python
