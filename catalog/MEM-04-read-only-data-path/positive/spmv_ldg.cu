#include <cuda_runtime.h>

// CSR SpMV, one thread per row; the gathered vector goes through the read-only cache.
__global__ void spmv_csr(int rows, const int* rowptr, const int* colidx, const float* vals,
                         const float* x, float* y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float sum = 0.0f;
    int end = __ldg(&rowptr[r + 1]); // expect: MEM-04
    for (int j = rowptr[r]; j < end; ++j) {
        sum += vals[j] * __ldg(&x[colidx[j]]); // expect: MEM-04
    }
    y[r] = sum;
}

extern "C" void solution_compute(int rows, int nnz, const int* rowptr, const int* colidx,
                                 const float* vals, const float* x, int cols, float* y) {
    int *drp, *dci; float *dv, *dx, *dy;
    cudaMalloc(&drp, sizeof(int) * (rows + 1));
    cudaMalloc(&dci, sizeof(int) * nnz);
    cudaMalloc(&dv, sizeof(float) * nnz);
    cudaMalloc(&dx, sizeof(float) * cols);
    cudaMalloc(&dy, sizeof(float) * rows);
    cudaMemcpy(drp, rowptr, sizeof(int) * (rows + 1), cudaMemcpyHostToDevice);
    cudaMemcpy(dci, colidx, sizeof(int) * nnz, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, vals, sizeof(float) * nnz, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, sizeof(float) * cols, cudaMemcpyHostToDevice);
    spmv_csr<<<(rows + 127) / 128, 128>>>(rows, drp, dci, dv, dx, dy);
    cudaMemcpy(y, dy, sizeof(float) * rows, cudaMemcpyDeviceToHost);
    cudaFree(drp); cudaFree(dci); cudaFree(dv); cudaFree(dx); cudaFree(dy);
}
