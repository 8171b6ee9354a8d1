#include <cuda_runtime.h>

#define BINS 256

// Byte histogram: each block counts into its own shared copy, then merges the
// copy into the global histogram once per bin.
__global__ void histogram_kernel(const unsigned char* data, size_t n, unsigned int* hist) {
    __shared__ unsigned int local_hist[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local_hist[b] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local_hist[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local_hist[b]) atomicAdd(&hist[b], local_hist[b]);  // expect: PAR-05
}

extern "C" void solution_compute(size_t n, const unsigned char* data, unsigned int* hist) {
    unsigned char* dd;
    unsigned int* dh;
    cudaMalloc(&dd, n);
    cudaMalloc(&dh, BINS * sizeof(unsigned int));
    cudaMemcpy(dd, data, n, cudaMemcpyHostToDevice);
    cudaMemset(dh, 0, BINS * sizeof(unsigned int));
    histogram_kernel<<<240, 256>>>(dd, n, dh);
    cudaMemcpy(hist, dh, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaFree(dd);
    cudaFree(dh);
}
