#include <cuda_runtime.h>

// Dense mat-vec: the register accumulator is the thread's own output, written
// once; nothing is privatised and merged.
__global__ void gemv_kernel(const float* A, const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += A[(size_t)row * cols + c] * x[c];
    y[row] = sum;  // ok: PAR-05
}

extern "C" void solution_compute(int rows, int cols, const float* A, const float* x, float* y) {
    float *dA, *dx, *dy;
    cudaMalloc(&dA, (size_t)rows * cols * sizeof(float));
    cudaMalloc(&dx, cols * sizeof(float));
    cudaMalloc(&dy, rows * sizeof(float));
    cudaMemcpy(dA, A, (size_t)rows * cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, cols * sizeof(float), cudaMemcpyHostToDevice);
    gemv_kernel<<<(rows + 127) / 128, 128>>>(dA, dx, dy, rows, cols);
    cudaMemcpy(y, dy, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dA);
    cudaFree(dx);
    cudaFree(dy);
}
