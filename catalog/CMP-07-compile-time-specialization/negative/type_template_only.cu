#include <cuda_runtime.h>

// A type-generic kernel used with one type: generic code, not size or mode specialisation.
template <typename T> // ok: CMP-07
__global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" void solution_compute(float a, const float* x, float* y, int n) {
    float *dx, *dy;
    cudaMalloc(&dx, sizeof(float) * n);
    cudaMalloc(&dy, sizeof(float) * n);
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, sizeof(float) * n, cudaMemcpyHostToDevice);
    axpy<float><<<(n + 255) / 256, 256>>>(a, dx, dy, n);
    cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy);
}
