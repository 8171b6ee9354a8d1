#include <cuda_runtime.h>

// CSR SpMV, one warp per row: the lanes split the row's non-zeros and combine
// their partial sums with shuffles.
__global__ void spmv_csr_vector(int rows, const int* row_ptr, const int* col, const float* val,
                                const float* x, float* y) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int row = gid / 32;
    int lane = gid % 32;
    if (row >= rows) return;
    int start = row_ptr[row], end = row_ptr[row + 1];
    float sum = 0.0f;
    for (int j = start + lane; j < end; j += 32)  // expect: LBL-02
        sum += val[j] * x[col[j]];
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffff, sum, o);
    if (lane == 0) y[row] = sum;
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
    int threads = 256;
    int blocks = (int)(((long long)rows * 32 + threads - 1) / threads);
    spmv_csr_vector<<<blocks, threads>>>(rows, drp, dcol, dval, dx, dy);
    cudaMemcpy(y, dy, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(drp);
    cudaFree(dcol);
    cudaFree(dval);
    cudaFree(dx);
    cudaFree(dy);
}
