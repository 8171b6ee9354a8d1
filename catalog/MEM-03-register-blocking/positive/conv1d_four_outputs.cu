#include <cuda_runtime.h>

#define OUTS 4

// Each thread computes four neighbouring outputs; every filter tap loaded once feeds all four.
__global__ void conv1d_x4(const float* in, const float* taps, float* out, int n, int k) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * OUTS;
    if (base >= n) return;
    float r[OUTS]; // expect: MEM-03
    for (int o = 0; o < OUTS; ++o) r[o] = 0.0f;
    for (int t = 0; t < k; ++t) {
        float w = taps[t];
        for (int o = 0; o < OUTS; ++o) {
            int idx = base + o + t;
            r[o] += w * ((idx < n + k - 1) ? in[idx] : 0.0f);
        }
    }
    for (int o = 0; o < OUTS; ++o)
        if (base + o < n) out[base + o] = r[o];
}

extern "C" void solution_compute(const float* in, const float* taps, float* out, int n, int k) {
    float *din, *dt, *dout;
    cudaMalloc(&din, sizeof(float) * (n + k - 1));
    cudaMalloc(&dt, sizeof(float) * k);
    cudaMalloc(&dout, sizeof(float) * n);
    cudaMemcpy(din, in, sizeof(float) * (n + k - 1), cudaMemcpyHostToDevice);
    cudaMemcpy(dt, taps, sizeof(float) * k, cudaMemcpyHostToDevice);
    int threads = 128;
    int per_block = threads * OUTS;
    conv1d_x4<<<(n + per_block - 1) / per_block, threads>>>(din, dt, dout, n, k);
    cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(din); cudaFree(dt); cudaFree(dout);
}
