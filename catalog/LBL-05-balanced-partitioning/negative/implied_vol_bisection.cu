#include <cuda_runtime.h>
#include <math.h>

__device__ float bs_call(float s, float k, float r, float t, float v) {
    float sq = v * sqrtf(t);
    float d1 = (logf(s / k) + (r + 0.5f * v * v) * t) / sq;
    return s * normcdff(d1) - k * expf(-r * t) * normcdff(d1 - sq);
}

// Implied volatility by bisection, one option per thread: halving an interval
// around a root, not partitioning work.
__global__ void implied_vol(const float* s, const float* k, const float* price, float r, float t,
                            float* vol, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float lo = 1e-4f, hi = 5.0f;
    for (int it = 0; it < 60 && hi - lo > 1e-6f; ++it) {  // ok: LBL-05
        float mid = 0.5f * (lo + hi);
        if (bs_call(s[i], k[i], r, t, mid) > price[i]) hi = mid;
        else lo = mid;
    }
    vol[i] = 0.5f * (lo + hi);
}

extern "C" void solution_compute(int n, const float* s, const float* k, const float* price, float r,
                                 float t, float* vol) {
    float *ds, *dk, *dp, *dv;
    cudaMalloc(&ds, n * sizeof(float));
    cudaMalloc(&dk, n * sizeof(float));
    cudaMalloc(&dp, n * sizeof(float));
    cudaMalloc(&dv, n * sizeof(float));
    cudaMemcpy(ds, s, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dk, k, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dp, price, n * sizeof(float), cudaMemcpyHostToDevice);
    implied_vol<<<(n + 255) / 256, 256>>>(ds, dk, dp, r, t, dv, n);
    cudaMemcpy(vol, dv, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(ds);
    cudaFree(dk);
    cudaFree(dp);
    cudaFree(dv);
}
