// single_pass_scan_tuned -- decoupled look-back with every implementation decision a parameter,
// auto-tuned per input size on the GPU it runs on, in one launch per scan.
//
// (teaching header: written once the tuning results are in)
#include "common/harness.cuh"
#include "common/tuned_table.cuh"

namespace {

// Calls fn(Config{}) for the index-th configuration of the list.
template <class Fn, class... Configs>
constexpr void with_config(int index, zoo::TypeList<Configs...>, Fn&& fn) {
  int i = 0;
  ((i++ == index ? (fn(Configs{}), 0) : 0), ...);
}

// The table measured on this GPU (matched by device name), or none.
const zoo::tuned::Table* table_for_this_gpu() {
  static const zoo::tuned::Table* table = [] {
    for (const zoo::tuned::Table& candidate : zoo::tuned::kTables)
      if (candidate.count > 0 && zoo::device_props().name == std::string(candidate.gpu)) return &candidate;
    return static_cast<const zoo::tuned::Table*>(nullptr);
  }();
  return table;
}

// The configuration for n: the row of the smallest power of two >= n (the nearest measured size
// at or above), clamped to the table's range; the fallback where this GPU has no table.
int config_for(std::int64_t n) {
  const zoo::tuned::Table* table = table_for_this_gpu();
  if (!table) return zoo::tuned::kFallback;
  int log2_n = 0;
  while ((std::int64_t(1) << log2_n) < n) ++log2_n;
  for (int r = 0; r < table->count; ++r)
    if (table->rows[r].log2_n >= log2_n) return table->rows[r].config;
  return table->rows[table->count - 1].config;
}

struct TunedVariant : zoo::VariantDefaults {
  static constexpr std::int64_t kTileItems = [] {
    std::int64_t items = 0;
    with_config(zoo::tuned::kFallback, zoo::tuned::Configs{}, [&](auto config) { items = decltype(config)::kTileItems; });
    return items;
  }();

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    std::size_t bytes = 0;
    with_config(config_for(n), zoo::tuned::Configs{},
                [&](auto config) { bytes = zoo::TunedScan<decltype(config)>::template workspace_bytes<T, Op>(n); });
    return bytes;
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind kind, zoo::Workspace workspace,
                  cudaStream_t stream) {
    with_config(config_for(n), zoo::tuned::Configs{},
                [&](auto config) { zoo::TunedScan<decltype(config)>::template run<T, Op>(in, out, n, kind, workspace, stream); });
  }
};

}  // namespace

ZOO_MAIN(TunedVariant)
