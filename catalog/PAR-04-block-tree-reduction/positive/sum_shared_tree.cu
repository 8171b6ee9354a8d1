#include <cuda_runtime.h>

#define BLOCK 256

__global__ void partial_sums(const double* x, double* partial, int n) {
    __shared__ double sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * blockDim.x) + tid;
    double v = 0.0;
    if (i < n) v = x[i];
    if (i + blockDim.x < n) v += x[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {  // expect: PAR-04
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

extern "C" void solution_compute(int n, const double* x, double* total) {
    int blocks = (n + 2 * BLOCK - 1) / (2 * BLOCK);
    double *dx, *dp;
    cudaMalloc(&dx, n * sizeof(double));
    cudaMalloc(&dp, blocks * sizeof(double));
    cudaMemcpy(dx, x, n * sizeof(double), cudaMemcpyHostToDevice);
    partial_sums<<<blocks, BLOCK>>>(dx, dp, n);
    while (blocks > 1) {
        int next = (blocks + 2 * BLOCK - 1) / (2 * BLOCK);
        partial_sums<<<next, BLOCK>>>(dp, dp, blocks);
        blocks = next;
    }
    cudaMemcpy(total, dp, sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dp);
}
