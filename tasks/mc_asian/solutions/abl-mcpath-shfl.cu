// Monte Carlo Asian option prices: a 2-D grid (path blocks x options) in which each thread
// simulates PPT paths side by side, a block reduction of the payoffs in double, one atomicAdd
// per block into the option's total, and a small kernel for the discounted prices.
#include <cuda_runtime.h>
#include <cstdint>
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
constexpr int PPT = 1;  // paths per thread

__device__ __forceinline__ uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

__device__ __forceinline__ float normal_draw(unsigned int seed, uint64_t counter)
{
    const uint64_t x = splitmix64(((uint64_t)seed << 40) ^ counter);
    const float u1 = (float)((x >> 40) + 1) * (1.0f / 16777216.0f);
    const float u2 = (float)((x >> 16) & 0xFFFFFFULL) * (1.0f / 16777216.0f);
    return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

__device__ __forceinline__ float step_growth(float drift, float vol, float z)
{
    return expf(drift + vol * z);
}

__global__ void __launch_bounds__(THREADS)
paths_kernel(const float* __restrict__ S0, const float* __restrict__ K,
             const float* __restrict__ sigma, float r, float T, int n_paths, int n_steps,
             unsigned int seed, double* __restrict__ totals)
{
    __shared__ double red[THREADS / 32];
    const int o = blockIdx.y;
    const float s0 = S0[o], k = K[o], sig = sigma[o];
    const float dt = T / (float)n_steps;
    const float drift = (r - 0.5f * sig * sig) * dt;
    const float vol = sig * sqrtf(dt);
    const int first = blockIdx.x * (THREADS * PPT) + threadIdx.x;  // path of slot 0

    float s[PPT], sum[PPT];
    uint64_t base[PPT];
#pragma unroll
    for (int j = 0; j < PPT; j++) {
        s[j] = s0;
        sum[j] = 0.0f;
        base[j] = ((uint64_t)o * (uint64_t)n_paths + (uint64_t)(first + j * THREADS)) *
                  (uint64_t)n_steps;
    }
    for (int t = 0; t < n_steps; t++) {
#pragma unroll
        for (int j = 0; j < PPT; j++) {
            const float z = normal_draw(seed, base[j] + (uint64_t)t);
            s[j] = s[j] * step_growth(drift, vol, z);
            sum[j] += s[j];
        }
    }
    double payoff = 0.0;
#pragma unroll
    for (int j = 0; j < PPT; j++) {
        if (first + j * THREADS < n_paths) {
            const float pay = sum[j] / (float)n_steps - k;
            payoff += pay > 0.0f ? pay : 0.0f;
        }
    }

    for (int off = 16; off > 0; off >>= 1) payoff += __shfl_down_sync(0xffffffffu, payoff, off);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = payoff;
    __syncthreads();
    if (threadIdx.x < 32) {
        double v = threadIdx.x < THREADS / 32 ? red[threadIdx.x] : 0.0;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0) atomicAdd(&totals[o], v);
    }
}

__global__ void price_kernel(int n_opts, const double* __restrict__ totals, float r, float T,
                             int n_paths, float* __restrict__ price)
{
    const int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o < n_opts) price[o] = expf(-r * T) * (float)(totals[o] / (double)n_paths);
}

extern "C" void solution_compute(int n_opts, const float* S0, const float* K, const float* sigma,
                                 float r, float T, int n_paths, int n_steps, unsigned int seed,
                                 float* price)
{
    float *d_S0 = nullptr, *d_K = nullptr, *d_sig = nullptr, *d_price = nullptr;
    double* d_totals = nullptr;
    const size_t fb = (size_t)n_opts * sizeof(float);
    if (n_opts <= 0 || n_paths <= 0 || n_opts > 65535) return;
    const dim3 grid((n_paths + THREADS * PPT - 1) / (THREADS * PPT), n_opts);
    CK(cudaMalloc(&d_S0, fb));
    CK(cudaMalloc(&d_K, fb));
    CK(cudaMalloc(&d_sig, fb));
    CK(cudaMalloc(&d_price, fb));
    CK(cudaMalloc(&d_totals, (size_t)n_opts * sizeof(double)));
    CK(cudaMemcpy(d_S0, S0, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_K, K, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_sig, sigma, fb, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_totals, 0, (size_t)n_opts * sizeof(double)));
    paths_kernel<<<grid, THREADS>>>(d_S0, d_K, d_sig, r, T, n_paths, n_steps, seed, d_totals);
    CK(cudaGetLastError());
    price_kernel<<<(n_opts + 127) / 128, 128>>>(n_opts, d_totals, r, T, n_paths, d_price);
    CK(cudaGetLastError());
    CK(cudaMemcpy(price, d_price, fb, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_S0);
    cudaFree(d_K);
    cudaFree(d_sig);
    cudaFree(d_price);
    cudaFree(d_totals);
}
