// python/src/half_sums.cu -- cumsum's instantiations of the 16-bit floats, built both ways: the
// dtype pairs of with_half_sum_types (typed_calls.cuh), kept or widened to float32, each
// accumulated in float and scanned with scan_zoo::Plus. A file of its own, so that the build
// compiles them beside sums.cu instead of after it.
#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

const auto half_sum_types = [](const ScanCall& call, auto& fn) { return with_half_sum_types(call, fn); };

}  // namespace

std::size_t half_sum_workspace_bytes(const ScanCall& call) {
  return workspace_bytes_for<scan_zoo::Plus>(call, half_sum_types);
}

int half_sum_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  return scan_for<scan_zoo::Plus>(call, in, out, workspace, stream, half_sum_types);
}

}  // namespace scan_zoo_python
