// tuned_names.cuh -- the tuned scan's configurations by name (e.g.
// "256x16.exch.dense.w32.spin.early"): the row names of bench/<gpu>/tuning.txt, the columns of the
// tuner's listing of the space (tune/list_space.cu) and the comments of the generated table.
// Host code on the kernel's configuration types only: no dispatch, no table, so that the listing
// does not depend on the table it is used to generate.
#pragma once

#include <scan_zoo/detail/tuned_kernel.cuh>

#include <string>

#include "../core/ops.cuh"

namespace zoo {

// The words a configuration's name spells its publish instruction and its aggregate's timing
// with; the tuner's listing of the space (tune/list_space.cu) has them as columns.
inline const char* publish_instruction_word(Publish how) {
  static const char* const words[] = {"store", "exch", "exchfence"};
  return words[static_cast<int>(how)];
}
inline const char* aggregate_word(Aggregate when) { return when == Aggregate::Early ? "early" : "scanned"; }

// E.g. "256x16.exch.dense.w32.spin.early": a configuration's row name in bench/<gpu>/tuning.txt.
// One function for every configuration (the tuner's listing compiles one body, not 864).
inline std::string tuned_config_name(int threads, int items, Publish how, int stride, int per_lane, int sleep_ns,
                                     Aggregate when) {
  return std::to_string(threads) + "x" + std::to_string(items) + "." + publish_instruction_word(how) + "." +
         (stride == 1 ? "dense" : "sector") + ".w" + std::to_string(kWarpSize * per_lane) + "." +
         (sleep_ns == 0 ? std::string("spin") : "sleep" + std::to_string(sleep_ns)) + "." + aggregate_word(when);
}

template <class Config>
std::string tuned_config_name() {
  return tuned_config_name(Config::kThreads, Config::kItems, Config::kPublish, Config::kDescriptorStride,
                           Config::kPerLane, Config::kSleepNs, Config::kAggregate);
}

}  // namespace zoo
