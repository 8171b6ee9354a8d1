#include <cuda_runtime.h>

// float4 used as a register bundle only; memory is read and written one float at a time.
__global__ void rgba_gain(const float* rgba, float* out, float4 gain, int pixels) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    float4 c = make_float4(rgba[4 * p], rgba[4 * p + 1], rgba[4 * p + 2], rgba[4 * p + 3]); // ok: MEM-06
    out[4 * p + 0] = c.x * gain.x;
    out[4 * p + 1] = c.y * gain.y;
    out[4 * p + 2] = c.z * gain.z;
    out[4 * p + 3] = c.w * gain.w;
}

// A vectorised copy that is never launched.
__global__ void copy_vec(const float4* in, float4* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) out[i] = in[i]; // ok: MEM-06
}

extern "C" void solution_compute(const float* rgba, float* out, int pixels) {
    float *di, *dout;
    cudaMalloc(&di, sizeof(float) * 4 * pixels);
    cudaMalloc(&dout, sizeof(float) * 4 * pixels);
    cudaMemcpy(di, rgba, sizeof(float) * 4 * pixels, cudaMemcpyHostToDevice);
    rgba_gain<<<(pixels + 255) / 256, 256>>>(di, dout, make_float4(1.1f, 1.0f, 0.9f, 1.0f), pixels);
    cudaMemcpy(out, dout, sizeof(float) * 4 * pixels, cudaMemcpyDeviceToHost);
    cudaFree(di); cudaFree(dout);
}
