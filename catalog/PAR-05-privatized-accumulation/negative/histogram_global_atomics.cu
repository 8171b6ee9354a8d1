#include <cuda_runtime.h>

// Every element goes straight to the global histogram: atomics, but no private
// copy that is merged later.
__global__ void histogram_global(const int* keys, int n, int bins, int* hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = keys[i] % bins;
        atomicAdd(&hist[b], 1);  // ok: PAR-05
    }
}

extern "C" void solution_compute(int n, const int* keys, int bins, int* hist) {
    int *dk, *dh;
    cudaMalloc(&dk, n * sizeof(int));
    cudaMalloc(&dh, bins * sizeof(int));
    cudaMemcpy(dk, keys, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(dh, 0, bins * sizeof(int));
    histogram_global<<<(n + 255) / 256, 256>>>(dk, n, bins, dh);
    cudaMemcpy(hist, dh, bins * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dk);
    cudaFree(dh);
}
