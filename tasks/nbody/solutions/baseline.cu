// Baseline CUDA port of nbody: one thread per body, looping over every other body in j order
// and reading positions and masses from global memory.
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

__global__ void accel_kernel(int n, const float* __restrict__ pos, const float* __restrict__ mass,
                             float soft2, float G, float* __restrict__ acc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = pos[3 * (size_t)i], yi = pos[3 * (size_t)i + 1], zi = pos[3 * (size_t)i + 2];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        if (j == i) continue;
        float dx = pos[3 * (size_t)j] - xi;
        float dy = pos[3 * (size_t)j + 1] - yi;
        float dz = pos[3 * (size_t)j + 2] - zi;
        float r2 = dx * dx + dy * dy + dz * dz + soft2;
        float inv = 1.0f / sqrtf(r2);
        float s = mass[j] * (inv * inv * inv);
        ax += s * dx;
        ay += s * dy;
        az += s * dz;
    }
    acc[3 * (size_t)i] = G * ax;
    acc[3 * (size_t)i + 1] = G * ay;
    acc[3 * (size_t)i + 2] = G * az;
}

extern "C" void solution_compute(int n, const float* pos, const float* mass, float soft2, float G,
                                 float* acc)
{
    float *d_pos = nullptr, *d_mass = nullptr, *d_acc = nullptr;
    const int threads = 256;
    int blocks = (n + threads - 1) / threads;
    size_t vec_bytes = (size_t)n * 3 * sizeof(float);
    if (n <= 0) return;
    CK(cudaMalloc(&d_pos, vec_bytes));
    CK(cudaMalloc(&d_mass, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_acc, vec_bytes));
    CK(cudaMemcpy(d_pos, pos, vec_bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_mass, mass, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    accel_kernel<<<blocks, threads>>>(n, d_pos, d_mass, soft2, G, d_acc);
    CK(cudaGetLastError());
    CK(cudaMemcpy(acc, d_acc, vec_bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_pos);
    cudaFree(d_mass);
    cudaFree(d_acc);
}
