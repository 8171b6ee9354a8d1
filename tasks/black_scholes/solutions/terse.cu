// Black-Scholes pricing: grid-stride kernel, ITEMS options per thread per step.
#include <cuda_runtime.h>
#include <cstdio>
#include <algorithm>

#define CUDA_CHECK(x)                                                                  \
    do {                                                                               \
        cudaError_t err = (x);                                                         \
        if (err != cudaSuccess) {                                                      \
            fprintf(stderr, "CUDA error %s (%s:%d)\n", cudaGetErrorString(err),        \
                    __FILE__, __LINE__);                                               \
            return;                                                                    \
        }                                                                              \
    } while (0)

template <typename T>
struct DeviceBuffer {
    T* ptr = nullptr;
    ~DeviceBuffer() { if (ptr) cudaFree(ptr); }
    cudaError_t alloc(size_t count) { return cudaMalloc(&ptr, count * sizeof(T)); }
};

__device__ __forceinline__ float cnd(float d)
{
    constexpr float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
    constexpr float a4 = -1.821255978f, a5 = 1.330274429f;
    constexpr float rsqrt2pi = 0.39894228040143267794f;
    const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    const float c = rsqrt2pi * __expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - c : c;
}

template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
bs_kernel(const float* __restrict__ S, const float* __restrict__ X, const float* __restrict__ T,
          int n, float r, float v, float* __restrict__ call, float* __restrict__ put)
{
    const float drift = r + 0.5f * v * v;
    const size_t step = (size_t)gridDim.x * BLOCK * ITEMS;
    for (size_t base = (size_t)blockIdx.x * BLOCK * ITEMS + threadIdx.x; base < (size_t)n; base += step) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const size_t i = base + (size_t)k * BLOCK;   // stays coalesced across the block
            if (i < (size_t)n) {
                const float s = S[i], x = X[i], t = T[i];
                const float sq = sqrtf(t);
                const float d1 = (__logf(s / x) + drift * t) / (v * sq);
                const float d2 = d1 - v * sq;
                const float c1 = cnd(d1), c2 = cnd(d2);
                const float xd = x * __expf(-r * t);
                call[i] = s * c1 - xd * c2;
                put[i] = xd * (1.0f - c2) - s * (1.0f - c1);
            }
        }
    }
}

extern "C" void solution_compute(const float* S, const float* X, const float* T, int n, float r,
                                 float v, float* call, float* put)
{
    if (n <= 0) return;
    constexpr int BLOCK = 256, ITEMS = 4;
    const size_t bytes = (size_t)n * sizeof(float);

    DeviceBuffer<float> dS, dX, dT, dC, dP;
    CUDA_CHECK(dS.alloc(n));
    CUDA_CHECK(dX.alloc(n));
    CUDA_CHECK(dT.alloc(n));
    CUDA_CHECK(dC.alloc(n));
    CUDA_CHECK(dP.alloc(n));
    CUDA_CHECK(cudaMemcpy(dS.ptr, S, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dX.ptr, X, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dT.ptr, T, bytes, cudaMemcpyHostToDevice));

    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const long long need = ((long long)n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS);
    const int blocks = (int)std::min<long long>(need, (long long)sms * 16);
    bs_kernel<BLOCK, ITEMS><<<blocks, BLOCK>>>(dS.ptr, dX.ptr, dT.ptr, n, r, v, dC.ptr, dP.ptr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(call, dC.ptr, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(put, dP.ptr, bytes, cudaMemcpyDeviceToHost));
}
