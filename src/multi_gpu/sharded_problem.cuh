// sharded_problem.cuh -- the problems (harness/problem.cuh) of the scans across GPUs, which
// ShardedLauncher (multi_gpu_launcher.cuh) runs: one global array of N elements sharded
// contiguously over G GPUs, rank r holding [N r / G, N (r + 1) / G).
//
//   ShardedScanProblem  the scan: Variant::run<T, Op>(shards, kind) enqueues the whole operation
//                       on every shard's stream (exiting on an error); in place or not
//   ShardedCopyProblem  the multi_gpu_memcpy row: the same shards and run, checked as a copy of the
//                       input; not in place (a copy onto itself moves nothing)
//
//   data   generated on each GPU from the combination's seed: element i is zoo::input_value(seed,
//          i), the single-GPU harness's stream, so nothing of size N passes through the host.
//   check  on the GPUs, every element, exactly, against an independent reference: CUB's scan of
//          the same generated values in the wide type (int64, uint64 or double), chunk by chunk,
//          with the carry into each shard and chunk kept on the host in the wide type (the carry
//          into a shard: CUB reductions of everything before it). It shares nothing with the
//          code under test but the generator.
//   GB/s   every GPU's traffic counted the single-GPU way (2 N sizeof(T): read and write once).
//
// A variant derives from ShardedVariantDefaults (the launcher, the scan, every element type):
//   struct MyScan : zoo::ShardedVariantDefaults {
//     static constexpr std::int64_t kTileItems = ...;       // for --help (tests size by it)
//     template <class T, class Op>
//     static void run(const std::vector<zoo::GpuShard<T>>& shards, zoo::ScanKind kind);
//     template <class T, class Op>
//     static std::size_t workspace_bytes(std::int64_t shard_n);  // its scratch per GPU (for the
//                                                                // memory check; default 0)
//   };
//   ZOO_MAIN(MyScan)
// and `template <class T, class Op> using Problem = zoo::ShardedCopyProblem<T, Op>;` for the copy.
#pragma once

#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <string>
#include <vector>

#include "multi_gpu_launcher.cuh"

namespace zoo {

// One GPU's shard of a combination: what a variant's run() enqueues on.
template <class T>
struct GpuShard {
  const Gpu* gpu = nullptr;
  std::int64_t begin = 0, n = 0;  // its part of the global array
  const T* in = nullptr;
  T* out = nullptr;               // == in when in place
};

// A shard's input: element begin + i of the combination's stream, as the single-GPU harness
// generates it on the host (reference.hpp).
template <class T>
__global__ void generate_shard(T* shard, std::int64_t n, std::int64_t begin, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    shard[i] = input_value<T>(seed, begin + i);
}

// Element i of the stream, in the reference's wide type.
template <class T>
struct WideInput {
  std::uint64_t seed;
  __host__ __device__ typename TypeInfo<T>::Wide operator()(std::int64_t i) const {
    return static_cast<typename TypeInfo<T>::Wide>(input_value<T>(seed, i));
  }
};

template <class T>
auto wide_inputs_from(std::uint64_t seed, std::int64_t first) {
  return thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(first), WideInput<T>{seed});
}

struct Mismatches {
  unsigned long long count;
  unsigned long long first;  // the smallest global index found wrong
};

// got[j] against the reference: element `first + j` of the scan, given the inclusive scan `ref`
// of this chunk's inputs (null: a copy, compared with the input itself) and the carry into it.
template <class T, class Op>
__global__ void compare_chunk(const T* got, const typename TypeInfo<T>::Wide* ref, std::int64_t count,
                              typename TypeInfo<T>::Wide carry, bool exclusive, std::int64_t first,
                              std::uint64_t seed, Mismatches* mismatches) {
  const Op op;
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < count;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    T want;
    if (ref == nullptr) want = input_value<T>(seed, first + j);
    else if (exclusive) want = narrow<T>(j == 0 ? carry : op(carry, ref[j - 1]));
    else want = narrow<T>(op(carry, ref[j]));
    if (!(got[j] == want)) {
      atomicAdd(&mismatches->count, 1ull);
      atomicMin(&mismatches->first, static_cast<unsigned long long>(first + j));
    }
  }
}

// Elements per chunk of the check: its reference chunk takes 512 MiB of 64-bit values.
constexpr std::int64_t kCheckChunk = std::int64_t(1) << 26;

// The check's device memory on one GPU: the reference chunk, CUB's temporary storage, the
// counters; sized once for the largest chunk.
template <class T, class Op>
struct ShardCheck {
  using Wide = typename TypeInfo<T>::Wide;
  DeviceBuffer ref, temp, scratch;  // scratch: a Wide (a reduction) and the Mismatches
  std::size_t temp_bytes = 0;

