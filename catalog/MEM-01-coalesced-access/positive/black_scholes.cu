#include <cuda_runtime.h>
#include <math.h>

__device__ float norm_cdf(float x) { return 0.5f * erfcf(-x * 0.70710678f); }

// One option per thread: consecutive threads read consecutive elements of every array.
__global__ void price_kernel(int n, const float* spot, const float* strike, const float* rate,
                             const float* vol, const float* t, float* price) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = spot[i];   // expect: MEM-01
    float k = strike[i]; // expect: MEM-01
    float r = rate[i];   // expect: MEM-01
    float v = vol[i];    // expect: MEM-01
    float tt = t[i];     // expect: MEM-01
    float sq = v * sqrtf(tt);
    float d1 = (logf(s / k) + (r + 0.5f * v * v) * tt) / sq;
    float d2 = d1 - sq;
    price[i] = s * norm_cdf(d1) - k * expf(-r * tt) * norm_cdf(d2); // expect: MEM-01
}

extern "C" void solution_compute(int n, const float* spot, const float* strike, const float* rate,
                                 const float* vol, const float* t, float* price) {
    size_t bytes = (size_t)n * sizeof(float);
    float *ds, *dk, *dr, *dv, *dt, *dp;
    cudaMalloc(&ds, bytes); cudaMalloc(&dk, bytes); cudaMalloc(&dr, bytes);
    cudaMalloc(&dv, bytes); cudaMalloc(&dt, bytes); cudaMalloc(&dp, bytes);
    cudaMemcpy(ds, spot, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dk, strike, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dr, rate, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, vol, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dt, t, bytes, cudaMemcpyHostToDevice);
    int block = 256;
    price_kernel<<<(n + block - 1) / block, block>>>(n, ds, dk, dr, dv, dt, dp);
    cudaMemcpy(price, dp, bytes, cudaMemcpyDeviceToHost);
    cudaFree(ds); cudaFree(dk); cudaFree(dr); cudaFree(dv); cudaFree(dt); cudaFree(dp);
}
