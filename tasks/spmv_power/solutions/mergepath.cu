// spmv_power with merge-path load balancing: the rows' end markers and the non-zeros form one
// merged sequence of n + nnz items, and every thread takes the same number of items, so each
// thread has equal work whatever the row lengths. A thread's split point is found once, by a
// binary search along its diagonal (the matrix does not change between iterations). A row that
// spans two threads is finished by the thread that reaches its end; the others hand their
// partial sums over as carries, added in a fix-up pass.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "spmv_power: %s -> %s\n", #call, cudaGetErrorString(e_));     \
            goto cleanup;                                                                 \
        }                                                                                 \
    } while (0)

constexpr int THREADS = 256;
constexpr int ITEMS = 24;  // merge items (row ends + non-zeros) per thread

// Split of diagonal d between the row-end list (row_ptr[1..n]) and the non-zero indices.
__global__ void find_splits(int n, int nnz, int parts, const int* __restrict__ row_ptr,
                            int* __restrict__ split_row, int* __restrict__ split_k)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t > parts) return;
    const long long total = (long long)n + nnz;
    const long long d = t == parts ? total : min((long long)t * ITEMS, total);
    long long lo = d - nnz > 0 ? d - nnz : 0, hi = d < n ? d : n;
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (row_ptr[mid + 1] <= d - mid - 1) lo = mid + 1;
        else hi = mid;
    }
    split_row[t] = (int)lo;
    split_k[t] = (int)(d - lo);
}

__global__ void __launch_bounds__(THREADS)
spmv_merge(int n, int parts, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
           const float* __restrict__ vals, const float* __restrict__ x,
           const int* __restrict__ split_row, const int* __restrict__ split_k,
           float* __restrict__ y, int* __restrict__ carry_row, float* __restrict__ carry_val)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= parts) return;
    int i = split_row[t], k = split_k[t];
    const int i_end = split_row[t + 1], k_end = split_k[t + 1];
    float acc = 0.0f;
    for (; i < i_end; ++i) {  // rows that end inside this thread's range
        const int row_end = row_ptr[i + 1];
        for (; k < row_end; ++k) acc += vals[k] * x[col_idx[k]];
        y[i] = acc;
        acc = 0.0f;
    }
    for (; k < k_end; ++k) acc += vals[k] * x[col_idx[k]];  // start of a row finished later
    carry_row[t] = i_end;
    carry_val[t] = acc;
}

__global__ void add_carries(int n, int parts, const int* __restrict__ carry_row,
                            const float* __restrict__ carry_val, float* y)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < parts && carry_row[t] < n && carry_val[t] != 0.0f) atomicAdd(y + carry_row[t], carry_val[t]);
}

__global__ void __launch_bounds__(THREADS)
sum_squares(int n, const float* __restrict__ y, double* __restrict__ sq)
{
    __shared__ double part[THREADS];
    const int i = blockIdx.x * THREADS + threadIdx.x;
    part[threadIdx.x] = i < n ? (double)y[i] * (double)y[i] : 0.0;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(sq, part[0]);
}

__global__ void normalise(int n, const float* __restrict__ y, const double* __restrict__ sq,
                          float* __restrict__ x)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const double s = *sq;
    if (i < n) x[i] = s > 0.0 ? y[i] / (float)sqrt(s) : y[i];
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, const float* vals,
                                 const float* x0, int iters, float* x_out)
{
    if (n <= 0) return;
    const int nnz = row_ptr[n];
    const long long total = (long long)n + nnz;
    const int parts = (int)((total + ITEMS - 1) / ITEMS);
    const size_t vec = (size_t)n * sizeof(float);
    const int row_blocks = (n + THREADS - 1) / THREADS;
    const int part_blocks = (parts + THREADS - 1) / THREADS;
    int *d_ptr = nullptr, *d_col = nullptr, *d_srow = nullptr, *d_sk = nullptr, *d_crow = nullptr;
    float *d_val = nullptr, *d_x = nullptr, *d_y = nullptr, *d_cval = nullptr;
    double* d_sq = nullptr;

    CK(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CK(cudaMalloc(&d_col, (size_t)nnz * sizeof(int) + 4));
    CK(cudaMalloc(&d_val, (size_t)nnz * sizeof(float) + 4));
    CK(cudaMalloc(&d_x, vec));
    CK(cudaMalloc(&d_y, vec));
    CK(cudaMalloc(&d_srow, (size_t)(parts + 1) * sizeof(int)));
    CK(cudaMalloc(&d_sk, (size_t)(parts + 1) * sizeof(int)));
    CK(cudaMalloc(&d_crow, (size_t)parts * sizeof(int)));
    CK(cudaMalloc(&d_cval, (size_t)parts * sizeof(float)));
    CK(cudaMalloc(&d_sq, sizeof(double) * (iters > 0 ? iters : 1)));
    CK(cudaMemset(d_sq, 0, sizeof(double) * (iters > 0 ? iters : 1)));
    CK(cudaMemcpy(d_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_col, col_idx, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_val, vals, (size_t)nnz * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_x, x0, vec, cudaMemcpyHostToDevice));

    find_splits<<<(parts + 1 + THREADS - 1) / THREADS, THREADS>>>(n, nnz, parts, d_ptr, d_srow, d_sk);
    CK(cudaGetLastError());
    for (int it = 0; it < iters; ++it) {
        spmv_merge<<<part_blocks, THREADS>>>(n, parts, d_ptr, d_col, d_val, d_x, d_srow, d_sk, d_y, d_crow, d_cval);
        CK(cudaGetLastError());
        add_carries<<<part_blocks, THREADS>>>(n, parts, d_crow, d_cval, d_y);
        CK(cudaGetLastError());
        sum_squares<<<row_blocks, THREADS>>>(n, d_y, d_sq + it);
        CK(cudaGetLastError());
        normalise<<<row_blocks, THREADS>>>(n, d_y, d_sq + it, d_x);
        CK(cudaGetLastError());
    }
    CK(cudaMemcpy(x_out, d_x, vec, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_ptr);
    cudaFree(d_col);
    cudaFree(d_val);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_srow);
    cudaFree(d_sk);
    cudaFree(d_crow);
    cudaFree(d_cval);
    cudaFree(d_sq);
}
