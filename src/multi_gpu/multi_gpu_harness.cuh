// multi_gpu_harness.cuh -- main() of the multi-GPU binaries (src/multi_gpu_*.cu): one global array
// of N elements sharded contiguously over G GPUs, rank r holding [N r / G, N (r + 1) / G). It keeps
// the single-GPU harness's command line, rows, exit codes, watchdog and timing protocol
// (harness.cuh), and adds what several GPUs need:
//
//   NCCL   one process drives every GPU (--gpus G, default every visible one; ncclCommInitAll),
//          or one process per GPU (--nccl-id FILE --rank R --gpus G; ncclCommInitRank, rank 0
//          passing NCCL's unique id to the others through FILE), as on several nodes.
//   data   generated on each GPU from the combination's seed: element i is zoo::input_value(seed,
//          i), the single-GPU harness's stream, so nothing of size N passes through the host.
//   check  on the GPUs, every element, exactly, against an independent reference: CUB's scan of
//          the same generated values in the wide type (int64, uint64 or double), chunk by chunk,
//          with the carry into each shard and chunk kept on the host in the wide type (the carry
//          into a shard: CUB reductions of everything before it). It shares nothing with the
//          code under test but the generator.
//   time   per rep: a barrier (a one-word NCCL all-reduce), the L2 flush on every GPU, then each
//          GPU's own event pair around the whole operation; the rep's time is the slowest GPU's
//          (each GPU waits in the exchange for the others, so that is the operation's time). Reps
//          are counted alike on every rank: a fixed --reps, or ~0.25 s worth from a probe rep.
//          A noisy batch (median over 1.5x the min) is measured again, as in harness.cuh.
//   rows   the timing.txt row with N global and G in its gpus column; GB/s counts every GPU's
//          traffic the single-GPU way (2 N sizeof(T): read and write once). Printed by the
//          process of rank 0 only.
//   errors fewer GPUs than asked, or not enough memory on any GPU: exit 4 with the count or that
//          GPU's needed and free bytes; an NCCL error: exit 4 with NCCL's text; a step of any GPU
//          longer than --timeout (a hang, or a peer that never joins): exit 5.
// --input and --output are refused (usage, exit 2): a file would have to hold the whole array on
// one host, which the multi-GPU scan exists to avoid.
//
// A variant supplies:
//   struct MyScan : zoo::MultiGpuVariantDefaults {
//     static constexpr std::int64_t kTileItems = ...;       // for --help (tests size by it)
//     template <class T, class Op>
//     static void run(const std::vector<zoo::GpuShard<T>>& shards, zoo::ScanKind kind);
//                 // enqueues the whole operation on every shard's stream (exit on error)
//     template <class T, class Op>
//     static std::size_t workspace_bytes(std::int64_t shard_n);  // its scratch per GPU (for the
//                                                                // memory check; default 0)
//   };
//   ZOO_MULTI_GPU_MAIN(MyScan)
// and kIsCopy = true for the memcpy ceiling (checked as a copy, not in place).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../harness/harness.cuh"

namespace zoo {

[[noreturn]] inline void nccl_fatal(ncclResult_t result, const char* expression, const char* file, int line) {
  const char* last = ncclGetLastError(nullptr);
  std::fprintf(stderr, "NCCL error %d at %s:%d\n  in: %s\n  %s%s%s\n", static_cast<int>(result), file, line,
               expression, ncclGetErrorString(result), last && *last ? ": " : "", last ? last : "");
  if (current_row().n >= 0) print_untimed_row(current_row(), "ERROR");
  std::fflush(stderr);
  std::exit(kExitCudaOrMemory);
}

}  // namespace zoo

