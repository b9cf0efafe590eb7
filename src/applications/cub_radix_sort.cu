// cub_radix_sort -- NVIDIA CUB's cub::DeviceRadixSort::SortKeys (SortPairs with --values): the
// reference row for radix_sort_three_kernels and radix_sort_onesweep.
//
// Idea: CUB sorts keys with "onesweep" (Adinets & Merrill 2022, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs"): one pass over the keys builds the histograms of all
// digits at once; then each digit pass reads and writes the keys once, every tile getting its
// output offsets per digit value from a decoupled look-back over the tiles' digit counts (a
// 256-wide scan in one pass, the same protocol as the zoo's single-pass scans). It sorts 8 bits
// per pass on this GPU's tuning.
//
// Work: O(N) per pass. Launches: about 2 + one per digit pass. Global traffic: about
// 9 accesses per element for 32-bit keys, 17 for 64-bit (one histogram read of the keys, then a
// read and a write per pass); the GB/s column counts 2 x the key's bytes (a copy's bytes), as
// for the zoo's sorts.
//
// Constraints: 32- and 64-bit keys of every zoo type (-0.0 and +0.0 are equal keys: a stable
// sort keeps their input order), with --values a 32-bit value each; 64-bit N. --op sum
// --inclusive only (the rows are labelled "sort ascending"). The workspace holds CUB's second
// key buffer (and value buffer): the input is left unchanged.
//
// In the charts (bench/<gpu>/applications.png): the dashed reference of the sort panel.
//
// Run: make bin/cub_radix_sort && ./bin/cub_radix_sort 2^28
#include <cub/device/device_radix_sort.cuh>

#include "../harness/harness.cuh"
#include "applications.cuh"

namespace {

struct CubRadixSort : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::SortProblem<T, Op>;
  using Types = zoo::AllTypes;
  static constexpr bool kSortsPairs = true;

  // Keys (values null) with SortKeys, pairs with SortPairs; 32-bit item counts where N fits, as
  // most CUB users call it, 64-bit beyond.
  template <class T, class Count>
  static cudaError_t sort(void* storage, std::size_t& bytes, const T* in, T* out, const std::uint32_t* values_in,
                          std::uint32_t* values_out, Count n, cudaStream_t stream) {
    constexpr int kBits = sizeof(T) * 8;
    if (values_in)
      return cub::DeviceRadixSort::SortPairs(storage, bytes, in, out, values_in, values_out, n, 0, kBits, stream);
    return cub::DeviceRadixSort::SortKeys(storage, bytes, in, out, n, 0, kBits, stream);
  }
  template <class T>
  static cudaError_t sort(void* storage, std::size_t& bytes, const T* in, T* out, const std::uint32_t* values_in,
                          std::uint32_t* values_out, std::int64_t n, cudaStream_t stream) {
    if (n <= INT32_MAX)
      return sort<T, std::int32_t>(storage, bytes, in, out, values_in, values_out, static_cast<std::int32_t>(n), stream);
    return sort<T, std::int64_t>(storage, bytes, in, out, values_in, values_out, n, stream);
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    std::size_t bytes = 0;
    ZOO_CUDA(sort<T>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, n, nullptr));
    return bytes;
  }
  template <class T>
  static std::size_t pairs_workspace_bytes(std::int64_t n) {
    // Any non-null values pointer selects SortPairs' query; nothing is read from it.
    std::size_t bytes = 0;
    std::uint32_t unused = 0;
    ZOO_CUDA(sort<T>(nullptr, bytes, nullptr, nullptr, &unused, nullptr, n, nullptr));
    return bytes;
  }

  template <class T>
  static void run(const T* in, T* out, const std::uint32_t* values_in, std::uint32_t* values_out, std::int64_t n,
                  zoo::Workspace workspace, cudaStream_t stream) {
    std::size_t bytes = workspace.bytes;  // no size query inside the timed region
    ZOO_CUDA(sort<T>(workspace.data, bytes, in, out, values_in, values_out, n, stream));
  }
};

}  // namespace

ZOO_MAIN(CubRadixSort)
