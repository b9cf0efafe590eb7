// variant.cuh -- the contract between a variant and the harness that runs it (harness.cuh), with
// its defaults. Device-side drivers (hierarchy.cuh, single_pass.cuh) build variants on it without
// including the harness. A variant may also name the problem it solves,
//   template <class T, class Op> using Problem = ...;   (problem.cuh, applications.cuh)
// else it solves the scan (zoo::ScanProblem).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "ops.cuh"
#include "workspace.cuh"

namespace zoo {

struct VariantDefaults {
  using Types = DefaultTypes;
  static constexpr std::int64_t kTileItems = 0;  // 0: the variant has no tile (e.g. sequential)
  // True where the kernel honours g_silent_tile (test_hooks.cuh,
  // --inject-hang): the single-pass scans.
  static constexpr bool kHasSilentTile = false;
  // True where the variant's tiles hand state to each other through the zoo's own protocol (a
  // chain or a look-back over published descriptors, its own or the library's): its bugs are
  // races, so the stress runs repeat it most. The first line of --help says so ("hands over
  // across tiles"), and the scripts ask the binary rather than a list of names.
  static constexpr bool kHandsOverAcrossTiles = false;
  template <class T, class Op>
  static const char* unsupported_reason(ScanKind) { return nullptr; }
  // A size the variant cannot handle (exit code 3, WAIVED row), e.g. one beyond 32-bit offsets.
  static const char* unsupported_size(std::int64_t) { return nullptr; }
  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t) { return 0; }
  // The sorts (applications.cuh, SortProblem): whether the variant sorts key-value pairs
  // (--values; else its pairs rows are WAIVED), and the workspace it needs for them.
  static constexpr bool kSortsPairs = false;
  template <class T>
  static std::size_t pairs_workspace_bytes(std::int64_t) { return 0; }
  // Called after the verified run has finished: a variant that found the data beyond what it
  // can represent (e.g. a value too wide for its tile descriptor) refuses the result (exit 3).
  template <class T, class Op>
  static const char* refusal_after_run(std::int64_t, Workspace, cudaStream_t) { return nullptr; }
};

}  // namespace zoo
