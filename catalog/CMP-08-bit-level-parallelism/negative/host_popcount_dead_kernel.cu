#include <cuda_runtime.h>

// Bit counting happens on the host; the device popcount kernel is never launched.
__global__ void popcounts(const unsigned* w, int* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __popc(w[i]); // ok: CMP-08
}

__global__ void negate(const int* a, int* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = -a[i];
}

extern "C" void solution_compute(const unsigned* words, int* counts, const int* a, int* b, int n) {
    for (int i = 0; i < n; ++i) counts[i] = __builtin_popcount(words[i]); // ok: CMP-08
    int *da, *db;
    cudaMalloc(&da, sizeof(int) * n);
    cudaMalloc(&db, sizeof(int) * n);
    cudaMemcpy(da, a, sizeof(int) * n, cudaMemcpyHostToDevice);
    negate<<<(n + 255) / 256, 256>>>(da, db, n);
    cudaMemcpy(b, db, sizeof(int) * n, cudaMemcpyDeviceToHost);
    cudaFree(da); cudaFree(db);
}
