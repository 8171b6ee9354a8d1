// Gaussian blur with a 5-tap separable filter. `static` appears on a helper function, on a
// constant table and on a compile-time constant: none of it carries state between calls.
#include <cuda_runtime.h>

static const float kTaps[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};  // ok: AP-04
static constexpr int kBlock = 256;  // ok: AP-04

__constant__ float c_taps[5];

__global__ void blur_rows(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int k = -2; k <= 2; ++k) {
        int xx = min(max(x + k, 0), w - 1);
        s += c_taps[k + 2] * in[y * w + xx];
    }
    out[y * w + x] = s;
}

static inline int blocks_for(int n) {  // ok: AP-04
    return (n + kBlock - 1) / kBlock;
}

extern "C" void solution_compute(int w, int h, const float* img, float* out) {
    size_t bytes = (size_t)w * h * sizeof(float);
    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, img, bytes, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_taps, kTaps, sizeof(kTaps));
    blur_rows<<<dim3(blocks_for(w), h), kBlock>>>(d_in, d_out, w, h);
    cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
}
