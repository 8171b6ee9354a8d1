// Pairwise distances, 16x16 threads per block, each thread RB x RB outputs; the block stages
// its BM rows of X and of Y in shared memory, TK coordinates at a time.
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
constexpr int RB = 1;         // outputs per thread along each side
constexpr int BM = BT * RB;   // points per block side
constexpr int TK = 16;        // coordinates staged in shared memory per step

__global__ void __launch_bounds__(BT * BT)
dist_kernel(const float* __restrict__ X, const float* __restrict__ Y, float* __restrict__ dist,
            int n, int m, int d)
{
    // k-major tiles, one column of padding so the transposing stores do not conflict
    __shared__ float xs[TK][BM + 1];
    __shared__ float ys[TK][BM + 1];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BT + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BM;
    float acc[RB][RB];
#pragma unroll
    for (int r = 0; r < RB; r++)
#pragma unroll
        for (int c = 0; c < RB; c++) acc[r][c] = 0.0f;

    for (int k0 = 0; k0 < d; k0 += TK) {
        // coordinates past d load as zero on both sides and add exactly nothing
        for (int e = tid; e < BM * TK; e += BT * BT) {
            const int r = e / TK, kk = e % TK, k = k0 + kk;
            const int xr = row0 + r, yr = col0 + r;
            xs[kk][r] = (xr < n && k < d) ? X[(size_t)xr * d + k] : 0.0f;
            ys[kk][r] = (yr < m && k < d) ? Y[(size_t)yr * d + k] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TK; kk++) {
            float xv[RB], yv[RB];
#pragma unroll
            for (int r = 0; r < RB; r++) xv[r] = xs[kk][ty + r * BT];
#pragma unroll
            for (int c = 0; c < RB; c++) yv[c] = ys[kk][tx + c * BT];
#pragma unroll
            for (int r = 0; r < RB; r++)
#pragma unroll
                for (int c = 0; c < RB; c++) {
                    float diff = xv[r] - yv[c];
                    acc[r][c] = fmaf(diff, diff, acc[r][c]);
                }
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < RB; r++) {
        const int i = row0 + ty + r * BT;
#pragma unroll
        for (int c = 0; c < RB; c++) {
            const int j = col0 + tx + c * BT;
            if (i < n && j < m) dist[(size_t)i * m + j] = sqrtf(acc[r][c]);
        }
    }
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
