#include <cuda_runtime.h>

#define B 256

// A [2][B] shared array holding the real and imaginary parts: two components, not two stages.
__global__ void complex_block_sum(const float* re, const float* im, float* out, int n) {
    __shared__ float parts[2][B]; // ok: MEM-09
    int i = blockIdx.x * B + threadIdx.x;
    parts[0][threadIdx.x] = (i < n) ? re[i] : 0.0f;
    parts[1][threadIdx.x] = (i < n) ? im[i] : 0.0f;
    __syncthreads();
    for (int s = B / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            parts[0][threadIdx.x] += parts[0][threadIdx.x + s];
            parts[1][threadIdx.x] += parts[1][threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = parts[0][0];
        out[2 * blockIdx.x + 1] = parts[1][0];
    }
}

extern "C" void solution_compute(const float* re, const float* im, float* out, int n) {
    int blocks = (n + B - 1) / B;
    float *dr, *di, *dout;
    cudaMalloc(&dr, sizeof(float) * n);
    cudaMalloc(&di, sizeof(float) * n);
    cudaMalloc(&dout, sizeof(float) * 2 * blocks);
    cudaMemcpy(dr, re, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(di, im, sizeof(float) * n, cudaMemcpyHostToDevice);
    complex_block_sum<<<blocks, B>>>(dr, di, dout, n);
    cudaMemcpy(out, dout, sizeof(float) * 2 * blocks, cudaMemcpyDeviceToHost);
    cudaFree(dr); cudaFree(di); cudaFree(dout);
}