  static std::size_t cub_temp_bytes() {
    std::size_t scan_bytes = 0, reduce_bytes = 0;
    ZOO_CUDA(cub::DeviceScan::InclusiveScan(nullptr, scan_bytes, wide_inputs_from<T>(0, 0), static_cast<Wide*>(nullptr),
                                            Op{}, kCheckChunk));
    ZOO_CUDA(cub::DeviceReduce::Reduce(nullptr, reduce_bytes, wide_inputs_from<T>(0, 0), static_cast<Wide*>(nullptr),
                                       kCheckChunk, Op{}, static_cast<Wide>(Op::template identity<T>())));
    return std::max(scan_bytes, reduce_bytes);
  }
  static std::size_t device_bytes(bool copy) {
    return (copy ? 0 : kCheckChunk * sizeof(Wide) + cub_temp_bytes()) + 256 + sizeof(Wide) + sizeof(Mismatches);
  }
  bool allocate(bool copy) {
    temp_bytes = copy ? 0 : cub_temp_bytes();
    return (copy || (ref.allocate(kCheckChunk * sizeof(Wide)) && temp.allocate(temp_bytes))) &&
           scratch.allocate(256 + sizeof(Mismatches));
  }
  Wide* wide_scalar() const { return scratch.as<Wide>(); }
  Mismatches* mismatches() const { return reinterpret_cast<Mismatches*>(scratch.as<char>() + 128); }

  template <class U>
  static U fetch(const U* device_value, cudaStream_t stream) {
    U value;
    ZOO_CUDA(cudaMemcpyAsync(&value, device_value, sizeof(U), cudaMemcpyDeviceToHost, stream));
    ZOO_CUDA(cudaStreamSynchronize(stream));
    return value;
  }

  // The shard's output against the reference; exits on CUDA errors. Host-side waits are plain
  // synchronizations: the check runs CUB's kernels and ours only, never the code under test.
  VerifyResult run(const GpuShard<T>& shard, bool copy, ScanKind kind, std::uint64_t seed) {
    const Op op;
    const cudaStream_t stream = shard.gpu->stream;
    const Wide identity = static_cast<Wide>(Op::template identity<T>());
    Wide carry = identity;  // the reduction of every element before the current chunk
    if (!copy) {
      for (std::int64_t first = 0; first < shard.begin; first += kCheckChunk) {
        const std::int64_t count = std::min(kCheckChunk, shard.begin - first);
        std::size_t bytes = temp_bytes;
        ZOO_CUDA(cub::DeviceReduce::Reduce(temp.pointer, bytes, wide_inputs_from<T>(seed, first), wide_scalar(),
                                           count, op, identity, stream));
        carry = op(carry, fetch(wide_scalar(), stream));
      }
    }
    VerifyResult result;
    ZOO_CUDA(cudaMemsetAsync(mismatches(), 0, sizeof(Mismatches), stream));
    ZOO_CUDA(cudaMemsetAsync(&mismatches()->first, 0xFF, sizeof(unsigned long long), stream));
    for (std::int64_t first = shard.begin; first < shard.begin + shard.n; first += kCheckChunk) {
      const std::int64_t count = std::min(kCheckChunk, shard.begin + shard.n - first);
      const T* got = shard.out + (first - shard.begin);
      if (!copy) {
        std::size_t bytes = temp_bytes;
        ZOO_CUDA(cub::DeviceScan::InclusiveScan(temp.pointer, bytes, wide_inputs_from<T>(seed, first), ref.as<Wide>(),
                                                op, count, stream));
      }
      compare_chunk<T, Op><<<1024, 256, 0, stream>>>(got, copy ? nullptr : ref.as<Wide>(), count, carry,
                                                    kind == ScanKind::Exclusive, first, seed, mismatches());
      ZOO_CHECK_LAUNCH();
      const Mismatches found = fetch(mismatches(), stream);
      if (found.count > 0 && result.mismatches == 0) {  // the first wrong chunk: describe its first
        const std::int64_t j = static_cast<std::int64_t>(found.first) - first;
        T want;
        if (copy) want = input_value<T>(seed, found.first);
        else if (kind == ScanKind::Exclusive) want = narrow<T>(j == 0 ? carry : op(carry, fetch(ref.as<Wide>() + j - 1, stream)));
        else want = narrow<T>(op(carry, fetch(ref.as<Wide>() + j, stream)));
        result.first_bad = static_cast<std::int64_t>(found.first);
        result.expected = format_value(want);
        result.got = format_value(fetch(got + j, stream));
      }
      result.mismatches = static_cast<std::int64_t>(found.count);
      if (!copy) carry = op(carry, fetch(ref.as<Wide>() + count - 1, stream));
    }
    return result;
  }
};

