// Sparse matrix-vector product, CSR-scalar: each thread walks its own row, so a warp reads
// 32 unrelated stretches of col_idx and vals.
#include <cuda_runtime.h>

__global__ void spmv_csr_scalar(const int* row_ptr, const int* col_idx, const float* vals,
                                const float* x, float* y, int nrows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < nrows) {
        float dot = 0.0f;
        for (int k = row_ptr[row]; k < row_ptr[row + 1]; ++k)  // expect: AP-03
            dot += vals[k] * x[col_idx[k]];
        y[row] = dot;
    }
}

extern "C" void solution_compute(int nrows, int nnz, const int* row_ptr, const int* col_idx,
                                 const float* vals, const float* x, float* y) {
    int *d_ptr, *d_col;
    float *d_val, *d_x, *d_y;
    cudaMalloc(&d_ptr, (nrows + 1) * sizeof(int));
    cudaMalloc(&d_col, nnz * sizeof(int));
    cudaMalloc(&d_val, nnz * sizeof(float));
    cudaMalloc(&d_x, nrows * sizeof(float));
    cudaMalloc(&d_y, nrows * sizeof(float));
    cudaMemcpy(d_ptr, row_ptr, (nrows + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_col, col_idx, nnz * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_val, vals, nnz * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x, nrows * sizeof(float), cudaMemcpyHostToDevice);
    spmv_csr_scalar<<<(nrows + 127) / 128, 128>>>(d_ptr, d_col, d_val, d_x, d_y, nrows);
    cudaMemcpy(y, d_y, nrows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_ptr); cudaFree(d_col); cudaFree(d_val); cudaFree(d_x); cudaFree(d_y);
}
