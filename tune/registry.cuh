// registry.cuh -- how the tuner's translation units hand it their configurations. Each shard
// (shard.cu, compiled once per shard so the 864 kernels build in parallel) registers the
// configurations it instantiated at static-initialization time; the tuner sorts them by index.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/ops.cuh"
#include "core/workspace.cuh"

namespace zoo::tune {

// One configuration, instantiated for int32 sum (what the tuner measures).
struct Entry {
  int index;  // in the space (include/scan_zoo/detail/tuned_space.cuh)
  std::string name;
  std::size_t (*workspace_bytes)(std::int64_t n);
  void (*run)(const std::int32_t* in, std::int32_t* out, std::int64_t n, ScanKind kind, Workspace workspace,
              cudaStream_t stream);
  // The kernel's registers, local memory (non-zero: it spills) and resident blocks per SM.
  void (*describe)(cudaFuncAttributes& attributes, int& blocks_per_sm);
};

inline std::vector<Entry>& registry() {
  static std::vector<Entry> entries;
  return entries;
}

}  // namespace zoo::tune
