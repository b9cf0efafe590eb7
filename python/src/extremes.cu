// python/src/extremes.cu -- cummax's and cummin's instantiations (include/scan_zoo/extremes.cuh):
// values of the input's dtype and int64 indices (or the values alone), torch's rules (ties to the
// later element, NaN wins), forward, 32-bit positions (Python refuses lines of 2^31 elements or
// more first). bool and uint8 share their bytes' code.
#include <scan_zoo/extremes.cuh>

#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

// Calls fn.template operator()<T>() for the call's dtype (input and values alike); false when not
// built.
template <class Fn>
bool with_extreme_type(const ScanCall& call, Fn& fn) {
  using D = Dtype;
  if (call.in_type != call.out_type) return false;
  switch (call.in_type) {
    case D::Float32: return fn.template operator()<float>(), true;
    case D::Float64: return fn.template operator()<double>(), true;
    case D::BFloat16: return fn.template operator()<__nv_bfloat16>(), true;
    case D::Float16: return fn.template operator()<__half>(), true;
    case D::Int32: return fn.template operator()<std::int32_t>(), true;
    case D::Int64: return fn.template operator()<std::int64_t>(), true;
    case D::Int16: return fn.template operator()<std::int16_t>(), true;
    case D::Int8: return fn.template operator()<std::int8_t>(), true;
    case D::Bool:
    case D::UInt8: return fn.template operator()<std::uint8_t>(), true;
    case D::Complex64:
    case D::Complex128: return false;  // complex numbers have no order
  }
  return false;
}

using Position = std::int32_t;

struct ExtremeBytes {
  const ScanCall& call;
  std::size_t bytes = SIZE_MAX;
  template <class T>
  void operator()() { bytes = scan_zoo::extremes_workspace_bytes<T, Position>(shape_of(call.lines)); }
};

struct ExtremeScan {
  const ScanCall& call;
  const void* in;
  void* values;
  void* indices;
  Workspace* workspace;
  std::uintptr_t stream;
  int result = kNotBuilt;
  template <class T>
  void operator()() {
    if (call.reverse || call.exclusive) return;  // not built: torch's cummax has neither
    const T* x = static_cast<const T*>(in);
    T* v = static_cast<T*>(values);
    auto* i = static_cast<std::int64_t*>(indices);
    const scan_zoo::Shape shape = shape_of(call.lines);
    result = call.op == Operator::Max ? scan_zoo::cummax<Position>(x, v, i, shape, workspace->library, stream_of(stream))
                                      : scan_zoo::cummin<Position>(x, v, i, shape, workspace->library, stream_of(stream));
  }
};

}  // namespace

std::size_t extreme_workspace_bytes(const ScanCall& call) {
  ExtremeBytes bytes{call};
  with_extreme_type(call, bytes);
  return bytes.bytes;
}

int extreme_scan(const ScanCall& call, const void* in, void* values, void* indices, Workspace* workspace,
                 std::uintptr_t stream) {
  ExtremeScan scan{call, in, values, indices, workspace, stream};
  with_extreme_type(call, scan);
  return scan.result;
}

}  // namespace scan_zoo_python
