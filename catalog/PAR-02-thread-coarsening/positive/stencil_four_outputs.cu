#include <cuda_runtime.h>

#define OUTPUTS_PER_THREAD 4

// 1-D three-point smoothing; each thread produces four outputs spaced one
// block apart so the stores of a warp stay contiguous.
__global__ void smooth_kernel(const float* in, float* out, int n) {
    int base = blockIdx.x * blockDim.x * OUTPUTS_PER_THREAD + threadIdx.x;
#pragma unroll
    for (int k = 0; k < OUTPUTS_PER_THREAD; ++k) {  // expect: PAR-02
        int i = base + k * blockDim.x;
        if (i > 0 && i < n - 1) {
            out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
        } else if (i < n) {
            out[i] = in[i];
        }
    }
}

extern "C" void solution_compute(int n, const float* in, float* out) {
    float *din, *dout;
    cudaMalloc(&din, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice);
    int per_block = 256 * OUTPUTS_PER_THREAD;
    smooth_kernel<<<(n + per_block - 1) / per_block, 256>>>(din, dout, n);
    cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
}
