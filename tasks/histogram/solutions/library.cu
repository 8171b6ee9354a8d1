// histogram with CUB: DeviceHistogram::HistogramEven with num_bins + 1 evenly spaced integer
// levels 0, 1, ..., num_bins, so sample k falls in bin k.
#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_OK(call)                                                                      \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "histogram: %s: %s\n", #call, cudaGetErrorString(e_));         \
            goto cleanup;                                                                  \
        }                                                                                  \
    } while (0)

extern "C" void solution_compute(const int* keys, int n, int num_bins, unsigned int* hist)
{
    if (num_bins <= 0) return;
    const int count = n > 0 ? n : 0;
    const size_t key_bytes = (size_t)count * sizeof(int);
    const size_t hist_bytes = (size_t)num_bins * sizeof(unsigned int);
    int* d_keys = nullptr;
    unsigned int* d_hist = nullptr;
    void* d_temp = nullptr;
    size_t temp_bytes = 0;

    CUDA_OK(cudaMalloc(&d_keys, key_bytes + sizeof(int)));
    CUDA_OK(cudaMalloc(&d_hist, hist_bytes));
    CUDA_OK(cudaMemcpy(d_keys, keys, key_bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_hist, 0, hist_bytes));
    CUDA_OK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d_keys, d_hist, num_bins + 1,
                                                0, num_bins, count));
    CUDA_OK(cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1));
    CUDA_OK(cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_keys, d_hist, num_bins + 1,
                                                0, num_bins, count));
    CUDA_OK(cudaMemcpy(hist, d_hist, hist_bytes, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_temp);
    cudaFree(d_keys);
    cudaFree(d_hist);
}
