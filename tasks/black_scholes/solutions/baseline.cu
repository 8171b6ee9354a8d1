// Baseline CUDA port of black_scholes: one thread per option, grid-stride loop.
#include <cuda_runtime.h>
#include <cstdio>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

__device__ float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
    const float a4 = -1.821255978f, a5 = 1.330274429f;
    const float rsqrt2pi = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = rsqrt2pi * expf(-0.5f * d * d) *
              (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - c : c;
}

__global__ void bs_kernel(const float* S, const float* X, const float* T, int n, float r,
                          float v, float* call, float* put)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float s = S[i], x = X[i], t = T[i];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
        float d2 = d1 - v * sqrt_t;
        float c1 = cnd(d1), c2 = cnd(d2);
        float disc = expf(-r * t);
        call[i] = s * c1 - x * disc * c2;
        put[i] = x * disc * (1.0f - c2) - s * (1.0f - c1);
    }
}

extern "C" void solution_compute(const float* S, const float* X, const float* T, int n, float r,
                                 float v, float* call, float* put)
{
    float *dS = nullptr, *dX = nullptr, *dT = nullptr, *dC = nullptr, *dP = nullptr;
    size_t bytes = (size_t)n * sizeof(float);
    int threads = 256;
    int blocks = (int)((n + threads - 1) / threads);
    if (n <= 0) return;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    CK(cudaMalloc(&dS, bytes));
    CK(cudaMalloc(&dX, bytes));
    CK(cudaMalloc(&dT, bytes));
    CK(cudaMalloc(&dC, bytes));
    CK(cudaMalloc(&dP, bytes));
    CK(cudaMemcpy(dS, S, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dX, X, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dT, T, bytes, cudaMemcpyHostToDevice));
    bs_kernel<<<blocks, threads>>>(dS, dX, dT, n, r, v, dC, dP);
    CK(cudaGetLastError());
    CK(cudaMemcpy(call, dC, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(put, dP, bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(dS);
    cudaFree(dX);
    cudaFree(dT);
    cudaFree(dC);
    cudaFree(dP);
}
