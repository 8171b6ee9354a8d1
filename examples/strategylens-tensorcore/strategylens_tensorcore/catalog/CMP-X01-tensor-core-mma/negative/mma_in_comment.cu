#include <cuda_runtime.h>
#include <cstdio>

// TODO: switch to wmma::mma_sync once inputs are half precision.  // ok: CMP-X01
__global__ void matvec(const float* a, const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) sum += a[row * n + k] * x[k];
    y[row] = sum;
}

extern "C" void solution_compute(const float* a, const float* x, float* y, int n) {
    const char* note = "wmma::mma_sync not used";  // ok: CMP-X01
    (void)note;
    float *da, *dx, *dy;
    cudaMalloc(&da, (size_t)n * n * sizeof(float));
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(da, a, (size_t)n * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    matvec<<<(n + 255) / 256, 256>>>(da, dx, dy, n);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(dx);
    cudaFree(dy);
}
