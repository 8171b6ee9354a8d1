// Monte Carlo Asian option prices: a 2-D grid (path blocks x options), one path per thread.
// Each block reduces its payoffs in double with a shared-memory tree and writes one partial
// sum per block (no atomics, so the result does not depend on block order); a second kernel,
// one block per option, reduces the partials the same way and writes the discounted price.
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

// In-place tree reduction of red[0..THREADS) in shared memory; the sum ends in red[0].
__device__ __forceinline__ void block_sum(double* red)
{
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) red[threadIdx.x] += red[threadIdx.x + half];
        __syncthreads();
    }
}

__global__ void __launch_bounds__(THREADS)
paths_kernel(int n_opts, const float* __restrict__ S0, const float* __restrict__ K,
             const float* __restrict__ sigma, float r, float T, int n_paths, int n_steps,
             unsigned int seed, double* __restrict__ partial)
{
    __shared__ double red[THREADS];
    const float dt = T / (float)n_steps;
    const float sqrt_dt = sqrtf(dt);
    const int p = blockIdx.x * THREADS + threadIdx.x;
    for (int o = blockIdx.y; o < n_opts; o += gridDim.y) {
        double payoff = 0.0;
        if (p < n_paths) {
            const float sig = sigma[o];
            const float drift = (r - 0.5f * sig * sig) * dt;
            const float vol = sig * sqrt_dt;
            const uint64_t base = ((uint64_t)o * n_paths + (uint64_t)p) * (uint64_t)n_steps;
            float s = S0[o], sum = 0.0f;
            for (int t = 0; t < n_steps; t++) {
                s = s * expf(drift + vol * normal_draw(seed, base + (uint64_t)t));
                sum += s;
            }
            const float pay = sum / (float)n_steps - K[o];
            payoff = pay > 0.0f ? pay : 0.0f;
        }
        red[threadIdx.x] = payoff;
        __syncthreads();
        block_sum(red);
        if (threadIdx.x == 0) partial[(size_t)o * gridDim.x + blockIdx.x] = red[0];
        __syncthreads();  // red[0] is read before the next option overwrites red
    }
}

__global__ void __launch_bounds__(THREADS)
price_kernel(int n_parts, const double* __restrict__ partial, float r, float T, int n_paths,
             float* __restrict__ price)
{
    __shared__ double red[THREADS];
    const int o = blockIdx.x;
    double acc = 0.0;
    for (int i = threadIdx.x; i < n_parts; i += THREADS) acc += partial[(size_t)o * n_parts + i];
    red[threadIdx.x] = acc;
    __syncthreads();
    block_sum(red);
    if (threadIdx.x == 0) price[o] = expf(-r * T) * (float)(red[0] / (double)n_paths);
}

extern "C" void solution_compute(int n_opts, const float* S0, const float* K, const float* sigma,
                                 float r, float T, int n_paths, int n_steps, unsigned int seed,
                                 float* price)
{
    float *d_S0 = nullptr, *d_K = nullptr, *d_sig = nullptr, *d_price = nullptr;
    double* d_partial = nullptr;
    const size_t fb = (size_t)n_opts * sizeof(float);
    const int n_parts = (n_paths + THREADS - 1) / THREADS;
    const dim3 grid(n_parts, n_opts < 65535 ? n_opts : 65535);
    if (n_opts <= 0 || n_paths <= 0) return;
    CK(cudaMalloc(&d_S0, fb));
    CK(cudaMalloc(&d_K, fb));
    CK(cudaMalloc(&d_sig, fb));
    CK(cudaMalloc(&d_price, fb));
    CK(cudaMalloc(&d_partial, (size_t)n_opts * n_parts * sizeof(double)));
    CK(cudaMemcpy(d_S0, S0, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_K, K, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_sig, sigma, fb, cudaMemcpyHostToDevice));
    paths_kernel<<<grid, THREADS>>>(n_opts, d_S0, d_K, d_sig, r, T, n_paths, n_steps, seed,
                                    d_partial);
    CK(cudaGetLastError());
    price_kernel<<<n_opts, THREADS>>>(n_parts, d_partial, r, T, n_paths, d_price);
    CK(cudaGetLastError());
    CK(cudaMemcpy(price, d_price, fb, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_S0);
    cudaFree(d_K);
    cudaFree(d_sig);
    cudaFree(d_price);
    cudaFree(d_partial);
}
