#include <cuda_runtime.h>

// y = a*x + b processed four floats at a time with 128-bit loads and stores.
__global__ void affine_vec4(const float* x, float* y, float a, float b, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 v = reinterpret_cast<const float4*>(x)[i]; // expect: MEM-06
    v.x = a * v.x + b; v.y = a * v.y + b; v.z = a * v.z + b; v.w = a * v.w + b;
    reinterpret_cast<float4*>(y)[i] = v; // expect: MEM-06
}

__global__ void affine_tail(const float* x, float* y, float a, float b, int start, int n) {
    int i = start + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}

extern "C" void solution_compute(const float* x, float* y, float a, float b, int n) {
    float *dx, *dy;
    cudaMalloc(&dx, sizeof(float) * n);
    cudaMalloc(&dy, sizeof(float) * n);
    cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
    int n4 = n / 4;
    if (n4 > 0) affine_vec4<<<(n4 + 255) / 256, 256>>>(dx, dy, a, b, n4);
    int rest = n - 4 * n4;
    if (rest > 0) affine_tail<<<1, 32>>>(dx, dy, a, b, 4 * n4, n);
    cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy);
}
