#include <cuda_runtime.h>
#include <math.h>

#define GPU_MIN_N 8192

__global__ void logistic_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
}

// Small inputs are computed on the host: below the threshold the transfers and
// launch would cost more than the work.
extern "C" void solution_compute(int n, const float* x, float* y) {
    if (n < GPU_MIN_N) {  // expect: LBL-06
        for (int i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + expf(-x[i]));
        return;
    }
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    logistic_kernel<<<(n + 255) / 256, 256>>>(dx, dy, n);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
