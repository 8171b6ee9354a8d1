// 0/1 knapsack DP (one row, max-plus update per item), double-buffered on the device.
// Grid-stride kernel templated on block size; one launch per item, no host sync in the loop.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#define CUDA_CHECK(x)                                                                     \
    do {                                                                                  \
        cudaError_t err__ = (x);                                                          \
        if (err__ != cudaSuccess)                                                         \
            throw std::runtime_error(std::string(#x) + ": " + cudaGetErrorString(err__)); \
    } while (0)

template <typename T>
struct DeviceBuffer {
    T* ptr = nullptr;
    explicit DeviceBuffer(size_t n) { CUDA_CHECK(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(T))); }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
relax_kernel(int cap, int w, int v, const int* __restrict__ in, int* __restrict__ out)
{
    for (int c = blockIdx.x * BLOCK + threadIdx.x; c <= cap; c += gridDim.x * BLOCK) {
        const int keep = in[c];
        out[c] = c >= w ? max(keep, in[c - w] + v) : keep;
    }
}

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    if (capacity < 0) return;
    try {
        constexpr int BLOCK = 256;
        const size_t n = size_t(capacity) + 1;
        int dev = 0, sms = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        const int grid = (int)std::min<size_t>((n + BLOCK - 1) / BLOCK, size_t(sms) * 4);

        DeviceBuffer<int> a(n), b(n);
        CUDA_CHECK(cudaMemsetAsync(a.ptr, 0, n * sizeof(int)));
        int* in = a.ptr;
        int* out = b.ptr;
        for (int i = 0; i < n_items; ++i) {
            if (weights[i] > capacity) continue;  // item never fits
            relax_kernel<BLOCK><<<grid, BLOCK>>>(capacity, weights[i], values[i], in, out);
            std::swap(in, out);
        }
        CUDA_CHECK(cudaGetLastError());

        std::vector<int> host(n);
        CUDA_CHECK(cudaMemcpy(host.data(), in, n * sizeof(int), cudaMemcpyDeviceToHost));
        std::copy(host.begin(), host.end(), best);
    } catch (const std::exception& e) {
        fprintf(stderr, "knapsack: %s\n", e.what());
        cudaDeviceSynchronize();
    }
}
