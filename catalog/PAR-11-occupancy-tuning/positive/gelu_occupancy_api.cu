#include <cuda_runtime.h>
#include <math.h>

__global__ void gelu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

extern "C" void solution_compute(int n, const float* x, float* y) {
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    int min_grid = 0, block = 0;
    cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, gelu_kernel, 0, 0);  // expect: PAR-11
    int grid = (n + block - 1) / block;
    gelu_kernel<<<grid, block>>>(dx, dy, n);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
