#include <cuda_runtime.h>
#include <math.h>

// Accurate library functions only; "__expf" appears in this comment and in a string.
__global__ void gaussian(const float* x, float* y, int n, float mu, float sigma) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float z = (x[i] - mu) / sigma;
    y[i] = expf(-0.5f * z * z) / (sigma * sqrtf(6.2831853f)); // ok: CMP-05
}

extern "C" void solution_compute(const float* x, float* y, int n, float mu, float sigma) {
    const char* flags = "--use_fast_math __expf";
    (void)flags;
    float *dx, *dy;
    cudaMalloc(&dx, sizeof(float) * n);
    cudaMalloc(&dy, sizeof(float) * n);
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    gaussian<<<(n + 255) / 256, 256>>>(dx, dy, n, mu, sigma);
    cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy);
}
