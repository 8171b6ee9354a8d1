#include <cuda_runtime.h>

// CSR SpMV with one thread per row: the row's non-zeros are walked serially by
// a single thread, not split among lanes.
__global__ void spmv_csr_scalar(int rows, const int* row_ptr, const int* col, const float* val,
                                const float* x, float* y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)  // ok: LBL-02
        sum += val[j] * x[col[j]];
    y[row] = sum;
}

extern "C" void solution_compute(int rows, int cols, int nnz, const int* row_ptr, const int* col,
                                 const float* val, const float* x, float* y) {
    int *drp, *dcol;
    float *dval, *dx, *dy;
    cudaMalloc(&drp, (rows + 1) * sizeof(int));
    cudaMalloc(&dcol, nnz * sizeof(int));
    cudaMalloc(&dval, nnz * sizeof(float));
    cudaMalloc(&dx, cols * sizeof(float));
    cudaMalloc(&dy, rows * sizeof(float));
    cudaMemcpy(drp, row_ptr, (rows + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dval, val, nnz * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, cols * sizeof(float), cudaMemcpyHostToDevice);
    spmv_csr_scalar<<<(rows + 255) / 256, 256>>>(rows, drp, dcol, dval, dx, dy);
    cudaMemcpy(y, dy, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(drp);
    cudaFree(dcol);
    cudaFree(dval);
    cudaFree(dx);
    cudaFree(dy);
}
