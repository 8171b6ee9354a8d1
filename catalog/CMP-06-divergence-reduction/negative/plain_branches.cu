#include <cuda_runtime.h>

// Ordinary branches and a bounds-guarded load: nothing was reorganised to keep warps together.
__global__ void clamp_sum(const float* x, float* partial, int n, float lo, float hi) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? x[i] : 0.0f; // ok: CMP-06
    if (v < lo) v = lo;              // ok: CMP-06
    else if (v > hi) v = hi;
    s[threadIdx.x] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

extern "C" void solution_compute(const float* x, float* partial, int n, float lo, float hi) {
    int blocks = (n + 255) / 256;
    float *dx, *dp;
    cudaMalloc(&dx, sizeof(float) * n);
    cudaMalloc(&dp, sizeof(float) * blocks);
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    clamp_sum<<<blocks, 256>>>(dx, dp, n, lo, hi);
    cudaMemcpy(partial, dp, sizeof(float) * blocks, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dp);
}
