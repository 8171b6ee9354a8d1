// Baseline CUDA port of spmv_power: one thread per row (scalar CSR), block-level reduction of
// the squared norm with one double atomic per block, then a scaling kernel.
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

constexpr int THREADS = 256;

__global__ void spmv_kernel(int n, const int* __restrict__ row_ptr,
                            const int* __restrict__ col_idx, const float* __restrict__ vals,
                            const float* __restrict__ x, float* __restrict__ y, double* sq)
{
    __shared__ double part[THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double mine = 0.0;
    if (i < n) {
        float acc = 0.0f;
        for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++) acc += vals[k] * x[col_idx[k]];
        y[i] = acc;
        mine = (double)acc * (double)acc;
    }
    part[threadIdx.x] = mine;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(sq, part[0]);
}

__global__ void scale_kernel(int n, const float* __restrict__ y, float* __restrict__ x,
                             const double* sq)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double s = *sq;
    x[i] = s > 0.0 ? y[i] / (float)sqrt(s) : y[i];
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, const float* vals,
                                 const float* x0, int iters, float* x_out)
{
    int *d_ptr = nullptr, *d_col = nullptr;
    float *d_vals = nullptr, *d_x = nullptr, *d_y = nullptr;
    double* d_sq = nullptr;
    int nnz = 0;
    int blocks = (n + THREADS - 1) / THREADS;
    if (n <= 0) return;
    nnz = row_ptr[n];
    CK(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CK(cudaMalloc(&d_col, (size_t)nnz * sizeof(int) + 1));
    CK(cudaMalloc(&d_vals, (size_t)nnz * sizeof(float) + 1));
    CK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_y, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_sq, sizeof(double)));
    CK(cudaMemcpy(d_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_col, col_idx, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_vals, vals, (size_t)nnz * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_x, x0, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    for (int it = 0; it < iters; it++) {
        CK(cudaMemset(d_sq, 0, sizeof(double)));
        spmv_kernel<<<blocks, THREADS>>>(n, d_ptr, d_col, d_vals, d_x, d_y, d_sq);
        CK(cudaGetLastError());
        scale_kernel<<<blocks, THREADS>>>(n, d_y, d_x, d_sq);
        CK(cudaGetLastError());
    }
    CK(cudaMemcpy(x_out, d_x, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_ptr);
    cudaFree(d_col);
    cudaFree(d_vals);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_sq);
}
