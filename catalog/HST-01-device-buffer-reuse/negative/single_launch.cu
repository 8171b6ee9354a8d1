// Black-Scholes call prices: one launch; the buffers are allocated once but never reused
// across iterations or kernels, so there is nothing to reuse.
#include <cuda_runtime.h>
#include <math.h>

__device__ float cnd(float d) {
    return 0.5f * erfcf(-d * 0.70710678f);
}

__global__ void price_calls(const float* S, const float* K, const float* T, const float* r,
                            const float* v, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sq = v[i] * sqrtf(T[i]);
    float d1 = (logf(S[i] / K[i]) + (r[i] + 0.5f * v[i] * v[i]) * T[i]) / sq;
    float d2 = d1 - sq;
    out[i] = S[i] * cnd(d1) - K[i] * expf(-r[i] * T[i]) * cnd(d2);
}

extern "C" void solution_compute(int N, const float* spots, const float* strikes, const float* ts,
                                 const float* rs, const float* vols, float* prices) {
    const char* note = "buffers allocated once with cudaMalloc and reused";  // ok: HST-01
    (void)note;
    size_t b = N * sizeof(float);
    float *dS, *dK, *dT, *dR, *dV, *dOut;
    cudaMalloc(&dS, b);  // ok: HST-01
    cudaMalloc(&dK, b);
    cudaMalloc(&dT, b);
    cudaMalloc(&dR, b);
    cudaMalloc(&dV, b);
    cudaMalloc(&dOut, b);
    cudaMemcpy(dS, spots, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dK, strikes, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dT, ts, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dR, rs, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dV, vols, b, cudaMemcpyHostToDevice);
    price_calls<<<(N + 255) / 256, 256>>>(dS, dK, dT, dR, dV, dOut, N);
    cudaMemcpy(prices, dOut, b, cudaMemcpyDeviceToHost);
    cudaFree(dS); cudaFree(dK); cudaFree(dT); cudaFree(dR); cudaFree(dV); cudaFree(dOut);
}
