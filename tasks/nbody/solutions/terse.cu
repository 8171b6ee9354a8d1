// Direct-sum N-body: warp-level tiling with register shuffles instead of shared memory.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
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

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
nbody_kernel(const float4* __restrict__ body, int n, float soft2, float G, float* __restrict__ acc)
{
    constexpr unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const int n_pad = (n + 31) & ~31;   // whole warps stay in the loop for the shuffles
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n_pad; i += gridDim.x * BLOCK) {
        const float4 bi = i < n ? body[i] : make_float4(0.f, 0.f, 0.f, 0.f);
        float ax = 0.f, ay = 0.f, az = 0.f;
        for (int base = 0; base < n; base += 32) {
            const int j = base + lane;
            const float4 bj = j < n ? __ldg(&body[j]) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int k = 0; k < 32; ++k) {
                const float dx = __shfl_sync(FULL, bj.x, k) - bi.x;
                const float dy = __shfl_sync(FULL, bj.y, k) - bi.y;
                const float dz = __shfl_sync(FULL, bj.z, k) - bi.z;
                const float m = __shfl_sync(FULL, bj.w, k);
                const float inv = rsqrtf(dx * dx + dy * dy + dz * dz + soft2);
                const float s = m * inv * inv * inv;
                ax += s * dx;
                ay += s * dy;
                az += s * dz;
            }
        }
        if (i < n) {
            acc[3 * i + 0] = G * ax;
            acc[3 * i + 1] = G * ay;
            acc[3 * i + 2] = G * az;
        }
    }
}

extern "C" void solution_compute(int n, const float* pos, const float* mass, float soft2, float G,
                                 float* acc)
{
    if (n <= 0) return;
    constexpr int BLOCK = 256;

    std::vector<float4> h_body(n);
    for (int i = 0; i < n; ++i)
        h_body[i] = make_float4(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2], mass[i]);

    DeviceBuffer<float4> d_body;
    DeviceBuffer<float> d_acc;
    CUDA_CHECK(d_body.alloc(n));
    CUDA_CHECK(d_acc.alloc(3 * (size_t)n));
    CUDA_CHECK(cudaMemcpy(d_body.ptr, h_body.data(), n * sizeof(float4), cudaMemcpyHostToDevice));

    const int blocks = std::min((n + BLOCK - 1) / BLOCK, 1024);
    nbody_kernel<BLOCK><<<blocks, BLOCK>>>(d_body.ptr, n, soft2, G, d_acc.ptr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(acc, d_acc.ptr, 3 * (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}
