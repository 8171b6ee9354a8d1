// Black-Scholes in one persistent launch: exactly as many blocks as the device keeps resident,
// each block pulling tiles of options from an atomic counter until none are left. One device
// allocation holds the inputs, the outputs and the counter.
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

constexpr int THREADS = 256;
constexpr int TILE = THREADS * 8;   // options per grab

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
bs_persistent(int n, const float* __restrict__ S, const float* __restrict__ X,
              const float* __restrict__ T, float r, float v, float* __restrict__ call,
              float* __restrict__ put, unsigned int* next_tile)
{
    __shared__ unsigned int tile;
    const unsigned int ntiles = (unsigned int)((n + TILE - 1) / TILE);
    for (;;) {
        if (threadIdx.x == 0) tile = atomicAdd(next_tile, 1u);
        __syncthreads();
        const unsigned int t_id = tile;
        __syncthreads();   // everyone has read `tile` before thread 0 overwrites it
        if (t_id >= ntiles) break;
        const size_t base = (size_t)t_id * TILE;
#pragma unroll 4
        for (int e = threadIdx.x; e < TILE; e += THREADS) {
            const size_t i = base + e;
            if (i >= (size_t)n) break;
            const float s = S[i], x = X[i], t = T[i];
            const float sqrt_t = sqrtf(t);
            const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
            const float d2 = d1 - v * sqrt_t;
            const float c1 = cnd(d1), c2 = cnd(d2);
            const float disc = expf(-r * t);
            call[i] = s * c1 - x * disc * c2;
            put[i] = x * disc * (1.0f - c2) - s * (1.0f - c1);
        }
    }
}

extern "C" void solution_compute(const float* S, const float* X, const float* T, int n, float r,
                                 float v, float* call, float* put)
{
    if (n <= 0) return;
    const size_t count = (size_t)n, bytes = count * sizeof(float);
    char* d_mem = nullptr;
    float *d_S, *d_X, *d_T, *d_call, *d_put;
    unsigned int* d_next;
    int dev = 0, sms = 1, per_sm = 1, blocks = 1;
    const long long ntiles = (n + (long long)TILE - 1) / TILE;

    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bs_persistent, THREADS, 0));
    blocks = sms * (per_sm > 0 ? per_sm : 1);
    if (blocks > ntiles) blocks = (int)ntiles;

    CK(cudaMalloc(&d_mem, 5 * bytes + 256));
    d_S = (float*)d_mem;
    d_X = d_S + count;
    d_T = d_X + count;
    d_call = d_T + count;
    d_put = d_call + count;
    d_next = (unsigned int*)(d_mem + 5 * bytes);
    CK(cudaMemsetAsync(d_next, 0, sizeof(unsigned int)));
    CK(cudaMemcpy(d_S, S, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_X, X, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_T, T, bytes, cudaMemcpyHostToDevice));
    bs_persistent<<<blocks, THREADS>>>(n, d_S, d_X, d_T, r, v, d_call, d_put, d_next);
    CK(cudaGetLastError());
    CK(cudaMemcpy(call, d_call, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(put, d_put, bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_mem);
}
