// Pairwise distances, 16x16 threads per block and one output per thread; both rows are read
// straight from global memory.
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

constexpr int BT = 16;        // threads per block side
constexpr int BM = BT;        // points per block side

__global__ void __launch_bounds__(BT * BT)
dist_kernel(const float* __restrict__ X, const float* __restrict__ Y, float* __restrict__ dist,
            int n, int m, int d)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.y * BM + ty;
    const int j = blockIdx.x * BM + tx;
    if (i >= n || j >= m) return;
    const float* x = X + (size_t)i * d;
    const float* y = Y + (size_t)j * d;
    float acc = 0.0f;
    for (int k = 0; k < d; k++) {
        float diff = x[k] - y[k];
        acc = fmaf(diff, diff, acc);
    }
    dist[(size_t)i * m + j] = sqrtf(acc);
}

extern "C" void solution_compute(const float* X, int n, const float* Y, int m, int d, float* dist)
{
    float *dX = nullptr, *dY = nullptr, *dD = nullptr;
    const size_t xb = (size_t)n * d * sizeof(float), yb = (size_t)m * d * sizeof(float);
    const size_t db = (size_t)n * m * sizeof(float);
    const dim3 block(BT, BT);
    const dim3 grid((m + BM - 1) / BM, (n + BM - 1) / BM);
    if (n <= 0 || m <= 0) return;
    CK(cudaMalloc(&dX, xb + 16));
    CK(cudaMalloc(&dY, yb + 16));
    CK(cudaMalloc(&dD, db));
    CK(cudaMemcpy(dX, X, xb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dY, Y, yb, cudaMemcpyHostToDevice));
    dist_kernel<<<grid, block>>>(dX, dY, dD, n, m, d);
    CK(cudaGetLastError());
    CK(cudaMemcpy(dist, dD, db, cudaMemcpyDeviceToHost));
done:
    cudaFree(dX);
    cudaFree(dY);
    cudaFree(dD);
}