#define ZOO_NCCL(expression)                                                   \
  do {                                                                         \
    ncclResult_t zoo_nccl_result_ = (expression);                              \
    if (zoo_nccl_result_ != ncclSuccess)                                       \
      ::zoo::nccl_fatal(zoo_nccl_result_, #expression, __FILE__, __LINE__);    \
  } while (0)

namespace zoo {

// One GPU this process drives.
struct Gpu {
  int rank = 0, device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;  // the watchdog's
  L2Flusher flusher;
  long long* word = nullptr;   // the barrier's and the agreements' all-reduces (kept for the process)
  long long* host_word = nullptr;  // its pinned host side: copies to and from it stay on `stream`
};

// One GPU's shard of a combination: what a variant's run() enqueues on.
template <class T>
struct GpuShard {
  const Gpu* gpu = nullptr;
  std::int64_t begin = 0, n = 0;  // its part of the global array
  const T* in = nullptr;
  T* out = nullptr;               // == in when in place
};

struct MultiGpuVariantDefaults {
  using Types = AllTypes;
  static constexpr bool kIsCopy = false;
  // Each GPU's shard is scanned by the library's look-back (variant.cuh: kHandsOverAcrossTiles).
  static constexpr bool kHandsOverAcrossTiles = true;
  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t) { return 0; }
};

struct MultiGpuSession {
  Options options;
  std::string variant;
  std::vector<Gpu> gpus;  // the ones this process drives
  int world = 1;          // every process's GPUs together
  bool prints_rows = true;  // the process of rank 0
  int exit_code = kExitPass;
  RunTimes run_ms;  // --budget-ms, as harness.cuh
};

// Waits for every GPU's queued work, with the watchdog of harness.cuh: a step longer than
// --timeout on any GPU ends the run (exit 5). NCCL's asynchronous errors end it too (exit 4).
inline void wait_all_or_die(const std::vector<Gpu>& gpus, const char* what) {
  for (const Gpu& gpu : gpus) {
    ZOO_CUDA(cudaSetDevice(gpu.device));
    ZOO_CUDA(cudaEventRecord(gpu.done, gpu.stream));
  }
  const auto start = std::chrono::steady_clock::now();
  for (const Gpu& gpu : gpus) {
    while (true) {
      const cudaError_t status = cudaEventQuery(gpu.done);
      if (status == cudaSuccess) break;
      if (status != cudaErrorNotReady) ZOO_CUDA(status);
      ncclResult_t async = ncclSuccess;
      ZOO_NCCL(ncclCommGetAsyncError(gpu.comm, &async));
      if (async != ncclSuccess) nccl_fatal(async, "an NCCL operation (ncclCommGetAsyncError)", __FILE__, __LINE__);
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited > g_timeout_s) watchdog_fire(what);
      if (waited < 1e-3) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

// The word every process agrees on: each process puts `mine` in, every one gets `op` (sum, min or
// max) of all of them. A process of several GPUs counts once in a sum: its others put in 0.
// Every copy goes through the pinned host word on the GPU's own stream. A plain cudaMemcpy from
// pageable memory may return before its bytes land, and the stream is non-blocking, so the
// all-reduce could read the word's old value: under load it read 0, and a memory check that every
// rank passed said "another rank has not enough device memory". A pageable read-back would block
// the host until the all-reduce ends, out of the watchdog's reach.
inline long long agree(std::vector<Gpu>& gpus, long long mine, ncclRedOp_t op, const char* what) {
  for (Gpu& gpu : gpus) {
    *gpu.host_word = op == ncclSum && &gpu != &gpus[0] ? 0 : mine;
    ZOO_CUDA(cudaSetDevice(gpu.device));
    ZOO_CUDA(cudaMemcpyAsync(gpu.word, gpu.host_word, sizeof *gpu.word, cudaMemcpyHostToDevice, gpu.stream));
  }
  ZOO_NCCL(ncclGroupStart());
  for (Gpu& gpu : gpus)
    ZOO_NCCL(ncclAllReduce(gpu.word, gpu.word, 1, ncclInt64, op, gpu.comm, gpu.stream));
  ZOO_NCCL(ncclGroupEnd());
  ZOO_CUDA(cudaSetDevice(gpus[0].device));
  ZOO_CUDA(cudaMemcpyAsync(gpus[0].host_word, gpus[0].word, sizeof *gpus[0].word, cudaMemcpyDeviceToHost,
                           gpus[0].stream));
  wait_all_or_die(gpus, what);
  return *gpus[0].host_word;
}

// ---------------------------------------------------------------------------------------------
// Data and its check, on the GPUs.
// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// Setting up: the GPUs and their communicators.
// ---------------------------------------------------------------------------------------------

// Runs `init` (a blocking NCCL initialisation, which waits for every rank to join) under the
// watchdog: a peer that never comes ends the run with exit 5 instead of a hang.
template <class Init>
void under_watchdog(const char* what, Init&& init) {
  std::atomic<bool> finished{false};
  std::thread worker([&] {
    init();
    finished = true;
  });
  const auto start = std::chrono::steady_clock::now();
  while (!finished) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > g_timeout_s)
      watchdog_fire(what);  // _Exit: the worker thread goes with the process
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  worker.join();
}

// One process per GPU: rank 0 writes NCCL's unique id to the file (through a temporary name
// and a rename, so a reader never sees half of it); the others wait for the file to appear.
inline ncclUniqueId exchange_unique_id(const Options& options) {
  ncclUniqueId id{};
  const std::string& path = options.nccl_id_path;
  if (options.rank == 0) {
    ZOO_NCCL(ncclGetUniqueId(&id));
    const std::string temporary = path + ".partial";
    std::ofstream file(temporary, std::ios::binary);
    file.write(id.internal, sizeof id.internal);
    file.close();
    if (!file || std::rename(temporary.c_str(), path.c_str()) != 0) {
      std::fprintf(stderr, "cannot write --nccl-id file '%s': %s\n", path.c_str(), std::strerror(errno));
      std::exit(kExitUsage);
    }
    return id;
  }
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    std::ifstream file(path, std::ios::binary);
    if (file && file.read(id.internal, sizeof id.internal) && file.gcount() == sizeof id.internal) return id;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > g_timeout_s) {
      std::fprintf(stderr, "rank %d: no NCCL id in '%s' after %.3g s (--timeout): did rank 0 start?\n", options.rank,
                   path.c_str(), g_timeout_s);
      std::exit(kExitWatchdog);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The GPUs of this process and their communicators; exits 4 when fewer GPUs are visible than asked.
inline void set_up_gpus(MultiGpuSession& session) {
  const Options& options = session.options;
  int visible = 0;
  ZOO_CUDA(cudaGetDeviceCount(&visible));
  const bool per_process = options.rank >= 0;
  session.world = options.gpus > 0 ? options.gpus : visible;
  const int needed = per_process ? 1 : session.world;
  if (needed > visible) {
    std::fprintf(stderr, "%s: --gpus %d asks for %d GPUs in this process, but %d %s visible\n",
                 session.variant.c_str(), session.world, needed, visible, visible == 1 ? "is" : "are");
    std::exit(kExitCudaOrMemory);
  }
  session.gpus.resize(needed);
  std::vector<ncclComm_t> comms(needed);
  if (per_process) {
    Gpu& gpu = session.gpus[0];
    gpu.rank = options.rank;
    gpu.device = options.rank % visible;  // with CUDA_VISIBLE_DEVICES set per process: device 0
    session.prints_rows = options.rank == 0;
    if (options.rank == 0 && std::ifstream(options.nccl_id_path)) {
      std::fprintf(stderr, "%s: --nccl-id file '%s' exists already: give a fresh path for each launch\n",
                   session.variant.c_str(), options.nccl_id_path.c_str());
      std::exit(kExitUsage);
    }
    const ncclUniqueId id = exchange_unique_id(options);
    ZOO_CUDA(cudaSetDevice(gpu.device));
    under_watchdog("joining the other ranks (ncclCommInitRank)",
                   [&] { ZOO_NCCL(ncclCommInitRank(&comms[0], session.world, id, options.rank)); });
    if (options.rank == 0) std::remove(options.nccl_id_path.c_str());  // everyone has read it
  } else {
    std::vector<int> devices(needed);
    for (int g = 0; g < needed; ++g) session.gpus[g].rank = session.gpus[g].device = devices[g] = g;
    under_watchdog("setting up NCCL (ncclCommInitAll)",
                   [&] { ZOO_NCCL(ncclCommInitAll(comms.data(), needed, devices.data())); });
  }
  for (int g = 0; g < needed; ++g) {
    Gpu& gpu = session.gpus[g];
    gpu.comm = comms[g];
    ZOO_CUDA(cudaSetDevice(gpu.device));
    ZOO_CUDA(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
    ZOO_CUDA(cudaEventCreateWithFlags(&gpu.done, cudaEventDisableTiming));
    ZOO_CUDA(cudaMalloc(&gpu.word, sizeof(long long)));
    ZOO_CUDA(cudaMallocHost(&gpu.host_word, sizeof(long long)));
    // Every GPU is taken to be of one kind: the flush is sized by the first one's L2.
    if (!options.check_only && !options.hot) gpu.flusher.prepare();
  }
}

// ---------------------------------------------------------------------------------------------
// One combination: shards, memory, verified rounds, timing, the row.
// ---------------------------------------------------------------------------------------------
template <class Variant, class T, class Op>
int run_multi_gpu_combination(MultiGpuSession& session, ScanKind kind, std::int64_t n, RowLabel row) {
  const Options& options = session.options;
  std::vector<Gpu>& gpus = session.gpus;
  const auto print = [&](const std::string& status) {
    if (session.prints_rows) print_untimed_row(row, status);
  };
  const std::string label = row.variant + " " + row.type + " " + row.op + " " + row.mode + " n=" +
                            std::to_string(n) + " gpus=" + std::to_string(session.world);
  const bool copy = Variant::kIsCopy;
  const bool in_place = options.in_place;
  if (n == 0) {
    std::fprintf(stderr, "%s: empty input, nothing to do: PASS\n", label.c_str());
    print("PASS");
    return kExitPass;
  }
  const std::string combination_key = row.type + " " + row.op + " " + row.mode;
  if (over_budget(options, session.run_ms, combination_key, n, label)) {
    print("SKIPPED(over-budget)");
    return kExitPass;
  }

  // ---- shards and memory: every GPU checks its own, then all agree ----
  std::vector<GpuShard<T>> shards(gpus.size());
  std::vector<DeviceBuffer> ins(gpus.size()), outs(gpus.size());
  std::vector<ShardCheck<T, Op>> checks(gpus.size());
  bool fits = true;
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    GpuShard<T>& shard = shards[g];
    shard.gpu = &gpus[g];
    shard.begin = static_cast<std::int64_t>(static_cast<unsigned __int128>(n) * gpus[g].rank / session.world);
    shard.n = static_cast<std::int64_t>(static_cast<unsigned __int128>(n) * (gpus[g].rank + 1) / session.world) -
              shard.begin;
    ZOO_CUDA(cudaSetDevice(gpus[g].device));
    // Saturating sums (problem.cuh): a shard of 2^61 elements and more has no 64-bit byte count.
    const std::size_t data_bytes = checked_bytes(shard.n, sizeof(T));
    const std::size_t check_bytes = ShardCheck<T, Op>::device_bytes(copy);
    const std::size_t workspace_bytes = Variant::template workspace_bytes<T, Op>(shard.n);
    const std::size_t needed = add_bytes(add_bytes(checked_bytes(in_place ? 1 : 2, data_bytes), check_bytes), workspace_bytes);
    std::size_t free_bytes = 0, total_bytes = 0;
    ZOO_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    const bool here = needed <= free_bytes && outs[g].allocate(data_bytes) && (in_place || ins[g].allocate(data_bytes)) &&
                      checks[g].allocate(copy);
    if (!here) {
      std::fprintf(stderr,
                   "%s: not enough device memory on GPU %d (rank %d): needs %zu bytes (%s: %s %zu each, check %zu, "
                   "workspace %zu); %zu bytes (%s) free of %zu\n",
                   label.c_str(), gpus[g].device, gpus[g].rank, needed, human_bytes(double(needed)).c_str(),
                   in_place ? "one shard array (in place) of" : "shard input and output", data_bytes, check_bytes,
                   workspace_bytes, free_bytes, human_bytes(double(free_bytes)).c_str(), total_bytes);
      fits = false;
    }
    shard.out = outs[g].as<T>();
    shard.in = in_place ? shard.out : ins[g].as<T>();
  }
  if (agree(gpus, fits ? 1 : 0, ncclMin, "agreeing on the memory check") == 0) {
    if (fits) std::fprintf(stderr, "%s: another rank has not enough device memory\n", label.c_str());
    print("SKIPPED(device-memory)");
    return kExitCudaOrMemory;
  }

  // ---- verified rounds: fresh data on every GPU, output poisoned, one run, every element checked ----
  const auto run_once = [&] { Variant::template run<T, Op>(shards, kind); };
  for (int round = 0; round < options.repeat; ++round) {
    const std::uint64_t seed = combination_seed(options.seed, row) ^ mix64(round);
    for (GpuShard<T>& shard : shards) {
      ZOO_CUDA(cudaSetDevice(shard.gpu->device));
      if (shard.n == 0) continue;
      generate_shard<<<1024, 256, 0, shard.gpu->stream>>>(const_cast<T*>(shard.in), shard.n, shard.begin, seed);
      ZOO_CHECK_LAUNCH();
      if (!in_place) ZOO_CUDA(cudaMemsetAsync(shard.out, kPoisonByte, shard.n * sizeof(T), shard.gpu->stream));
    }
    if (options.inject_hang) {
      for (GpuShard<T>& shard : shards) {
        if (shard.gpu->rank != session.world - 1) continue;
        std::fprintf(stderr, "%s: --inject-hang: rank %d never finishes; the others wait for it\n", label.c_str(),
                     shard.gpu->rank);
        ZOO_CUDA(cudaSetDevice(shard.gpu->device));
        ZOO_CUDA(cudaMemsetAsync(shard.gpu->word, 0, sizeof(long long), shard.gpu->stream));
        never_finishing_kernel<<<1, 1, 0, shard.gpu->stream>>>(reinterpret_cast<const int*>(shard.gpu->word));
        ZOO_CHECK_LAUNCH();
      }
    }
    run_once();
    wait_all_or_die(gpus, "the verified run");
    VerifyResult local;
    for (std::size_t g = 0; g < shards.size(); ++g) {
      ZOO_CUDA(cudaSetDevice(gpus[g].device));
      const VerifyResult result = checks[g].run(shards[g], copy, kind, seed);
      if (!result.ok()) {
        std::fprintf(stderr,
                     "%s: GPU check: FAIL on rank %d (round %d of %d): %lld of its %lld elements wrong; first at "
                     "global index %lld: expected %s, got %s\n",
                     label.c_str(), gpus[g].rank, round + 1, options.repeat, static_cast<long long>(result.mismatches),
                     static_cast<long long>(shards[g].n), static_cast<long long>(result.first_bad),
                     result.expected.c_str(), result.got.c_str());
        local.mismatches += result.mismatches;
      }
    }
    if (agree(gpus, local.mismatches, ncclSum, "agreeing on the check") > 0) {
      print("FAIL");
      return kExitVerifyFailed;
    }
  }
  std::fprintf(stderr, "%s: GPU check of every element: PASS%s\n", label.c_str(),
               options.repeat > 1 ? (" (" + std::to_string(options.repeat) + " rounds)").c_str() : "");
  if (options.check_only) {
    print("PASS");
    return kExitPass;
  }

  // ---- timing: the protocol at the top of this file ----
  std::vector<cudaEvent_t> starts(gpus.size()), stops(gpus.size());
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    ZOO_CUDA(cudaSetDevice(gpus[g].device));
    ZOO_CUDA(cudaEventCreate(&starts[g]));
    ZOO_CUDA(cudaEventCreate(&stops[g]));
  }
  const auto timed_rep = [&]() -> float {
    agree(gpus, 0, ncclSum, "the barrier before a rep");
    for (Gpu& gpu : gpus) {
      ZOO_CUDA(cudaSetDevice(gpu.device));
      if (!options.hot) gpu.flusher.flush(gpu.stream);
    }
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      ZOO_CUDA(cudaSetDevice(gpus[g].device));
      ZOO_CUDA(cudaEventRecord(starts[g], gpus[g].stream));
    }
    run_once();
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      ZOO_CUDA(cudaSetDevice(gpus[g].device));
      ZOO_CUDA(cudaEventRecord(stops[g], gpus[g].stream));
    }
    wait_all_or_die(gpus, "a timed run");
    float slowest = 0;
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      float ms = 0;
      ZOO_CUDA(cudaEventElapsedTime(&ms, starts[g], stops[g]));
      slowest = std::max(slowest, ms);
    }
    // Across processes: the slowest GPU of all, in nanoseconds (the agreement is on integers).
    return static_cast<float>(agree(gpus, std::llround(slowest * 1e6), ncclMax, "agreeing on a rep") * 1e-6);
  };
  // One batch: the warm-up runs, then the reps. Every rank sees the same (agreed) times, so all
  // re-measure a noisy batch together and their collectives stay in step.
  const auto batch = [&]() -> Stats {
    for (int i = 0; i < options.warmup; ++i) {
      run_once();
      wait_all_or_die(gpus, "a warm-up run");
    }
    int reps = options.reps;
    std::vector<float> times_ms;
    if (reps == 0) {  // adaptive, alike on every rank: from a probe rep, which counts as the first
      times_ms.push_back(timed_rep());
      reps = static_cast<int>(std::clamp<double>(std::ceil(kAutoBudgetS * 1e3 / std::max(times_ms[0], 1e-3f)),
                                                 kMinReps, kMaxReps));
    }
    while (static_cast<int>(times_ms.size()) < reps) times_ms.push_back(timed_rep());
    return summarize(times_ms);
  };
  const Stats stats = remeasure_while_noisy(batch(), label, batch);
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    ZOO_CUDA(cudaEventDestroy(starts[g]));
    ZOO_CUDA(cudaEventDestroy(stops[g]));
  }
  session.run_ms[combination_key] = {n, stats.median_ms};
  const double gbps = 2.0 * double(n) * sizeof(T) / (stats.median_ms * 1e-3) / 1e9;
  report_timed(label, row, stats, gbps, options.hot, session.prints_rows);
  return kExitPass;
}

