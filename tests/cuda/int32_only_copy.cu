// int32_only_copy -- a test fixture, not a scan: a copy "variant" built for int32 only that also
// refuses exclusive mode at run time. It exercises the harness's two ways of declaring an
// unsupported combination (exit code 3, WAIVED rows) without a GPU. Built into build/tests/, so
// bench.sh and the variant sweep never see it.
#include "harness/harness.cuh"

struct Int32OnlyCopy : zoo::VariantDefaults {
  using Types = zoo::TypeList<std::int32_t>;
  template <class T, class Op>
  using Problem = zoo::CopyProblem<T, Op>;  // checked as a copy: output == input

  template <class T, class Op>
  static const char* unsupported_reason(zoo::ScanKind kind) {
    return kind == zoo::ScanKind::Exclusive ? "this fixture refuses exclusive scans" : nullptr;
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind, zoo::Workspace, cudaStream_t stream) {
    ZOO_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
};

ZOO_MAIN(Int32OnlyCopy)
