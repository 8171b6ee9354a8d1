// Black-Scholes call and put prices. One device allocation holds the five arrays; the
// per-call invariants (r + v^2/2) are computed once on the host; the kernel reads through
// const __restrict__ pointers with a grid-stride loop sized to the device.
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_TRY(call)                                                                 \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "black_scholes: %s failed at %s:%d: %s\n", #call, __FILE__, \
                    __LINE__, cudaGetErrorString(err_));                               \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

constexpr int THREADS = 256;

__device__ __forceinline__ float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
    const float a4 = -1.821255978f, a5 = 1.330274429f;
    const float rsqrt2pi = 0.39894228040143267794f;
    const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    const float c = rsqrt2pi * expf(-0.5f * d * d) *
                    (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - c : c;
}

__global__ void __launch_bounds__(THREADS)
price_options(size_t n, const float* __restrict__ S, const float* __restrict__ X,
              const float* __restrict__ T, float r, float v, float drift,
              float* __restrict__ call, float* __restrict__ put)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        const float s = S[i], x = X[i], t = T[i];
        const float sqrt_t = sqrtf(t);
        const float d1 = (logf(s / x) + drift * t) / (v * sqrt_t);
        const float d2 = d1 - v * sqrt_t;
        const float c1 = cnd(d1), c2 = cnd(d2);
        const float xdisc = x * expf(-r * t);
        call[i] = s * c1 - xdisc * c2;
        put[i] = xdisc * (1.0f - c2) - s * (1.0f - c1);
    }
}

extern "C" void solution_compute(const float* S, const float* X, const float* T, int n, float r,
                                 float v, float* call, float* put)
{
    if (n <= 0) return;
    const size_t count = (size_t)n;
    const size_t bytes = count * sizeof(float);
    const float drift = r + 0.5f * v * v;
    float* d_all = nullptr;
    float *d_S, *d_X, *d_T, *d_call, *d_put;
    int dev = 0, sms = 1, per_sm = 1, blocks = 1;

    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, price_options, THREADS, 0));
    blocks = sms * (per_sm > 0 ? per_sm : 1);
    if ((size_t)blocks * THREADS > count) blocks = (int)((count + THREADS - 1) / THREADS);

    CUDA_TRY(cudaMalloc(&d_all, 5 * bytes));
    d_S = d_all;
    d_X = d_S + count;
    d_T = d_X + count;
    d_call = d_T + count;
    d_put = d_call + count;
    CUDA_TRY(cudaMemcpy(d_S, S, bytes, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_X, X, bytes, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_T, T, bytes, cudaMemcpyHostToDevice));
    price_options<<<blocks, THREADS>>>(count, d_S, d_X, d_T, r, v, drift, d_call, d_put);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpy(call, d_call, bytes, cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(put, d_put, bytes, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_all);
}
