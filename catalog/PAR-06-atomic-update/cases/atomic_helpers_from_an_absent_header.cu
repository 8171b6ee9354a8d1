// Case: atomics through a project's helpers from a header the tagger lacks. A helper in an
// `atomic` namespace says what it does (util::atomic::add reserves the block's output range,
// util::atomic::max combines a maximum); a plain util::math::add is no atomic.
#include <cuda_runtime.h>
#include "device_atomics.h"

__global__ void copy_positive(const int* in, int* out, int* count, int* peak, int n) {
    __shared__ int base;
    __shared__ int kept;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) kept = 0;
    __syncthreads();
    int v = i < n ? in[i] : 0;
    int slot = -1;
    if (v > 0) slot = atomicAdd(&kept, 1);  // expect: PAR-06
    __syncthreads();
    if (threadIdx.x == 0) base = util::atomic::add(count, kept);  // expect: PAR-06
    __syncthreads();
    if (slot >= 0) out[base + slot] = util::math::add(v, 1);  // ok: PAR-06
    if (v > 0) util::atomic::max(peak, v);  // expect: PAR-06
}

extern "C" void solution_compute(const int* in, int* out, int* count, int* peak, int n) {
    cudaMemset(count, 0, sizeof(int));
    cudaMemset(peak, 0, sizeof(int));
    copy_positive<<<(n + 255) / 256, 256>>>(in, out, count, peak, n);
    cudaDeviceSynchronize();
}