template <class Variant>
int multi_gpu_main(int argc, char** argv, const char* variant_file) {
  MultiGpuSession session;
  session.variant = variant_name_from_file(variant_file);
  if (!parse_options(argc, argv, session.variant, session.options)) return kExitUsage;
  Options& options = session.options;
  if (options.help)
    return print_help<Variant>(session.variant, "a scan across GPUs of scan-zoo",
                               Variant::kIsCopy ? "copy across GPUs" : "scan across GPUs", !Variant::kIsCopy);
  if (!options.input_path.empty() || !options.output_path.empty()) {
    std::fprintf(stderr, "%s: error: --input and --output are not supported: the multi-GPU binaries generate "
                         "their input on the GPUs and check it there\n", session.variant.c_str());
    return kExitUsage;
  }
  if (options.values || options.segment_length > 0) {
    std::fprintf(stderr, "%s: error: --values and --segment-length are for the sorts and the segmented scans\n",
                 session.variant.c_str());
    return kExitUsage;
  }
  g_timeout_s = options.timeout_s;

  // Unsupported combinations are known without a GPU (WAIVED rows, exit 3), as in harness.cuh.
  std::vector<Combination> combinations =
      list_combinations(options, session.variant, [&](const std::string& type, const std::string&, ScanKind) {
        const char* reason = nullptr;
        with_type(type, AllTypes{}, [&](auto t) {
          if constexpr (!contains<decltype(t)>(typename Variant::Types{}))
            reason = "this variant is not built for this element type";
        });
        if (!reason && options.in_place && Variant::kIsCopy) reason = "a copy does not run in place (--in-place)";
        return reason;
      });
  const bool any_supported = std::any_of(combinations.begin(), combinations.end(),
                                         [](const Combination& c) { return c.unsupported == nullptr; });
  if (options.device_info || any_supported) ensure_cuda_device();
  if (options.device_info) return print_device_info();
  if (any_supported) set_up_gpus(session);

  for (Combination& combination : combinations) {
    RowLabel& row = combination.row;
    row.gpus = session.world;
    if (combination.unsupported) {
      session.exit_code = worse_exit(session.exit_code, waive(combination, session.prints_rows));
      continue;
    }
    if (session.prints_rows) current_row() = row;  // a fatal error's row: printed once, by rank 0
    with_type(row.type, AllTypes{}, [&](auto t) {
      using T = decltype(t);
      if constexpr (contains<T>(typename Variant::Types{})) {
        with_op(row.op, AllOps{}, [&](auto o) {
          const int code = run_multi_gpu_combination<Variant, T, decltype(o)>(session, combination.kind, row.n, row);
          session.exit_code = worse_exit(session.exit_code, code);
        });
      }
    });
    current_row().n = -1;
  }
  for (Gpu& gpu : session.gpus) ncclCommDestroy(gpu.comm);
  return session.exit_code;
}

}  // namespace zoo

#define ZOO_MULTI_GPU_MAIN(...)                                                                  \
  int main(int argc, char** argv) {                                                              \
    return ::zoo::multi_gpu_main<__VA_ARGS__>(argc, argv, __FILE__);                     \
  }
