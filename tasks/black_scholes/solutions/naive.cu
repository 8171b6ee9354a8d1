// Black-Scholes call and put prices on the GPU: one thread per option.
#include <cuda_runtime.h>
#include <stdio.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e = (call);                                                       \
        if (e != cudaSuccess) {                                                       \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e),        \
                    __FILE__, __LINE__);                                              \
            goto cleanup;                                                             \
        }                                                                             \
    } while (0)

__device__ float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
    const float a4 = -1.821255978f, a5 = 1.330274429f;
    const float rsqrt2pi = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = rsqrt2pi * expf(-0.5f * d * d) *
              (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    if (d > 0.0f)
        return 1.0f - c;
    else
        return c;
}

__global__ void black_scholes(const float* S, const float* X, const float* T, int n, float r,
                              float v, float* call, float* put)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = S[i], x = X[i], t = T[i];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
        float d2 = d1 - v * sqrt_t;
        float c1 = cnd(d1);
        float c2 = cnd(d2);
        float disc = expf(-r * t);
        call[i] = s * c1 - x * disc * c2;
        put[i] = x * disc * (1.0f - c2) - s * (1.0f - c1);
    }
}

extern "C" void solution_compute(const float* S, const float* X, const float* T, int n, float r,
                                 float v, float* call, float* put)
{
    float *d_S = NULL, *d_X = NULL, *d_T = NULL, *d_call = NULL, *d_put = NULL;
    size_t size = (size_t)n * sizeof(float);
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    if (n <= 0) return;

    CHECK(cudaMalloc((void**)&d_S, size));
    CHECK(cudaMalloc((void**)&d_X, size));
    CHECK(cudaMalloc((void**)&d_T, size));
    CHECK(cudaMalloc((void**)&d_call, size));
    CHECK(cudaMalloc((void**)&d_put, size));

    CHECK(cudaMemcpy(d_S, S, size, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_X, X, size, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_T, T, size, cudaMemcpyHostToDevice));

    black_scholes<<<blocks, threads>>>(d_S, d_X, d_T, n, r, v, d_call, d_put);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(call, d_call, size, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(put, d_put, size, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_S);
    cudaFree(d_X);
    cudaFree(d_T);
    cudaFree(d_call);
    cudaFree(d_put);
}
