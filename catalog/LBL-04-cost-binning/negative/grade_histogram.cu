#include <cuda_runtime.h>

// Histogram of scores into ten bins: the bin index selects a counter, but the
// items are only counted, not placed into bins for later work.
__global__ void grade_hist(const float* score, int n, int* hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = min((int)(score[i] / 10.0f), 9);
    atomicAdd(&hist[b], 1);  // ok: LBL-04
}

extern "C" void solution_compute(int n, const float* score, int* hist) {
    float* ds;
    int* dh;
    cudaMalloc(&ds, n * sizeof(float));
    cudaMalloc(&dh, 10 * sizeof(int));
    cudaMemcpy(ds, score, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dh, 0, 10 * sizeof(int));
    grade_hist<<<(n + 255) / 256, 256>>>(ds, n, dh);
    cudaMemcpy(hist, dh, 10 * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(ds);
    cudaFree(dh);
}
