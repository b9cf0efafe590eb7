// list_space.cu -- lists the tuned scan's configuration space (include/scan_zoo/detail/tuned_space.cuh)
// as one whitespace-separated table: a header line, then one row per configuration in index order.
// tune/tune_select.py reads it to check that every name in a sweep is a configuration of this
// space, to name the shipped configurations by index in the generated table (ConfigAt<i>), and to
// tell its reports each configuration's parameters. Host-only: it instantiates the configurations'
// types and their names (tuned_config_name), no kernel, so it builds in seconds.
//
//   make build/tune/space.txt      (build/tune/list_space > build/tune/space.txt)
//
// Columns: index name threads items publish descriptor_stride per_lane sleep_ns aggregate, with
// publish (store, exch, exchfence) and aggregate (scanned, early) in the words of the name.
#include <cstdio>
#include <utility>

#include <scan_zoo/detail/tuned_space.cuh>

#include "single_pass/tuned_names.cuh"

namespace zoo {
namespace {

// Configuration I's row.
template <int I>
void print_row() {
  using Config = tuned::ConfigAt<I>;
  std::printf("%d %s %d %d %s %d %d %d %s\n", I, tuned_config_name<Config>().c_str(), Config::kThreads, Config::kItems,
              publish_instruction_word(Config::kPublish), Config::kDescriptorStride, Config::kPerLane, Config::kSleepNs,
              aggregate_word(Config::kAggregate));
}

template <int... I>
void print_rows(std::integer_sequence<int, I...>) {
  (print_row<I>(), ...);
}

}  // namespace
}  // namespace zoo

int main() {
  std::printf("index name threads items publish descriptor_stride per_lane sleep_ns aggregate\n");
  zoo::print_rows(std::make_integer_sequence<int, zoo::tuned::kSpaceSize>{});
  return 0;
}
