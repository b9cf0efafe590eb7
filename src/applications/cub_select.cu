// cub_select -- NVIDIA CUB's cub::DeviceSelect::If: the reference row for stream_compaction.
//
// Idea: CUB's select is the same fused single-pass design as our stream_compaction (Merrill &
// Garland's decoupled look-back over per-tile selection counts): each tile evaluates the
// predicate, scans its flags, looks back for the number selected before it, and scatters the
// selected items (through shared memory when few are selected). The number selected goes to a
// device counter (here an int64).
//
// Work: O(N); depth: O(log tile) + the look-back. Launches: 2 (tile-state initialisation, then
// the select). Global traffic: 1 read per element + 1 write per kept element, so with half the
// elements kept 1.5 accesses per element; GB/s counts (N + kept) x sizeof(T), as for
// stream_compaction.
//
// Constraints: int32 and float32; predicate x > 0 (zoo::KeepPositive); 64-bit N. --op sum
// --inclusive only (the rows are labelled "select x>0").
//
// In the charts (bench/<gpu>/applications.png): the dashed reference of the compaction panel.
//
// Run: make bin/cub_select && ./bin/cub_select 2^28
#include <cub/device/device_select.cuh>

#include "../harness/harness.cuh"
#include "applications.cuh"

namespace {

struct CubSelect : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::CompactionProblem<T, Op>;

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    std::size_t bytes = 0;
    ZOO_CUDA(cub::DeviceSelect::If(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                   static_cast<std::int64_t*>(nullptr), n, zoo::KeepPositive{}));
    return bytes;
  }

  template <class T>
  static void run(const T* in, T* out, std::int64_t* count, std::int64_t n, zoo::Workspace workspace,
                  cudaStream_t stream) {
    std::size_t bytes = workspace.bytes;  // no size query inside the timed region
    ZOO_CUDA(cub::DeviceSelect::If(workspace.data, bytes, in, out, count, n, zoo::KeepPositive{}, stream));
  }
};

}  // namespace

ZOO_MAIN(CubSelect)
