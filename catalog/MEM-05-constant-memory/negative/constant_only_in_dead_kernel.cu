#include <cuda_runtime.h>
#include <stdio.h>

__constant__ float c_weights[9]; // ok: MEM-05

// Written for a constant-memory version that the entry point never launches.
__global__ void blur_const(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    float acc = 0.0f;
    for (int k = 0; k < 9; ++k) acc += c_weights[k] * in[(y + k / 3 - 1) * w + x + k % 3 - 1];
    out[y * w + x] = acc;
}

__global__ void blur(const float* in, const float* wts, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    float acc = 0.0f;
    for (int k = 0; k < 9; ++k) acc += wts[k] * in[(y + k / 3 - 1) * w + x + k % 3 - 1];
    out[y * w + x] = acc;
}

extern "C" void solution_compute(const float* in, const float* wts, float* out, int w, int h) {
    fprintf(stderr, "using __constant__ weights: no\n");
    float *di, *dw, *dout;
    cudaMalloc(&di, sizeof(float) * w * h);
    cudaMalloc(&dw, sizeof(float) * 9);
    cudaMalloc(&dout, sizeof(float) * w * h);
    cudaMemcpy(di, in, sizeof(float) * w * h, cudaMemcpyHostToDevice);
    cudaMemcpy(dw, wts, sizeof(float) * 9, cudaMemcpyHostToDevice);
    cudaMemset(dout, 0, sizeof(float) * w * h);
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    blur<<<g, b>>>(di, dw, dout, w, h);
    cudaMemcpy(out, dout, sizeof(float) * w * h, cudaMemcpyDeviceToHost);
    cudaFree(di); cudaFree(dw); cudaFree(dout);
}
