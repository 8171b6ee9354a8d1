// spmv_power in one cooperative launch: the grid is sized to be fully co-resident, and each
// iteration is product + norm (block reduction, one double atomic per block into that
// iteration's slot), grid.sync(), normalisation, grid.sync(). The host only uploads, launches
// once and downloads.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cmath>
#include <cstdio>

namespace cg = cooperative_groups;

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "spmv_power: %s -> %s\n", #call, cudaGetErrorString(e_));     \
            goto cleanup;                                                                 \
        }                                                                                 \
    } while (0)

constexpr int THREADS = 256;

__global__ void __launch_bounds__(THREADS)
power_iterate(int n, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
              const float* __restrict__ vals, float* x, float* y, double* sq, int iters)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ double warp_part[THREADS / 32];
    const size_t start = (size_t)blockIdx.x * THREADS + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * THREADS;

    for (size_t i = start; i < (size_t)iters; i += stride) sq[i] = 0.0;
    grid.sync();

    for (int it = 0; it < iters; ++it) {
        double mine = 0.0;
        for (size_t i = start; i < (size_t)n; i += stride) {
            float acc = 0.0f;
            for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) acc += vals[k] * x[col_idx[k]];
            y[i] = acc;
            mine += (double)acc * (double)acc;
        }
        for (int off = 16; off > 0; off >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, off);
        if ((threadIdx.x & 31) == 0) warp_part[threadIdx.x >> 5] = mine;
        __syncthreads();
        if (threadIdx.x == 0) {
            double b = 0.0;
            for (int w = 0; w < THREADS / 32; ++w) b += warp_part[w];
            atomicAdd(sq + it, b);
        }
        grid.sync();  // y and the norm are complete

        const double s = *((volatile double*)(sq + it));
        const float norm = s > 0.0 ? (float)sqrt(s) : 1.0f;
        for (size_t i = start; i < (size_t)n; i += stride) x[i] = y[i] / norm;
        grid.sync();  // x is complete before the next product reads it
    }
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, const float* vals,
                                 const float* x0, int iters, float* x_out)
{
    if (n <= 0) return;
    const size_t nnz = (size_t)row_ptr[n];
    const size_t vec = (size_t)n * sizeof(float);
    int *d_ptr = nullptr, *d_col = nullptr;
    float *d_val = nullptr, *d_x = nullptr, *d_y = nullptr;
    double* d_sq = nullptr;
    int dev = 0, sms = 0, coop = 0, per_sm = 0, blocks = 0;
    const int need = (n + THREADS - 1) / THREADS;
    void* args[8];

    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) {
        fprintf(stderr, "spmv_power: no cooperative launch on this device\n");
        return;
    }
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, power_iterate, THREADS, 0));
    blocks = per_sm * sms;
    if (blocks > need) blocks = need;
    if (blocks < 1) blocks = 1;

    CK(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CK(cudaMalloc(&d_col, nnz * sizeof(int) + 4));
    CK(cudaMalloc(&d_val, nnz * sizeof(float) + 4));
    CK(cudaMalloc(&d_x, vec));
    CK(cudaMalloc(&d_y, vec));
    CK(cudaMalloc(&d_sq, sizeof(double) * (iters > 0 ? iters : 1)));
    CK(cudaMemcpy(d_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_col, col_idx, nnz * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_val, vals, nnz * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_x, x0, vec, cudaMemcpyHostToDevice));

    if (iters > 0) {
        args[0] = (void*)&n;
        args[1] = (void*)&d_ptr;
        args[2] = (void*)&d_col;
        args[3] = (void*)&d_val;
        args[4] = (void*)&d_x;
        args[5] = (void*)&d_y;
        args[6] = (void*)&d_sq;
        args[7] = (void*)&iters;
        CK(cudaLaunchCooperativeKernel((void*)power_iterate, dim3(blocks), dim3(THREADS), args, 0, 0));
        CK(cudaGetLastError());
    }
    CK(cudaMemcpy(x_out, d_x, vec, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_ptr);
    cudaFree(d_col);
    cudaFree(d_val);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_sq);
}
