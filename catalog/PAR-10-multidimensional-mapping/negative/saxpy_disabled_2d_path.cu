#include <cuda_runtime.h>

#define USE_2D 0

// Element-wise a*x + y on a matrix. A 2-D launch path exists behind a
// compile-time switch that is off; the launch that runs is 1-D.
__global__ void axpy_2d(float a, const float* x, float* y, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) y[r * cols + c] += a * x[r * cols + c];
}

__global__ void axpy_1d(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

extern "C" void solution_compute(int rows, int cols, float a, const float* x, float* y) {
    float *dx, *dy;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    cudaMalloc(&dx, bytes);
    cudaMalloc(&dy, bytes);
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
    if (USE_2D) {
        dim3 block(16, 16);
        dim3 grid((cols + 15) / 16, (rows + 15) / 16);
        axpy_2d<<<grid, block>>>(a, dx, dy, rows, cols);  // ok: PAR-10
    } else {
        int n = rows * cols;
        axpy_1d<<<(n + 255) / 256, 256>>>(a, dx, dy, n);  // ok: PAR-10
    }
    cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
