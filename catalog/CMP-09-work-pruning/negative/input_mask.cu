#include <cuda_runtime.h>

// The mask is part of the task's input (the reference skips masked pixels too), so skipping them
// is not extra pruning.
__global__ void masked_gain(const float* img, const unsigned char* mask, float* out, int n, float g) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (!mask[i]) { out[i] = img[i]; return; } // ok: CMP-09
    out[i] = g * img[i];
}

extern "C" void solution_compute(const float* img, const unsigned char* mask, float* out, int n, float g) {
    float *di, *dout; unsigned char* dm;
    cudaMalloc(&di, sizeof(float) * n);
    cudaMalloc(&dm, n);
    cudaMalloc(&dout, sizeof(float) * n);
    cudaMemcpy(di, img, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dm, mask, n, cudaMemcpyHostToDevice);
    masked_gain<<<(n + 255) / 256, 256>>>(di, dm, dout, n, g);
    cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(di); cudaFree(dm); cudaFree(dout);
}
