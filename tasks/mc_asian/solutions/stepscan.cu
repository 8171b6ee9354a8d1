// Monte Carlo Asian option prices with the time steps of a path spread over a warp.
//
// A path's price after t steps is S0 * exp(x_t), where x_t is the running sum of the log
// increments drift + vol * z. The increments are independent draws of the counter RNG, so a
// warp takes one path: in each round lane l draws step t0 + l, a warp inclusive scan (shuffles)
// gives the running sums, each lane forms its price with one exp, and the lane sums of prices
// are reduced at the end. This gives 32 times more threads than one path per thread, which
// fills the device at sizes with few paths. The prices differ from the step-by-step product
// only by float rounding (a few ulps), far inside the tolerance.
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
constexpr int PATHS_PER_BLOCK = THREADS / 32;
constexpr unsigned FULL = 0xffffffffu;

__device__ __forceinline__ float normal_draw(unsigned int seed, uint64_t counter)
{
    uint64_t x = ((uint64_t)seed << 40) ^ counter;
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    const float u1 = (float)((x >> 40) + 1) * (1.0f / 16777216.0f);
    const float u2 = (float)((x >> 16) & 0xFFFFFFULL) * (1.0f / 16777216.0f);
    return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

__global__ void __launch_bounds__(THREADS)
warp_path_kernel(const float* __restrict__ S0, const float* __restrict__ K,
                 const float* __restrict__ sigma, float r, float T, int n_paths, int n_steps,
                 unsigned int seed, double* __restrict__ totals)
{
    __shared__ double pay[PATHS_PER_BLOCK];
    const int o = blockIdx.y;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int p = blockIdx.x * PATHS_PER_BLOCK + warp;

    double payoff = 0.0;
    if (p < n_paths) {  // warp-uniform
        const float sig = sigma[o], s0 = S0[o];
        const float dt = T / (float)n_steps;
        const float drift = (r - 0.5f * sig * sig) * dt;
        const float vol = sig * sqrtf(dt);
        const uint64_t base = ((uint64_t)o * n_paths + (uint64_t)p) * (uint64_t)n_steps;
        float carry = 0.0f;   // log-price offset after the previous rounds
        float lane_sum = 0.0f;
        for (int t0 = 0; t0 < n_steps; t0 += 32) {
            const int t = t0 + lane;
            float x = t < n_steps ? drift + vol * normal_draw(seed, base + (uint64_t)t) : 0.0f;
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const float y = __shfl_up_sync(FULL, x, d);
                if (lane >= d) x += y;
            }
            if (t < n_steps) lane_sum += s0 * expf(carry + x);
            carry += __shfl_sync(FULL, x, 31);
        }
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) lane_sum += __shfl_xor_sync(FULL, lane_sum, d);
        const float avg_minus_k = lane_sum / (float)n_steps - K[o];
        payoff = avg_minus_k > 0.0f ? avg_minus_k : 0.0f;
    }
    if (lane == 0) pay[warp] = payoff;
    __syncthreads();
    if (threadIdx.x == 0) {
        double block_total = 0.0;
        for (int w = 0; w < PATHS_PER_BLOCK; w++) block_total += pay[w];
        atomicAdd(&totals[o], block_total);
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
    CK(cudaMalloc(&d_S0, fb));
    CK(cudaMalloc(&d_K, fb));
    CK(cudaMalloc(&d_sig, fb));
    CK(cudaMalloc(&d_price, fb));
    CK(cudaMalloc(&d_totals, (size_t)n_opts * sizeof(double)));
    CK(cudaMemcpy(d_S0, S0, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_K, K, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_sig, sigma, fb, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_totals, 0, (size_t)n_opts * sizeof(double)));
    warp_path_kernel<<<dim3((n_paths + PATHS_PER_BLOCK - 1) / PATHS_PER_BLOCK, n_opts), THREADS>>>(
        d_S0, d_K, d_sig, r, T, n_paths, n_steps, seed, d_totals);
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
