// Case: each thread needs 4 consecutive items (a blocked arrangement) but loads them striped,
// item k at k * 128 + threadIdx.x, so that the loads coalesce; the block exchanges them through
// shared memory (written at stride 1, read at stride 4 by a loop over the 4 items): a
// re-layout on the device. The staging buffer may be a member of a __shared__ union.
#include <cuda_runtime.h>

#define THREADS 128
#define ITEMS 4

__global__ void local_sums(const float* in, float* out) {
    __shared__ float stage[THREADS * ITEMS];
    int base = blockIdx.x * THREADS * ITEMS;
    for (int k = 0; k < ITEMS; ++k)
        stage[k * THREADS + threadIdx.x] = in[base + k * THREADS + threadIdx.x];  // expect: MEM-07
    __syncthreads();
    float run = 0.0f;
    for (int k = 0; k < ITEMS; ++k) {
        run += stage[threadIdx.x * ITEMS + k];  // expect: MEM-07
        out[base + threadIdx.x * ITEMS + k] = run;
    }
}

__global__ void local_max(const float* in, float* out) {
    __shared__ union {
        float items[THREADS * ITEMS];
        float best[THREADS];
    } smem;
    int base = blockIdx.x * THREADS * ITEMS;
    for (int k = 0; k < ITEMS; ++k)
        smem.items[k * THREADS + threadIdx.x] = in[base + k * THREADS + threadIdx.x];  // expect: MEM-07
    __syncthreads();
    float m = -3.0e38f;
    for (int k = 0; k < ITEMS; ++k) m = fmaxf(m, smem.items[threadIdx.x * ITEMS + k]);  // expect: MEM-07
    out[blockIdx.x * THREADS + threadIdx.x] = m;
}

extern "C" void solution_compute(const float* in, float* sums, float* maxes, int blocks) {
    local_sums<<<blocks, THREADS>>>(in, sums);
    local_max<<<blocks, THREADS>>>(in, maxes);
    cudaDeviceSynchronize();
}
