// thrust_scan -- thrust::inclusive_scan / thrust::exclusive_scan on device pointers, called the
// way a C++ user calls them: the scan most CUDA code reaches for first.
//
// Idea: Thrust (the STL-like algorithm library that ships with CUDA, part of CCCL) has no scan
// kernel of its own: thrust/system/cuda/detail/scan.h queries CUB's temporary storage size,
// allocates that storage through the execution policy, runs cub::DispatchScan (the decoupled
// look-back of cub_scan, with 32-bit unsigned offsets when N fits and 64-bit ones otherwise) and
// returns the storage. So this row is cub_scan plus what one library call adds around it.
//
// Work: O(N); depth: O(log tile) inside a block plus the look-back. Launches: 2 per call (CUB's
// tile-state initialisation, then the scan kernel). Global traffic: 2 accesses per element, so
// its bound is memcpy, like CUB's.
//
// What the call adds, and how it is called here:
// - Temporary storage. Every call allocates its storage and frees it on return, through the
//   policy's allocator. The defaults (CCCL 3.0's headers): thrust::cuda::par takes cudaMalloc
//   and cudaFree (malloc_and_free.h), par_nosync cudaMallocAsync and cudaFreeAsync on the stream
//   (temporary_buffer.h). Either way the allocation would sit inside every timed rep, while the
//   harness's rule is allocation outside timing. So the call passes an allocator that keeps its
//   largest block (KeptBlockAllocator below): the first, untimed verified run of a size
//   allocates it, every later call reuses it. A user who scans in a loop should do the same (or
//   call cub::DeviceScan, which makes the caller own the storage). What the defaults cost (par's
//   allocator several times this row's time at small N, par_nosync's pool a fraction of a
//   microsecond): bench/NOTES.md, "The scans users call: Thrust, PyTorch, CuPy".
// - Synchronization. thrust::cuda::par waits for the stream before returning, so the stop event
//   would be recorded only after the host woke up, and the wake-up timed (microseconds a call;
//   the same section). par_nosync returns at once, as a kernel launch does; both
//   run on the harness's stream (.on(stream)).
// - Operators: sum is Thrust's default (thrust::plus, the call a user writes with no operator),
//   max and min are thrust::maximum / thrust::minimum (aliases of cuda::maximum / minimum): the
//   operators CUB's tuning recognises, the same mapping as cub_scan. The exclusive scans start
//   from the operator's identity (0 for the sum, Thrust's default).
//
// Constraints: every type/operator/mode of the harness; 64-bit N; in place (Thrust allows the
// output to be the input). The kept block serves one call at a time on one stream (the harness's).
// The temporary storage (a few bytes per tile) is not in the harness's memory check, so a size
// that leaves no room for it ends with an ERROR row (exit 4) rather than SKIPPED(device-memory).
//
// In the charts: beside cub_scan. The kernels are CUB's, so a gap between the two rows is what
// Thrust adds per call (its size query and dispatch on the host, which the GPU sees only where
// they outlast the queue in front of them) or a different CUB tuning picked by its offset type.
// In the committed sweeps (bench/<gpu>/timing.txt) the two rows are within a microsecond of each
// other at every N.
//
// Run: make bin/thrust_scan && ./bin/thrust_scan 2^28
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/system_error.h>

#include "../harness/harness.cuh"

// Thrust's temporary storage from one device block that is kept between calls: it grows (in the
// verified run of a larger N) and is never given back, so the timed calls allocate nothing.
// Thrust's scan holds one temporary buffer per call, which is all one block can serve.
class KeptBlockAllocator {
 public:
  using value_type = char;  // Thrust asks for bytes

  char* allocate(std::ptrdiff_t bytes) {
    if (lent_)
      zoo::cuda_fatal(cudaErrorNotSupported, "Thrust asked for a second temporary buffer within one call",
                      __FILE__, __LINE__);
    if (bytes > capacity_) {
      if (block_) ZOO_CUDA(cudaFree(block_));  // waits for the device: nothing still uses it
      ZOO_CUDA(cudaMalloc(&block_, static_cast<std::size_t>(bytes)));
      capacity_ = bytes;
    }
    lent_ = true;
    return block_;
  }
  void deallocate(char*, std::size_t) { lent_ = false; }  // kept for the next call

 private:
  char* block_ = nullptr;  // kept for the life of the process, like the L2 flush buffer
  std::ptrdiff_t capacity_ = 0;
  bool lent_ = false;
};

// One allocator, and so one block, for every element type and operator of the process.
inline KeptBlockAllocator& kept_block_allocator() {
  static KeptBlockAllocator allocator;
  return allocator;
}

// The Thrust functor a user passes for each zoo operator (the sum needs none: it is the default).
template <class Op>
struct ThrustOperator;
template <>
struct ThrustOperator<zoo::Max> {
  using type = thrust::maximum<>;
};
template <>
struct ThrustOperator<zoo::Min> {
  using type = thrust::minimum<>;
};

struct ThrustScan : zoo::VariantDefaults {
  using Types = zoo::AllTypes;

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind kind, zoo::Workspace, cudaStream_t stream) {
    const auto policy = thrust::cuda::par_nosync(kept_block_allocator()).on(stream);
    const bool inclusive = kind == zoo::ScanKind::Inclusive;
    try {
      if constexpr (std::is_same_v<Op, zoo::Sum>) {
        if (inclusive) thrust::inclusive_scan(policy, in, in + n, out);
        else thrust::exclusive_scan(policy, in, in + n, out);
      } else {
        using ThrustOp = typename ThrustOperator<Op>::type;
        if (inclusive) thrust::inclusive_scan(policy, in, in + n, out, ThrustOp{});
        else thrust::exclusive_scan(policy, in, in + n, out, Op::template identity<T>(), ThrustOp{});
      }
    } catch (const thrust::system_error& error) {
      // Thrust reports CUDA errors by throwing; the harness's answer to one is an ERROR row and
      // exit code 4, not an uncaught exception.
      zoo::cuda_fatal(static_cast<cudaError_t>(error.code().value()), error.what(), __FILE__, __LINE__);
    }
  }
};

ZOO_MAIN(ThrustScan)
