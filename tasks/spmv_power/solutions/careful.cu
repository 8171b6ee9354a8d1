// spmv_power: groups of 8 lanes share a row (rows hold 4-28 entries), so a warp reads its rows'
// column indices and values in contiguous runs. The squared norm is reduced per block in shared
// memory, the block partials by a one-block kernel that also turns the sum into the divisor,
// and a scaling kernel reads that divisor from device memory: the whole iteration stays on the
// device and every buffer is allocated once.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

#define CUDA_TRY(call)                                                                     \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "spmv_power: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
            return err_;                                                                   \
        }                                                                                  \
    } while (0)

constexpr int THREADS = 256;
constexpr int LANES = 8;                       // lanes per row
constexpr int ROWS_PER_BLOCK = THREADS / LANES;

__global__ void __launch_bounds__(THREADS)
spmv_rows(int n, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
          const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y,
          double* __restrict__ block_sq)
{
    __shared__ double part[ROWS_PER_BLOCK];
    const int group = threadIdx.x / LANES;
    const int lane = threadIdx.x % LANES;
    const int row = blockIdx.x * ROWS_PER_BLOCK + group;

    float acc = 0.0f;
    if (row < n) {
        const int end = row_ptr[row + 1];
        for (int k = row_ptr[row] + lane; k < end; k += LANES) acc += vals[k] * x[col_idx[k]];
    }
    // all 32 lanes of the warp take part; width LANES keeps the groups apart
    for (int off = LANES / 2; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off, LANES);
    if (lane == 0) {
        if (row < n) y[row] = acc;
        part[group] = (row < n) ? (double)acc * (double)acc : 0.0;
    }
    __syncthreads();
    for (int s = ROWS_PER_BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sq[blockIdx.x] = part[0];
}

// One block: sum the block partials and store the divisor (the norm, or 1 when it is zero).
__global__ void __launch_bounds__(THREADS)
finish_norm(int parts, const double* __restrict__ block_sq, float* __restrict__ divisor)
{
    __shared__ double sum[THREADS];
    double s = 0.0;
    for (int i = threadIdx.x; i < parts; i += THREADS) s += block_sq[i];
    sum[threadIdx.x] = s;
    __syncthreads();
    for (int w = THREADS / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) sum[threadIdx.x] += sum[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) *divisor = sum[0] > 0.0 ? (float)sqrt(sum[0]) : 1.0f;
}

__global__ void __launch_bounds__(THREADS)
normalise(int n, const float* __restrict__ y, const float* __restrict__ divisor, float* __restrict__ x)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n) x[i] = y[i] / *divisor;
}

struct Buffers {
    int *ptr = nullptr, *col = nullptr;
    float *val = nullptr, *x = nullptr, *y = nullptr, *div = nullptr;
    double* part = nullptr;
    ~Buffers()
    {
        cudaFree(ptr);
        cudaFree(col);
        cudaFree(val);
        cudaFree(x);
        cudaFree(y);
        cudaFree(div);
        cudaFree(part);
    }
};

static cudaError_t power_iteration(int n, const int* row_ptr, const int* col_idx,
                                   const float* vals, const float* x0, int iters, float* x_out)
{
    const size_t nnz = (size_t)row_ptr[n];
    const int spmv_blocks = (n + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    const int vec_blocks = (n + THREADS - 1) / THREADS;
    Buffers b;
    CUDA_TRY(cudaMalloc(&b.ptr, (size_t)(n + 1) * sizeof(int)));
    CUDA_TRY(cudaMalloc(&b.col, nnz * sizeof(int)));
    CUDA_TRY(cudaMalloc(&b.val, nnz * sizeof(float)));
    CUDA_TRY(cudaMalloc(&b.x, (size_t)n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&b.y, (size_t)n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&b.div, sizeof(float)));
    CUDA_TRY(cudaMalloc(&b.part, (size_t)spmv_blocks * sizeof(double)));

    CUDA_TRY(cudaMemcpy(b.ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(b.col, col_idx, nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(b.val, vals, nnz * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(b.x, x0, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));

    for (int it = 0; it < iters; ++it) {
        spmv_rows<<<spmv_blocks, THREADS>>>(n, b.ptr, b.col, b.val, b.x, b.y, b.part);
        CUDA_TRY(cudaGetLastError());
        finish_norm<<<1, THREADS>>>(spmv_blocks, b.part, b.div);
        CUDA_TRY(cudaGetLastError());
        normalise<<<vec_blocks, THREADS>>>(n, b.y, b.div, b.x);
        CUDA_TRY(cudaGetLastError());
    }
    CUDA_TRY(cudaMemcpy(x_out, b.x, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    return cudaSuccess;
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, const float* vals,
                                 const float* x0, int iters, float* x_out)
{
    if (n <= 0) return;
    cudaError_t err = power_iteration(n, row_ptr, col_idx, vals, x0, iters, x_out);
    if (err != cudaSuccess) fprintf(stderr, "spmv_power: %s\n", cudaGetErrorString(err));
}
