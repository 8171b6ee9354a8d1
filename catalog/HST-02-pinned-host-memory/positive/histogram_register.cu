// Byte histogram of a large buffer: the caller's input is page-locked in place with
// cudaHostRegister, the result buffer is a pinned allocation.
#include <cuda_runtime.h>

__global__ void histo256(const unsigned char* data, size_t n, unsigned int* bins) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

static void check(cudaError_t e) {
    if (e != cudaSuccess) cudaGetLastError();
}

extern "C" void solution_compute(long long n, const unsigned char* data, unsigned int* bins) {
    check(cudaHostRegister((void*)data, (size_t)n, cudaHostRegisterDefault));  // expect: HST-02
    unsigned int* h_bins;
    check(cudaHostAlloc((void**)&h_bins, 256 * sizeof(unsigned int), cudaHostAllocDefault));  // expect: HST-02

    unsigned char* d_data;
    unsigned int* d_bins;
    cudaMalloc(&d_data, (size_t)n);
    cudaMalloc(&d_bins, 256 * sizeof(unsigned int));
    cudaMemset(d_bins, 0, 256 * sizeof(unsigned int));
    cudaMemcpy(d_data, data, (size_t)n, cudaMemcpyHostToDevice);
    histo256<<<264, 256>>>(d_data, (size_t)n, d_bins);
    cudaMemcpy(h_bins, d_bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < 256; ++b) bins[b] = h_bins[b];

    cudaFree(d_data);
    cudaFree(d_bins);
    cudaFreeHost(h_bins);
    cudaHostUnregister((void*)data);
}
