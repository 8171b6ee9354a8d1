// Two products with a row-major matrix: A^T x with one thread per column (stride-1 across
// threads) and A x with one warp per row whose lanes stride the row.
#include <cuda_runtime.h>

__global__ void gemv_t_col_per_thread(const float* A, const float* x, float* y, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;
    float s = 0.0f;
    for (int i = 0; i < rows; ++i)
        s += A[i * cols + col] * x[i];  // ok: AP-03
    y[col] = s;
}

__global__ void gemv_warp_per_row(const float* A, const float* x, float* y, int rows, int cols) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32)
        s += A[row * cols + j] * x[j];  // ok: AP-03
    for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) y[row] = s;
}

extern "C" void solution_compute(int rows, int cols, const float* A, const float* x, const float* z,
                                 float* Ax, float* Atz) {
    float *dA, *dx, *dz, *dAx, *dAtz;
    cudaMalloc(&dA, (size_t)rows * cols * sizeof(float));
    cudaMalloc(&dx, cols * sizeof(float));
    cudaMalloc(&dz, rows * sizeof(float));
    cudaMalloc(&dAx, rows * sizeof(float));
    cudaMalloc(&dAtz, cols * sizeof(float));
    cudaMemcpy(dA, A, (size_t)rows * cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dz, z, rows * sizeof(float), cudaMemcpyHostToDevice);
    gemv_warp_per_row<<<(rows * 32 + 255) / 256, 256>>>(dA, dx, dAx, rows, cols);
    gemv_t_col_per_thread<<<(cols + 255) / 256, 256>>>(dA, dz, dAtz, rows, cols);
    cudaMemcpy(Ax, dAx, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(Atz, dAtz, cols * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dA); cudaFree(dx); cudaFree(dz); cudaFree(dAx); cudaFree(dAtz);
}
