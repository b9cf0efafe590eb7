// shard.cu -- instantiates the configurations i of the space (src/single_pass/tuned_space.cuh)
// with i % TUNE_SHARDS == TUNE_SHARD (int32 sum) and registers them with the tuner. Built once per
// shard by the Makefile (make tuner).
#include <utility>

#include <scan_zoo/detail/tuned_space.cuh>

#include "registry.cuh"
#include "single_pass/tuned_scan.cuh"

#if !defined(TUNE_SHARD) || !defined(TUNE_SHARDS)
#error "build with -DTUNE_SHARD=s -DTUNE_SHARDS=S (make tuner)"
#endif

namespace zoo::tune {
namespace {

using tuned::ConfigAt;
using tuned::kSpaceSize;

template <int I>
void describe(cudaFuncAttributes& attributes, int& blocks_per_sm) {
  const auto kernel = tuned_scan_kernel<ConfigAt<I>, scan_zoo::detail::ScanArgs<std::int32_t, std::int32_t, std::int32_t, Sum>>;
  ZOO_CUDA(cudaFuncGetAttributes(&attributes, kernel));
  ZOO_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, ConfigAt<I>::kThreads, 0));
}

template <int I>
Entry entry() {
  using Scan = TunedScan<ConfigAt<I>>;
  return {I, tuned_config_name<ConfigAt<I>>(), &Scan::template workspace_bytes<std::int32_t, Sum>,
          &Scan::template run<std::int32_t, Sum>, &describe<I>};
}

template <int... K>
void register_shard(std::integer_sequence<int, K...>) {
  (registry().push_back(entry<TUNE_SHARD + K * TUNE_SHARDS>()), ...);
}

constexpr int kInShard = (kSpaceSize - TUNE_SHARD + TUNE_SHARDS - 1) / TUNE_SHARDS;

[[maybe_unused]] const bool registered = (register_shard(std::make_integer_sequence<int, kInShard>{}), true);

}  // namespace
}  // namespace zoo::tune
