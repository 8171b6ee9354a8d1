#include <cuda_runtime.h>
#include <math.h>

__device__ float norm_cdf(float x) {
    return 0.5f * erfcf(-x * 0.70710678f);
}

__global__ void black_scholes_kernel(int n, const float* spot, const float* strike,
                                     const float* rate, const float* vol, const float* t,
                                     float* price) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {  // expect: PAR-01
        float s = spot[i], k = strike[i], r = rate[i], v = vol[i], tt = t[i];
        float sq = v * sqrtf(tt);
        float d1 = (logf(s / k) + (r + 0.5f * v * v) * tt) / sq;
        float d2 = d1 - sq;
        price[i] = s * norm_cdf(d1) - k * expf(-r * tt) * norm_cdf(d2);
    }
}

extern "C" void solution_compute(int n, const float* spot, const float* strike, const float* rate,
                                 const float* vol, const float* t, float* price) {
    float *d_in, *d_out;
    size_t bytes = (size_t)n * sizeof(float);
    cudaMalloc(&d_in, 5 * bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, spot, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_in + n, strike, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_in + 2 * n, rate, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_in + 3 * n, vol, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_in + 4 * n, t, bytes, cudaMemcpyHostToDevice);
    black_scholes_kernel<<<1024, 256>>>(n, d_in, d_in + n, d_in + 2 * n, d_in + 3 * n,
                                         d_in + 4 * n, d_out);
    cudaMemcpy(price, d_out, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
}
