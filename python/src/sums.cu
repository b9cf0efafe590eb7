// python/src/sums.cu -- cumsum's instantiations of the 32- and 64-bit types, built both ways: the
// dtype pairs of with_wide_sum_types (typed_calls.cuh), each scanned with scan_zoo::Plus.
#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

const auto sum_types = [](const ScanCall& call, auto& fn) { return with_wide_sum_types(call, fn); };

}  // namespace

std::size_t sum_workspace_bytes(const ScanCall& call) {
  return workspace_bytes_for<scan_zoo::Plus>(call, sum_types);
}

int sum_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  return scan_for<scan_zoo::Plus>(call, in, out, workspace, stream, sum_types);
}

}  // namespace scan_zoo_python
