// python/src/mask_sums.cu -- cumsum's forward pairs (with_mask_sum_types, typed_calls.cuh): the
// int64 sums of bool and narrow integer inputs (position ids from an attention mask, offsets from
// flags), scanned with scan_zoo::Plus. A file of their own, so that the build compiles them beside
// sums.cu instead of after it.
#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

const auto mask_sum_types = [](const ScanCall& call, auto& fn) { return with_mask_sum_types(call, fn); };

}  // namespace

std::size_t mask_sum_workspace_bytes(const ScanCall& call) {
  return workspace_bytes_for<scan_zoo::Plus>(call, mask_sum_types);
}

int mask_sum_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream) {
  return scan_for<scan_zoo::Plus>(call, in, out, workspace, stream, mask_sum_types);
}

}  // namespace scan_zoo_python
