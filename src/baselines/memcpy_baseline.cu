// memcpy_baseline -- a device-to-device copy of the same bytes a scan reads and writes: the
// physical ceiling every scan row is compared against.
//
// Idea: a scan must read every input element once and write every output element once, so no
// scan can beat a copy of the array; cudaMemcpyAsync (device to device) is the best copy the
// driver has. Its GB/s uses the same 2 * N * sizeof(T) as every scan row, so "% of memcpy" in
// the results is the fraction of the achievable bandwidth a scan reaches.
//
// Work: none; depth: none; launches: 1 copy; global traffic: 2 accesses per element (the
// floor).
//
// Constraints: any type and N. It scans nothing: its check is output == input, and --op and
// --mode only label the row so that it lines up with the scan rows it bounds.
//
// In the charts: the top line at large N (each GPU's copy bandwidth, counting read + write:
// bench/<gpu>/timing.txt), and a launch-latency floor of a few microseconds at small N.
//
// Run: make bin/memcpy_baseline && ./bin/memcpy_baseline 2^28
#include "../harness/harness.cuh"

struct MemcpyBaseline : zoo::VariantDefaults {
  using Types = zoo::AllTypes;  // the ceiling of every element type's sweep
  template <class T, class Op>
  using Problem = zoo::CopyProblem<T, Op>;  // checked as a copy: output == input

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind, zoo::Workspace, cudaStream_t stream) {
    ZOO_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
};

ZOO_MAIN(MemcpyBaseline)
