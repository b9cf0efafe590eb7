// python/src/sums.cu -- cumsum's instantiations: the dtype pairs of with_sum_types
// (typed_calls.cuh), each scanned with scan_zoo::Plus.
#include "typed_calls.cuh"

namespace scan_zoo_python {

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
