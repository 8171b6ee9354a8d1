#include <cuda_runtime.h>
#include <cuda_fp16.h>

// Activations are stored in half precision to halve the bytes moved; the math is done in float.
__global__ void to_half(const float* x, __half* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) h[i] = __float2half(x[i]); // expect: MEM-10
}

__global__ void gelu_half(const __half* h, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = __half2float(h[i]); // expect: MEM-10
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

extern "C" void solution_compute(const float* x, float* y, int n) {
    float *dx, *dy;
    __half* dh; // expect: MEM-10
    cudaMalloc(&dx, sizeof(float) * n);
    cudaMalloc(&dy, sizeof(float) * n);
    cudaMalloc(&dh, sizeof(__half) * n);
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    to_half<<<(n + 255) / 256, 256>>>(dx, dh, n);
    gelu_half<<<(n + 255) / 256, 256>>>(dh, dy, n);
    cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy); cudaFree(dh);
}
