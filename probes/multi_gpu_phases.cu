// multi_gpu_phases.cu -- where multi_gpu_scan's time goes: its three phases timed apart, on every
// visible GPU (or --gpus G) of one process (bench/NOTES.md, "A scan across GPUs").
//
// Per rep, as the multi-GPU launcher times a whole scan (a barrier, the L2 flush on every GPU),
// each GPU records an event before the reduce, before the exchange, before the scan and after it,
// around the library's own phases (scan_zoo::detail::reduce_shards, exchange_totals,
// scan_shards). A phase's time is the slowest GPU's; the exchange's includes its wait for the
// slowest reduce, which is part of what it costs. Rows (the timing.txt schema): phase_reduce,
// phase_exchange, phase_scan and phase_total, int32 sum inclusive, N global, gpus = G; GB/s
// counts what the phase moves (the reduce N reads, the scan and the total 2 N accesses, the
// exchange none: nan). The data is generated, not checked: multi_gpu_scan checks these phases.
// Run: make multi-gpu-phases && ./build/probes/multi_gpu_phases 2^26,2^30 --gpus 2
#include <scan_zoo/multi_gpu.cuh>

#include <array>

#include "multi_gpu/sharded_problem.cuh"

int main(int argc, char** argv) {
  using namespace zoo;
  using T = std::int32_t;
  Options options;
  try {
    options = parse_command_line(argc, argv);
  } catch (const UsageError& error) {
    std::fprintf(stderr, "multi_gpu_phases: error: %s\n", error.what());
    return kExitUsage;
  }
  g_timeout_s = options.timeout_s;
  ShardedLauncher launcher;
  launcher.start(options, "multi_gpu_phases", true);
  std::vector<Gpu>& gpus = launcher.gpus();
  const int reps = options.reps > 0 ? options.reps : 30;
  std::map<int, scan_zoo::Workspace> workspaces;
  for (const std::int64_t n : options.sizes) {
    std::vector<DeviceBuffer> ins(gpus.size()), outs(gpus.size());
    std::vector<scan_zoo::Shard<T>> shards(gpus.size());
    std::vector<std::array<cudaEvent_t, 4>> marks(gpus.size());
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      const std::int64_t begin = n * gpus[g].rank / launcher.world();
      const std::int64_t count = n * (gpus[g].rank + 1) / launcher.world() - begin;
      ZOO_CUDA(cudaSetDevice(gpus[g].device));
      if (!ins[g].allocate(count * sizeof(T)) || !outs[g].allocate(count * sizeof(T))) {
        std::fprintf(stderr, "multi_gpu_phases: n=%lld does not fit on GPU %d\n", static_cast<long long>(n),
                     gpus[g].device);
        return kExitCudaOrMemory;
      }
      generate_shard<<<1024, 256, 0, gpus[g].stream>>>(ins[g].as<T>(), count, begin, options.seed);
      ZOO_CHECK_LAUNCH();
      shards[g] = {gpus[g].device, ins[g].as<T>(), outs[g].as<T>(), count, gpus[g].comm, gpus[g].stream,
                   &workspaces[gpus[g].device]};
      for (cudaEvent_t& mark : marks[g]) ZOO_CUDA(cudaEventCreate(&mark));
    }
    const auto mark = [&](int which) {
      for (std::size_t g = 0; g < gpus.size(); ++g) {
        ZOO_CUDA(cudaSetDevice(gpus[g].device));
        ZOO_CUDA(cudaEventRecord(marks[g][which], gpus[g].stream));
      }
    };
    const auto check = [](const scan_zoo::ShardedStatus& status) {
      if (status.cuda != cudaSuccess) ZOO_CUDA(status.cuda);
      if (status.nccl != ncclSuccess) ZOO_NCCL(status.nccl);
    };
    std::array<std::vector<float>, 4> times;  // reduce, exchange, scan, total
    for (int rep = -options.warmup; rep < reps; ++rep) {
      barrier_then_flush(gpus, options.hot);
      std::vector<scan_zoo::detail::ShardPlan<T>> plans(shards.size());
      const int count = static_cast<int>(shards.size());
      mark(0);
      check(scan_zoo::detail::reduce_shards<T, Sum>(shards.data(), count, Sum{}, plans));
      mark(1);
      check(scan_zoo::detail::exchange_totals(shards.data(), count, plans));
      mark(2);
      check(scan_zoo::detail::scan_shards<T, Sum>(shards.data(), count, Sum{}, plans, ScanKind::Inclusive, T(0)));
      mark(3);
      wait_all_or_die(gpus, "a timed run");
      if (rep < 0) continue;
      for (int phase = 0; phase < 4; ++phase) {
        float slowest = 0;
        for (std::size_t g = 0; g < gpus.size(); ++g) {
          float ms = 0;
          ZOO_CUDA(cudaEventElapsedTime(&ms, marks[g][phase == 3 ? 0 : phase], marks[g][phase == 3 ? 3 : phase + 1]));
          slowest = std::max(slowest, ms);
        }
        times[phase].push_back(slowest);
      }
    }
    static const char* const names[] = {"phase_reduce", "phase_exchange", "phase_scan", "phase_total"};
    static const double accesses[] = {1, 0, 2, 2};
    for (int phase = 0; phase < 4; ++phase) {
      const Stats stats = summarize(times[phase]);
      const double gbps = accesses[phase] > 0 ? accesses[phase] * n * sizeof(T) / (stats.median_ms * 1e-3) / 1e9 : NAN;
      print_row({names[phase], "int32", "sum", "inclusive", n, launcher.world()}, stats, gbps, "PASS");
    }
    for (auto& per_gpu : marks)
      for (cudaEvent_t& mark_event : per_gpu) ZOO_CUDA(cudaEventDestroy(mark_event));
  }
  return kExitPass;
}
