// Baseline CUDA port of histogram: global atomicAdd per key, grid-stride loop.
#include <cuda_runtime.h>
#include <cstdio>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

__global__ void hist_kernel(const int* __restrict__ keys, int n, unsigned int* hist)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&hist[keys[i]], 1u);
}

extern "C" void solution_compute(const int* keys, int n, int num_bins, unsigned int* hist)
{
    int* d_keys = nullptr;
    unsigned int* d_hist = nullptr;
    size_t kb = (size_t)(n > 0 ? n : 0) * sizeof(int);
    size_t hb = (size_t)num_bins * sizeof(unsigned int);
    const int threads = 256;
    int blocks = (int)(((size_t)(n > 0 ? n : 1) + threads - 1) / threads);
    if (num_bins <= 0) return;
    if (blocks > 4096) blocks = 4096;
    CK(cudaMalloc(&d_keys, kb + 1));
    CK(cudaMalloc(&d_hist, hb));
    CK(cudaMemcpy(d_keys, keys, kb, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_hist, 0, hb));
    if (n > 0) {
        hist_kernel<<<blocks, threads>>>(d_keys, n, d_hist);
        CK(cudaGetLastError());
    }
    CK(cudaMemcpy(hist, d_hist, hb, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_keys);
    cudaFree(d_hist);
}
