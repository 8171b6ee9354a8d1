// Pairwise distances through |x - y|^2 = |x|^2 + |y|^2 - 2 x.y. The squared norms are
// computed once per point (a warp per row), so the main kernel does one multiply-add per
// coordinate and pair instead of a subtract and a multiply-add. Dot products and norms are
// accumulated in double: in float the cancellation between the terms would cost several
// digits on nearby points. The combination and the square root happen in the GEMM-like
// kernel itself, so no intermediate matrix is stored.
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

constexpr int BT = 16, RB = 4, BM = BT * RB, TK = 16;

// norms[r] = sum_k P[r*d + k]^2 in double for the rows of X then of Y, one warp per row
__global__ void row_norms(const float* __restrict__ X, int n, const float* __restrict__ Y, int m,
                          int d, double* __restrict__ nx, double* __restrict__ ny)
{
    const int warp = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32);
    const int lane = threadIdx.x & 31;
    if (warp >= n + m) return;  // whole warps leave together
    const float* row = warp < n ? X + (size_t)warp * d : Y + (size_t)(warp - n) * d;
    double s = 0.0;
    for (int k = lane; k < d; k += 32) {
        const double v = row[k];
        s = fma(v, v, s);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    if (lane == 0) {
        if (warp < n) nx[warp] = s;
        else ny[warp - n] = s;
    }
}

__global__ void __launch_bounds__(BT * BT)
expanded_dist(const float* __restrict__ X, const float* __restrict__ Y,
              const double* __restrict__ nx, const double* __restrict__ ny,
              float* __restrict__ dist, int n, int m, int d)
{
    __shared__ float xs[TK][BM + 1];
    __shared__ float ys[TK][BM + 1];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BT + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BM;

    double dot[RB][RB];
#pragma unroll
    for (int r = 0; r < RB; r++)
#pragma unroll
        for (int c = 0; c < RB; c++) dot[r][c] = 0.0;

    for (int k0 = 0; k0 < d; k0 += TK) {
        for (int e = tid; e < BM * TK; e += BT * BT) {
            const int r = e / TK, kk = e % TK, k = k0 + kk;
            xs[kk][r] = (row0 + r < n && k < d) ? X[(size_t)(row0 + r) * d + k] : 0.0f;
            ys[kk][r] = (col0 + r < m && k < d) ? Y[(size_t)(col0 + r) * d + k] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TK; kk++) {
            double xv[RB], yv[RB];
#pragma unroll
            for (int r = 0; r < RB; r++) xv[r] = xs[kk][ty + r * BT];
#pragma unroll
            for (int c = 0; c < RB; c++) yv[c] = ys[kk][tx + c * BT];
#pragma unroll
            for (int r = 0; r < RB; r++)
#pragma unroll
                for (int c = 0; c < RB; c++) dot[r][c] = fma(xv[r], yv[c], dot[r][c]);
        }
        __syncthreads();
    }

    double nyv[RB];
#pragma unroll
    for (int c = 0; c < RB; c++) {
        const int j = col0 + tx + c * BT;
        nyv[c] = j < m ? ny[j] : 0.0;
    }
#pragma unroll
    for (int r = 0; r < RB; r++) {
        const int i = row0 + ty + r * BT;
        if (i >= n) break;
        const double nxv = nx[i];
#pragma unroll
        for (int c = 0; c < RB; c++) {
            const int j = col0 + tx + c * BT;
            if (j < m) {
                const double s = nxv + nyv[c] - 2.0 * dot[r][c];
                dist[(size_t)i * m + j] = (float)sqrt(fmax(s, 0.0));
            }
        }
    }
}

extern "C" void solution_compute(const float* X, int n, const float* Y, int m, int d, float* dist)
{
    float *dX = nullptr, *dY = nullptr, *dD = nullptr;
    double* dN = nullptr;
    const size_t xb = (size_t)n * d * sizeof(float), yb = (size_t)m * d * sizeof(float);
    const size_t db = (size_t)n * m * sizeof(float);
    const dim3 block(BT, BT);
    const dim3 grid((m + BM - 1) / BM, (n + BM - 1) / BM);
    const unsigned norm_blocks = (unsigned)(((size_t)(n + m) * 32 + 255) / 256);

    if (n <= 0 || m <= 0) return;
    CK(cudaMalloc(&dX, xb + 16));
    CK(cudaMalloc(&dY, yb + 16));
    CK(cudaMalloc(&dD, db));
    CK(cudaMalloc(&dN, (size_t)(n + m) * sizeof(double)));
    CK(cudaMemcpy(dX, X, xb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dY, Y, yb, cudaMemcpyHostToDevice));
    row_norms<<<norm_blocks, 256>>>(dX, n, dY, m, d, dN, dN + n);
    CK(cudaGetLastError());
    expanded_dist<<<grid, block>>>(dX, dY, dN, dN + n, dD, n, m, d);
    CK(cudaGetLastError());
    CK(cudaMemcpy(dist, dD, db, cudaMemcpyDeviceToHost));
done:
    cudaFree(dX);
    cudaFree(dY);
    cudaFree(dD);
    cudaFree(dN);
}
