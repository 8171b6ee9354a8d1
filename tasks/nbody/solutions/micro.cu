// N-body accelerations: one thread per output value acc[3*i + c], tuned inside the kernel
// (read-only loads, rsqrtf, fused multiply-adds, unrolled j loop, no per-component branch).
#include <cuda_runtime.h>
#include <stdio.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e = (call);                                                       \
        if (e != cudaSuccess) {                                                       \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e),        \
                    __FILE__, __LINE__);                                              \
            goto cleanup;                                                             \
        }                                                                             \
    } while (0)

__global__ void __launch_bounds__(256)
accel_component(int n, const float* __restrict__ pos, const float* __restrict__ mass,
                float soft2, float G, float* __restrict__ acc)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= 3 * n) return;
    int i = k / 3;
    int c = k - 3 * i;
    float xi = __ldg(&pos[3 * i]);
    float yi = __ldg(&pos[3 * i + 1]);
    float zi = __ldg(&pos[3 * i + 2]);
    float ci = __ldg(&pos[k]);   // this thread's own coordinate
    float sum = 0.0f;
    // the j == i term is exactly zero (d = 0, softened r2 > 0), so no test is needed
#pragma unroll 4
    for (int j = 0; j < n; j++) {
        float dx = __ldg(&pos[3 * j]) - xi;
        float dy = __ldg(&pos[3 * j + 1]) - yi;
        float dz = __ldg(&pos[3 * j + 2]) - zi;
        float d = __ldg(&pos[3 * j + c]) - ci;
        float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, soft2)));
        float inv = rsqrtf(r2);
        float s = __ldg(&mass[j]) * (inv * inv * inv);
        sum = fmaf(s, d, sum);
    }
    acc[k] = G * sum;
}

extern "C" void solution_compute(int n, const float* pos, const float* mass, float soft2, float G,
                                 float* acc)
{
    float* d_pos = NULL;
    float* d_mass = NULL;
    float* d_acc = NULL;
    int threads = 256;
    int blocks;
    if (n <= 0) return;
    blocks = (3 * n + threads - 1) / threads;

    CHECK(cudaMalloc((void**)&d_pos, 3 * n * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_mass, n * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_acc, 3 * n * sizeof(float)));

    CHECK(cudaMemcpy(d_pos, pos, 3 * n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_mass, mass, n * sizeof(float), cudaMemcpyHostToDevice));

    accel_component<<<blocks, threads>>>(n, d_pos, d_mass, soft2, G, d_acc);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(acc, d_acc, 3 * n * sizeof(float), cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_pos);
    cudaFree(d_mass);
    cudaFree(d_acc);
}
