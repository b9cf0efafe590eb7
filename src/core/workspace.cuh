// workspace.cuh -- the scratch memory the harness allocates for a variant (workspace_bytes(n)
// bytes, outside the timed region), in the library's span type, and its carver
// (include/scan_zoo/detail/scratch.cuh): what the variant contract (variant.cuh) calls them.
#pragma once

#include <scan_zoo/detail/scratch.cuh>

#include "ops.cuh"

namespace zoo {

using Workspace = scan_zoo::detail::Scratch;
using WorkspaceCarver = scan_zoo::detail::ScratchCarver;

}  // namespace zoo
