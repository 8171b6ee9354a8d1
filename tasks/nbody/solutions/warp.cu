// N-body accelerations with one warp per body: the 32 lanes split the j range (lane l takes
// j = l, l + 32, ...), so neighbouring lanes read neighbouring bodies, and the three partial
// sums are combined with a shuffle reduction. This keeps the GPU busy even when n is only a
// few thousand bodies.
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

constexpr int THREADS = 256;
constexpr int WARPS_PER_BLOCK = THREADS / 32;

__global__ void __launch_bounds__(THREADS)
accel_warp(int n, const float* __restrict__ pos, const float* __restrict__ mass, float soft2,
           float G, float* __restrict__ acc)
{
    const int i = blockIdx.x * WARPS_PER_BLOCK + (threadIdx.x >> 5);   // this warp's body
    const int lane = threadIdx.x & 31;
    if (i >= n) return;   // uniform across the warp
    const float xi = pos[3 * (size_t)i], yi = pos[3 * (size_t)i + 1], zi = pos[3 * (size_t)i + 2];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = lane; j < n; j += 32) {
        const float dx = pos[3 * (size_t)j] - xi;
        const float dy = pos[3 * (size_t)j + 1] - yi;
        const float dz = pos[3 * (size_t)j + 2] - zi;
        const float inv = rsqrtf(dx * dx + dy * dy + dz * dz + soft2);
        const float s = mass[j] * (inv * inv * inv);   // zero for j == i since d = 0
        ax += s * dx;
        ay += s * dy;
        az += s * dz;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        ax += __shfl_xor_sync(0xffffffffu, ax, off);
        ay += __shfl_xor_sync(0xffffffffu, ay, off);
        az += __shfl_xor_sync(0xffffffffu, az, off);
    }
    if (lane == 0) {
        acc[3 * (size_t)i] = G * ax;
        acc[3 * (size_t)i + 1] = G * ay;
        acc[3 * (size_t)i + 2] = G * az;
    }
}

extern "C" void solution_compute(int n, const float* pos, const float* mass, float soft2, float G,
                                 float* acc)
{
    if (n <= 0) return;
    const size_t total = 3 * (size_t)n;
    const int blocks = (n + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
    float *d_pos = nullptr, *d_mass = nullptr, *d_acc = nullptr;

    CK(cudaMalloc(&d_pos, total * sizeof(float)));
    CK(cudaMalloc(&d_mass, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_acc, total * sizeof(float)));
    CK(cudaMemcpy(d_pos, pos, total * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_mass, mass, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    accel_warp<<<blocks, THREADS>>>(n, d_pos, d_mass, soft2, G, d_acc);
    CK(cudaGetLastError());
    CK(cudaMemcpy(acc, d_acc, total * sizeof(float), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_pos);
    cudaFree(d_mass);
    cudaFree(d_acc);
}
