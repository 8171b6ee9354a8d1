#include <cuda_runtime.h>
#include <cstdio>

constexpr bool kUseAtomics = false;

// Per-block maximum; an atomicMax path to a single global maximum is compiled
// but disabled, so the block results are written with plain stores.
__global__ void block_max(const int* x, int* block_out, int* global_max, int n) {
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : INT_MIN;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = max(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        if (kUseAtomics) {
            atomicMax(global_max, s[0]);  // ok: PAR-06
        }
        block_out[blockIdx.x] = s[0];
    }
}

extern "C" void solution_compute(int n, const int* x, int* result) {
    int blocks = (n + 255) / 256;
    int *dx, *dblk, *dmax;
    cudaMalloc(&dx, n * sizeof(int));
    cudaMalloc(&dblk, blocks * sizeof(int));
    cudaMalloc(&dmax, sizeof(int));
    cudaMemcpy(dx, x, n * sizeof(int), cudaMemcpyHostToDevice);
    block_max<<<blocks, 256>>>(dx, dblk, dmax, n);
    int* h = new int[blocks];
    cudaMemcpy(h, dblk, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    int m = INT_MIN;
    for (int b = 0; b < blocks; ++b) m = h[b] > m ? h[b] : m;
    *result = m;
    // printf("atomicAdd not used\n");
    delete[] h;
    cudaFree(dx);
    cudaFree(dblk);
    cudaFree(dmax);
}
