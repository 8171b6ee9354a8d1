// Case: a launcher written against the HIP API and compiled for CUDA (HOOMD-blue): the block
// size is capped by hipFuncGetAttributes' maxThreadsPerBlock and the kernel is launched with
// hipLaunchKernelGGL, one range per GPU. The HIP names were unknown, so there was no launch and
// no occupancy query; once the launches are visible, the loop over GPUs is not device-resident
// iteration (HST-04).
#include "hip/hip_runtime.h"  // not present

__global__ void count_cells(const float4 *pos, unsigned *cell_size, unsigned n, float inv_w) {
  unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  float4 p = pos[idx];  // expect: MEM-01
  atomicAdd(&cell_size[(unsigned)(p.x * inv_w)], 1u);
}

extern "C" void solution_compute(const float4 *pos, unsigned *cell_size, unsigned n,
                                 float inv_w, unsigned block_size, int n_gpus) {
  hipFuncAttributes attr;
  hipFuncGetAttributes(&attr, reinterpret_cast<const void *>(&count_cells));
  unsigned max_block = attr.maxThreadsPerBlock;  // expect: PAR-11
  for (int dev = n_gpus - 1; dev >= 0; --dev) {
    hipSetDevice(dev);
    unsigned run_block = block_size < max_block ? block_size : max_block;
    hipLaunchKernelGGL(HIP_KERNEL_NAME(count_cells), dim3(n / run_block + 1), dim3(run_block), 0,
                       0, pos, cell_size, n, inv_w);
  }
}
