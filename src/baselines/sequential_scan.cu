// sequential_scan -- the whole scan done by one GPU thread: the serial baseline.
//
// Idea: y[i] = y[i-1] (+) x[i], one element after the other, exactly the loop a CPU would run.
// It is here to show what the parallel variants buy: one thread of one SM has a few loads in
// flight at a time, so it crawls along at memory latency rather than bandwidth. The loop reads a
// batch of kBatch elements into registers before combining them, so at least the loads of a
// batch overlap (without it every element would wait a full DRAM round trip).
//
// Work: N - 1 combines (work-optimal); depth: N (nothing runs in parallel). Launches: 1.
// Global traffic: 2 accesses per element, like memcpy, but at a tiny fraction of its bandwidth:
// the bound here is latency (about kBatch elements per DRAM round trip), not bytes.
//
// Constraints: any N, every type/operator/mode; slow: expect tens of ns per element, so large N
// takes seconds (raise --timeout past 2^28).
//
// In the charts: a straight line of slope 1 far above everything else; the gap to the parallel
// variants is the point.
//
// Run: make bin/sequential_scan && ./bin/sequential_scan 2^20
#include "../harness/harness.cuh"

constexpr int kBatch = 16;  // loads kept in flight by the single thread

template <class T, class Op>
__global__ void sequential_scan_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t n,
                                       bool exclusive) {
  const Op op;
  T running = Op::template identity<T>();
  for (std::int64_t i = 0; i < n; i += kBatch) {
    T batch[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      if (i + j < n) batch[j] = in[i + j];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      if (i + j < n) {
        const T before = running;
        running = op(running, batch[j]);
        out[i + j] = exclusive ? before : running;
      }
    }
  }
}

struct SequentialScan : zoo::VariantDefaults {
  using Types = zoo::AllTypes;
  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind kind, zoo::Workspace, cudaStream_t stream) {
    sequential_scan_kernel<T, Op><<<1, 1, 0, stream>>>(in, out, n, kind == zoo::ScanKind::Exclusive);
    ZOO_CHECK_LAUNCH();
  }
};

ZOO_MAIN(SequentialScan)
