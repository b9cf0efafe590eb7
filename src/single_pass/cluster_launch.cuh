// cluster_launch.cuh -- launching a whole grid as one thread-block cluster (sm_90): the
// cluster's blocks are co-scheduled on one GPC and may use each other's shared memory.
// Used by single_pass_scan_cluster and by the probe that measures what the launch costs
// (probes/cluster_launch.cu).
#pragma once

#include <cuda_runtime.h>

namespace zoo {

// The largest cluster sm_90 launches: 8 blocks is the portable limit, 16 needs the kernel's
// cudaFuncAttributeNonPortableClusterSizeAllowed, which launch_as_one_cluster sets.
inline constexpr unsigned kMaxClusterBlocks = 16;

// Launches kernel<<<blocks, threads, 0, stream>>>(args...) as one cluster of `blocks` blocks
// (1 <= blocks <= kMaxClusterBlocks); returns the launch's error.
template <class... Params, class... Args>
cudaError_t launch_as_one_cluster(void (*kernel)(Params...), unsigned blocks, unsigned threads, cudaStream_t stream,
                                  Args... args) {
  if (blocks > 8) {
    const cudaError_t error = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (error != cudaSuccess) return error;
  }
  cudaLaunchAttribute cluster_shape{};
  cluster_shape.id = cudaLaunchAttributeClusterDimension;
  cluster_shape.val.clusterDim.x = blocks;
  cluster_shape.val.clusterDim.y = 1;
  cluster_shape.val.clusterDim.z = 1;
  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3(blocks);
  launch.blockDim = dim3(threads);
  launch.stream = stream;
  launch.attrs = &cluster_shape;
  launch.numAttrs = 1;
  return cudaLaunchKernelEx(&launch, kernel, static_cast<Params>(args)...);
}

}  // namespace zoo
