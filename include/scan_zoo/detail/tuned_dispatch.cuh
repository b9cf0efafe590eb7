// scan_zoo/detail/tuned_dispatch.cuh -- picks the configuration of the tuned single-pass scan
// (tuned_kernel.cuh) for this GPU and N from the tables measured by the zoo's `make tune`
// (tuned_table.cuh), and launches it.
//
// Which table: the one measured on a GPU of this device name; else, on a GPU nobody measured,
// the table of a measured GPU with the same compute capability, the nearest SM count and then
// the nearest peak memory bandwidth (an H100 PCIe, 114 SMs and 2 TB/s, borrows the H100 SXM's);
// else (another architecture) the fallback configuration, chosen by the tuning to be decent at
// every N on every measured GPU (bench/<gpu>/TUNING.md).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "scratch.cuh"
#include "tuned_table.cuh"

namespace scan_zoo::detail {

// Calls fn(Config{}) for the index-th configuration of the list.
template <class Fn, class... Configs>
constexpr void with_config(int index, TypeList<Configs...>, Fn&& fn) {
  int i = 0;
  ((i++ == index ? (fn(Configs{}), 0) : 0), ...);
}

template <class... Configs>
constexpr int count_of(TypeList<Configs...>) {
  return sizeof...(Configs);
}

struct TunedDispatch {
  // How many configurations the table ships: a forced configuration (scan.cuh, Options::config)
  // is an index below it.
  static constexpr int kConfigCount = count_of(tuned::Configs{});

  // The table for a GPU of this name, compute capability, SM count and peak memory bandwidth (see
  // the top of this file), or none. Host code only, so that a unit test can ask it about GPUs
  // nobody has (the zoo's tests/cuda/harness_selftest.cu).
  static const tuned::Table* table_for(const std::string& name, int cc_major, int cc_minor, int sms,
                                       double peak_gbps) {
    const tuned::Table* nearest = nullptr;
    const auto distance = [&](const tuned::Table& t) {
      return std::make_pair(std::abs(t.sms - sms), std::abs(t.peak_memory_gbps - peak_gbps));
    };
    for (const tuned::Table& candidate : tuned::kTables) {
      if (candidate.count == 0) continue;
      if (name == candidate.gpu) return &candidate;
      const bool compatible = candidate.cc_major == cc_major && candidate.cc_minor == cc_minor;
      if (compatible && (!nearest || distance(candidate) < distance(*nearest))) nearest = &candidate;
    }
    return nearest;
  }

  // The table for the current device, looked up once per device (a process may drive several
  // GPUs); returns the error of the device query, if any.
  static cudaError_t table_for_current_device(const tuned::Table*& table) {
    int device = 0;
    if (const cudaError_t error = cudaGetDevice(&device); error != cudaSuccess) return error;
    static std::mutex mutex;
    static std::map<int, const tuned::Table*> tables;
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto found = tables.find(device); found != tables.end()) {
      table = found->second;
      return cudaSuccess;
    }
    int memory_clock_khz = 0;
    cudaDeviceProp props{};
    if (const cudaError_t error = cudaGetDeviceProperties(&props, device); error != cudaSuccess) return error;
    if (const cudaError_t error = cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device);
        error != cudaSuccess)
      return error;
    const double peak_gbps = 2.0 * memory_clock_khz * 1e3 * props.memoryBusWidth / 8 / 1e9;
    table = tables[device] = table_for(props.name, props.major, props.minor, props.multiProcessorCount, peak_gbps);
    return cudaSuccess;
  }

  // The configuration for n: the row of the smallest power of two >= n (the nearest measured
  // size at or above), clamped to the table's range; the fallback without a table.
  static int config_for(const tuned::Table* table, std::int64_t n) {
    if (!table) return tuned::kFallback;
    int log2_n = 0;
    while ((std::int64_t(1) << log2_n) < n) ++log2_n;
    for (int r = 0; r < table->count; ++r)
      if (table->rows[r].log2_n >= log2_n) return table->rows[r].config;
    return table->rows[table->count - 1].config;
  }

  // The fallback's tile: what the tests take as "the" tile of the tuned scan.
  static constexpr std::int64_t kTileItems = [] {
    std::int64_t items = 0;
    with_config(tuned::kFallback, tuned::Configs{}, [&](auto config) { items = decltype(config)::kTileItems; });
    return items;
  }();

  template <class Acc>
  static std::size_t workspace_bytes(int config, std::int64_t n) {
    std::size_t bytes = 0;
    with_config(config, tuned::Configs{}, [&](auto c) { bytes = TunedScan<decltype(c)>::template workspace_bytes<Acc>(n); });
    return bytes;
  }

  // The most that any configuration needs for n: what caller memory must hold whichever
  // configuration a GPU picks (scan.cuh, workspace_bytes).
  template <class Acc>
  static std::size_t max_workspace_bytes(std::int64_t n) {
    std::size_t most = 0;
    for (int config = 0; config < kConfigCount; ++config) {
      const std::size_t bytes = workspace_bytes<Acc>(config, n);
      most = bytes > most ? bytes : most;
    }
    return most;
  }

  // One scan with configuration `config` and the caller's epoch for this run of the workspace;
  // returns the launch's error.
  template <class Args>
  static cudaError_t launch(int config, const Args& args, Scratch scratch, std::uint32_t epoch, cudaStream_t stream) {
    cudaError_t result = cudaSuccess;
    with_config(config, tuned::Configs{},
                [&](auto c) { result = TunedScan<decltype(c)>::launch(args, scratch, epoch, stream); });
    return result;
  }
};

}  // namespace scan_zoo::detail
