#include <cuda_runtime.h>
#include <math.h>

// Bilateral-style smoothing run for many steps: the spatial Gaussian weights are computed once by
// a setup kernel, and per-block the range table is built in shared memory before use.
__global__ void make_spatial(float* wsp, int r, float inv2s2) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k <= 2 * r) {
        float d = (float)(k - r);
        wsp[k] = expf(-d * d * inv2s2); // expect: CMP-03
    }
}

__global__ void smooth_step(const float* in, float* out, const float* wsp, int n, int r, float inv2t2) {
    __shared__ float range_tab[64];
    if (threadIdx.x < 64) {
        float q = threadIdx.x * (1.0f / 63.0f);
        range_tab[threadIdx.x] = expf(-q * q * inv2t2); // expect: CMP-03
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float c = in[i], acc = 0.0f, norm = 0.0f;
    for (int k = -r; k <= r; ++k) {
        int j = min(max(i + k, 0), n - 1);
        int q = min((int)(fabsf(in[j] - c) * 63.0f), 63);
        float w = wsp[k + r] * range_tab[q];
        acc += w * in[j];
        norm += w;
    }
    out[i] = acc / norm;
}

extern "C" void solution_compute(const float* in, float* out, int n, int r, float sigma_s, float sigma_t, int steps) {
    float *da, *db, *dw;
    cudaMalloc(&da, sizeof(float) * n); cudaMalloc(&db, sizeof(float) * n);
    cudaMalloc(&dw, sizeof(float) * (2 * r + 1));
    cudaMemcpy(da, in, sizeof(float) * n, cudaMemcpyHostToDevice);
    make_spatial<<<1, 2 * r + 1>>>(dw, r, 1.0f / (2.0f * sigma_s * sigma_s));
    for (int s = 0; s < steps; ++s) {
        smooth_step<<<(n + 255) / 256, 256>>>(da, db, dw, n, r, 1.0f / (2.0f * sigma_t * sigma_t));
        float* t = da; da = db; db = t;
    }
    cudaMemcpy(out, da, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(da); cudaFree(db); cudaFree(dw);
}
