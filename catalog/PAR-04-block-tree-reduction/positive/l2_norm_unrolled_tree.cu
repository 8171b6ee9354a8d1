#include <cuda_runtime.h>
#include <math.h>

#define BLOCK 256

// The last warp finishes the tree without barriers (volatile shared memory).
__device__ void warp_tail(volatile float* s, int tid) {
    s[tid] += s[tid + 32];  // expect: PAR-04
    s[tid] += s[tid + 16];
    s[tid] += s[tid + 8];
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}

// Sum of squares per block with a hand-unrolled shared-memory tree.
__global__ void sumsq_blocks(const float* x, float* partial, int n) {
    __shared__ float s[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    float v = i < n ? x[i] : 0.0f;
    s[tid] = v * v;
    __syncthreads();
    if (tid < 128) s[tid] += s[tid + 128];  // expect: PAR-04
    __syncthreads();
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
    if (tid < 32) warp_tail(s, tid);
    if (tid == 0) partial[blockIdx.x] = s[0];
}

__global__ void finish(const float* partial, int blocks, float* out) {
    float acc = 0.0f;
    for (int b = 0; b < blocks; ++b) acc += partial[b];
    *out = sqrtf(acc);
}

extern "C" void solution_compute(int n, const float* x, float* norm) {
    int blocks = (n + BLOCK - 1) / BLOCK;
    float *dx, *dp, *dout;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dp, blocks * sizeof(float));
    cudaMalloc(&dout, sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    sumsq_blocks<<<blocks, BLOCK>>>(dx, dp, n);
    finish<<<1, 1>>>(dp, blocks, dout);
    cudaMemcpy(norm, dout, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dp);
    cudaFree(dout);
}
