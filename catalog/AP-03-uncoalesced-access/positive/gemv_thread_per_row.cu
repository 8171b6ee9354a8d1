// y = A x for a row-major dense matrix with one thread per row: consecutive threads read
// A with a stride of a whole row.
#include <cuda_runtime.h>

__global__ void gemv_row_per_thread(const float* A, const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
        sum += A[row * cols + j] * x[j];  // expect: AP-03
    y[row] = sum;
}

extern "C" void solution_compute(int rows, int cols, const float* A, const float* x, float* y) {
    float *dA, *dx, *dy;
    cudaMalloc(&dA, (size_t)rows * cols * sizeof(float));
    cudaMalloc(&dx, cols * sizeof(float));
    cudaMalloc(&dy, rows * sizeof(float));
    cudaMemcpy(dA, A, (size_t)rows * cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, cols * sizeof(float), cudaMemcpyHostToDevice);
    gemv_row_per_thread<<<(rows + 255) / 256, 256>>>(dA, dx, dy, rows, cols);
    cudaMemcpy(y, dy, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dA); cudaFree(dx); cudaFree(dy);
}
