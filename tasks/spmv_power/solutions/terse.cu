// Power iteration with CSR SpMV on the GPU (warp-per-row CSR-vector kernel).
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#define CUDA_CHECK(x)                                                                  \
    do {                                                                               \
        cudaError_t err = (x);                                                         \
        if (err != cudaSuccess)                                                        \
            throw std::runtime_error(std::string(#x) + ": " + cudaGetErrorString(err)); \
    } while (0)

template <typename T>
struct DeviceBuffer {
    T* ptr = nullptr;
    explicit DeviceBuffer(size_t n) { CUDA_CHECK(cudaMalloc(&ptr, (n ? n : 1) * sizeof(T))); }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

template <int BLOCK_SIZE>
__global__ void __launch_bounds__(BLOCK_SIZE)
spmv_warp(int n, const int* __restrict__ rp, const int* __restrict__ ci,
          const float* __restrict__ v, const float* __restrict__ x, float* __restrict__ y)
{
    constexpr int WARPS = BLOCK_SIZE / 32;
    const int lane = threadIdx.x & 31;
    for (int row = blockIdx.x * WARPS + threadIdx.x / 32; row < n; row += gridDim.x * WARPS) {
        float sum = 0.0f;
        for (int k = rp[row] + lane; k < rp[row + 1]; k += 32) sum += v[k] * x[ci[k]];
        sum = warp_sum(sum);
        if (lane == 0) y[row] = sum;
    }
}

template <int BLOCK_SIZE>
__global__ void __launch_bounds__(BLOCK_SIZE)
sumsq_partial(int n, const float* __restrict__ y, double* __restrict__ partial)
{
    __shared__ double smem[BLOCK_SIZE / 32];
    double s = 0.0;
    for (int i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += gridDim.x * BLOCK_SIZE)
        s += (double)y[i] * y[i];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) smem[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < BLOCK_SIZE / 32 ? smem[threadIdx.x] : 0.0;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (threadIdx.x == 0) partial[blockIdx.x] = s;
    }
}

__global__ void scale_kernel(int n, const float* __restrict__ y, float* __restrict__ x, float inv)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = y[i] * inv;
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, const float* vals,
                                 const float* x0, int iters, float* x_out)
{
    if (n <= 0) return;
    try {
        const int nnz = row_ptr[n];
        constexpr int BS = 256;
        int sms = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        const int spmv_grid = std::min((n + BS / 32 - 1) / (BS / 32), sms * 32);
        const int red_grid = std::min((n + BS - 1) / BS, sms * 4);

        DeviceBuffer<int> d_rp(n + 1), d_ci(nnz);
        DeviceBuffer<float> d_v(nnz), d_x(n), d_y(n);
        DeviceBuffer<double> d_part(red_grid);
        CUDA_CHECK(cudaMemcpy(d_rp.ptr, row_ptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_ci.ptr, col_idx, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_v.ptr, vals, (size_t)nnz * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_x.ptr, x0, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));

        std::vector<double> partial(red_grid);
        for (int it = 0; it < iters; ++it) {
            spmv_warp<BS><<<spmv_grid, BS>>>(n, d_rp.ptr, d_ci.ptr, d_v.ptr, d_x.ptr, d_y.ptr);
            CUDA_CHECK(cudaGetLastError());
            sumsq_partial<BS><<<red_grid, BS>>>(n, d_y.ptr, d_part.ptr);
            CUDA_CHECK(cudaGetLastError());
            CUDA_CHECK(cudaMemcpy(partial.data(), d_part.ptr, red_grid * sizeof(double),
                                  cudaMemcpyDeviceToHost));
            const double sq = std::accumulate(partial.begin(), partial.end(), 0.0);
            const float inv = sq > 0.0 ? 1.0f / static_cast<float>(std::sqrt(sq)) : 1.0f;
            scale_kernel<<<red_grid, BS>>>(n, d_y.ptr, d_x.ptr, inv);
            CUDA_CHECK(cudaGetLastError());
        }
        std::vector<float> h(n);
        CUDA_CHECK(cudaMemcpy(h.data(), d_x.ptr, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
        std::copy(h.begin(), h.end(), x_out);
    } catch (const std::exception& e) {
        fprintf(stderr, "spmv_power: %s\n", e.what());
    }
}
