// N-body accelerations: one GPU thread for each output value acc[k], k = 3*i + c.
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

__global__ void accel_component(int n, const float* pos, const float* mass, float soft2,
                                float G, float* acc)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= 3 * n) return;
    int i = k / 3;   // body
    int c = k % 3;   // component: 0 = x, 1 = y, 2 = z
    float xi = pos[3 * i];
    float yi = pos[3 * i + 1];
    float zi = pos[3 * i + 2];
    float sum = 0.0f;
    for (int j = 0; j < n; j++) {
        if (j == i) continue;
        float dx = pos[3 * j] - xi;
        float dy = pos[3 * j + 1] - yi;
        float dz = pos[3 * j + 2] - zi;
        float r2 = dx * dx + dy * dy + dz * dz + soft2;
        float inv = 1.0f / sqrtf(r2);
        float s = mass[j] * (inv * inv * inv);
        float d;
        if (c == 0)
            d = dx;
        else if (c == 1)
            d = dy;
        else
            d = dz;
        sum += s * d;
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
