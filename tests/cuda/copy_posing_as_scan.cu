// copy_posing_as_scan -- a test fixture, not a scan: it claims to scan but only copies, so the
// harness must reject its output (exit code 1, a FAIL row, the first bad index with the
// expected and obtained values). Built into build/tests/, never into bin/.
#include "harness/harness.cuh"

struct CopyPosingAsScan : zoo::VariantDefaults {
  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind, zoo::Workspace, cudaStream_t stream) {
    ZOO_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
};

ZOO_MAIN(CopyPosingAsScan)
