// Baseline CUDA port of pairwise_dist: one thread per output element, both rows read from
// global memory.
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

__global__ void dist_kernel(const float* __restrict__ X, int n, const float* __restrict__ Y,
                            int m, int d, float* __restrict__ dist)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= m) return;
    const float* x = X + (size_t)i * d;
    const float* y = Y + (size_t)j * d;
    float acc = 0.0f;
    for (int k = 0; k < d; k++) {
        float diff = x[k] - y[k];
        acc += diff * diff;
    }
    dist[(size_t)i * m + j] = sqrtf(acc);
}

extern "C" void solution_compute(const float* X, int n, const float* Y, int m, int d, float* dist)
{
    float *dX = nullptr, *dY = nullptr, *dD = nullptr;
    size_t xb = (size_t)n * d * sizeof(float), yb = (size_t)m * d * sizeof(float);
    size_t db = (size_t)n * m * sizeof(float);
    dim3 block(32, 8);
    dim3 grid((m + block.x - 1) / block.x, (n + block.y - 1) / block.y);
    if (n <= 0 || m <= 0) return;
    CK(cudaMalloc(&dX, xb + 1));
    CK(cudaMalloc(&dY, yb + 1));
    CK(cudaMalloc(&dD, db));
    CK(cudaMemcpy(dX, X, xb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dY, Y, yb, cudaMemcpyHostToDevice));
    dist_kernel<<<grid, block>>>(dX, n, dY, m, d, dD);
    CK(cudaGetLastError());
    CK(cudaMemcpy(dist, dD, db, cudaMemcpyDeviceToHost));
done:
    cudaFree(dX);
    cudaFree(dY);
    cudaFree(dD);
}