// The scan (kCopy false) or the copy (true) of an array sharded over the GPUs. Which check runs is
// a run-time argument of ShardCheck and compare_chunk, so that the scans' binaries and the copy's
// build the same check kernels (CUB's included).
template <class T, class Op, bool kCopy>
class ShardedArrayProblem {
 public:
  static constexpr const char* kName = kCopy ? "copy across GPUs" : "scan across GPUs";
  static constexpr const char* kInputDescription = "random integers in [-8, 8], generated on each GPU";
  static constexpr bool kTakesInputFile = false;
  static constexpr bool kUsesSegmentLength = false;
  static constexpr bool kUsesRowLength = false;
  static constexpr bool kUsesColumns = false;
  static constexpr bool kRunsInPlace = !kCopy;
  static constexpr bool kTakesValues = false;
  static std::string op_label() { return Op::name; }
  static std::string mode_label(ScanKind kind, const Options&) { return scan_kind_name(kind); }
  static const char* unsupported_reason(ScanKind) { return nullptr; }

  ShardedArrayProblem(std::int64_t n, ScanKind kind, const Options& options, const T*)
      : n_(n), kind_(kind), in_place_(options.in_place && kRunsInPlace) {}

  // Rank r's shard on the GPU of rank r, for each GPU of this process.
  void place(const std::vector<Gpu>& gpus, int world) {
    shards_.resize(gpus.size());
    ins_ = std::vector<DeviceBuffer>(gpus.size());
    outs_ = std::vector<DeviceBuffer>(gpus.size());
    checks_ = std::vector<ShardCheck<T, Op>>(gpus.size());
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      GpuShard<T>& shard = shards_[g];
      shard.gpu = &gpus[g];
      shard.begin = static_cast<std::int64_t>(static_cast<unsigned __int128>(n_) * gpus[g].rank / world);
      shard.n = static_cast<std::int64_t>(static_cast<unsigned __int128>(n_) * (gpus[g].rank + 1) / world) -
                shard.begin;
    }
  }
  const std::vector<GpuShard<T>>& shards() const { return shards_; }

  // Saturating sums (problem.cuh): a shard of 2^61 elements and more has no 64-bit byte count.
  std::size_t device_bytes(std::size_t g) const {
    return add_bytes(checked_bytes(in_place_ ? 1 : 2, data_bytes(g)), ShardCheck<T, Op>::device_bytes(kCopy));
  }
  std::string device_bytes_detail(std::size_t g) const {
    return std::string(in_place_ ? "one shard array (in place) of" : "shard input and output") + " " +
           std::to_string(data_bytes(g)) + " each, check " + std::to_string(ShardCheck<T, Op>::device_bytes(kCopy));
  }
  bool allocate(std::size_t g) {
    const bool here = outs_[g].allocate(data_bytes(g)) && (in_place_ || ins_[g].allocate(data_bytes(g))) &&
                      checks_[g].allocate(kCopy);
    shards_[g].out = outs_[g].template as<T>();
    shards_[g].in = in_place_ ? shards_[g].out : ins_[g].template as<T>();
    return here;
  }

  void prepare(std::uint64_t seed) {
    for (GpuShard<T>& shard : shards_) {
      ZOO_CUDA(cudaSetDevice(shard.gpu->device));
      if (shard.n == 0) continue;
      generate_shard<<<1024, 256, 0, shard.gpu->stream>>>(const_cast<T*>(shard.in), shard.n, shard.begin, seed);
      ZOO_CHECK_LAUNCH();
      if (!in_place_) ZOO_CUDA(cudaMemsetAsync(shard.out, kPoisonByte, shard.n * sizeof(T), shard.gpu->stream));
    }
  }
  template <class Variant>
  void run() const {
    Variant::template run<T, Op>(shards_, kind_);
  }
  VerifyResult check(std::size_t g, std::uint64_t seed) { return checks_[g].run(shards_[g], kCopy, kind_, seed); }
  // Read and write every element once, on whichever GPU holds it.
  double bytes_moved() const { return 2.0 * double(n_) * sizeof(T); }

 private:
  std::size_t data_bytes(std::size_t g) const { return checked_bytes(shards_[g].n, sizeof(T)); }

  std::int64_t n_;
  ScanKind kind_;
  bool in_place_;
  std::vector<GpuShard<T>> shards_;
  std::vector<DeviceBuffer> ins_, outs_;
  std::vector<ShardCheck<T, Op>> checks_;
};

template <class T, class Op>
using ShardedScanProblem = ShardedArrayProblem<T, Op, false>;
template <class T, class Op>
using ShardedCopyProblem = ShardedArrayProblem<T, Op, true>;

struct ShardedVariantDefaults : VariantDefaults {
  using Launcher = ShardedLauncher;
  template <class T, class Op>
  using Problem = ShardedScanProblem<T, Op>;
  using Types = AllTypes;
  // Each GPU's shard is scanned by the library's look-back (variant.cuh: kHandsOverAcrossTiles).
  static constexpr bool kHandsOverAcrossTiles = true;
};

}  // namespace zoo
