#include <cuda_runtime.h>

#define MAX_TAPS 63

__constant__ float c_filter[MAX_TAPS]; // expect: MEM-05

// 1-D convolution: every thread of a warp reads the same tap at the same time (broadcast).
__global__ void conv1d(const float* in, float* out, int n, int taps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int r = taps / 2;
    float acc = 0.0f;
    for (int k = 0; k < taps; ++k) {
        int j = i + k - r;
        if (j >= 0 && j < n) acc += c_filter[k] * in[j];
    }
    out[i] = acc;
}

extern "C" void solution_compute(const float* in, const float* filter, int taps, float* out, int n) {
    cudaMemcpyToSymbol(c_filter, filter, sizeof(float) * taps);
    float *din, *dout;
    cudaMalloc(&din, sizeof(float) * n);
    cudaMalloc(&dout, sizeof(float) * n);
    cudaMemcpy(din, in, sizeof(float) * n, cudaMemcpyHostToDevice);
    conv1d<<<(n + 255) / 256, 256>>>(din, dout, n, taps);
    cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(din); cudaFree(dout);
}
