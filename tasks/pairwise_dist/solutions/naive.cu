// Pairwise distances: one thread per output element over the flattened n x m matrix.
#include <cuda_runtime.h>
#include <cstdio>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e = (call);                                                        \
        if (e != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, \
                    __LINE__);                                                         \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

__global__ void distances(const float* X, const float* Y, float* dist, int n, int m, int d)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t total = (size_t)n * m;
    if (idx >= total) return;
    int i = (int)(idx / m);
    int j = (int)(idx % m);
    float acc = 0.0f;
    for (int k = 0; k < d; k++) {
        float diff = X[(size_t)i * d + k] - Y[(size_t)j * d + k];
        acc += diff * diff;
    }
    dist[idx] = sqrtf(acc);
}

extern "C" void solution_compute(const float* X, int n, const float* Y, int m, int d, float* dist)
{
    float* d_X = NULL;
    float* d_Y = NULL;
    float* d_dist = NULL;
    size_t total = (size_t)n * m;
    int threads = 256;
    size_t blocks = (total + threads - 1) / threads;

    if (n <= 0 || m <= 0) return;

    CHECK(cudaMalloc((void**)&d_X, (size_t)n * d * sizeof(float) + 4));
    CHECK(cudaMalloc((void**)&d_Y, (size_t)m * d * sizeof(float) + 4));
    CHECK(cudaMalloc((void**)&d_dist, total * sizeof(float)));

    CHECK(cudaMemcpy(d_X, X, (size_t)n * d * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_Y, Y, (size_t)m * d * sizeof(float), cudaMemcpyHostToDevice));

    distances<<<(unsigned)blocks, threads>>>(d_X, d_Y, d_dist, n, m, d);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(dist, d_dist, total * sizeof(float), cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_X);
    cudaFree(d_Y);
    cudaFree(d_dist);
}
