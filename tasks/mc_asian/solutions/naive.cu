// Monte Carlo Asian option prices on the GPU.
// Kernel 1: one thread per (option, path) simulates the path and stores its payoff.
// Kernel 2: one thread per option adds up that option's payoffs and writes the price.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e = (call);                                                        \
        if (e != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e),         \
                    __FILE__, __LINE__);                                               \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

__device__ uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

__device__ float normal_draw(unsigned int seed, uint64_t counter)
{
    uint64_t x = splitmix64(((uint64_t)seed << 40) ^ counter);
    float u1 = (float)((x >> 40) + 1) * (1.0f / 16777216.0f);
    float u2 = (float)((x >> 16) & 0xFFFFFFULL) * (1.0f / 16777216.0f);
    return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

__global__ void path_kernel(int n_opts, const float* S0, const float* K, const float* sigma,
                            float r, float T, int n_paths, int n_steps, unsigned int seed,
                            float* payoffs)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)n_opts * n_paths;
    if (idx >= total) return;
    int o = (int)(idx / n_paths);
    int p = (int)(idx % n_paths);

    float dt = T / (float)n_steps;
    float sig = sigma[o];
    float drift = (r - 0.5f * sig * sig) * dt;
    float vol = sig * sqrtf(dt);
    uint64_t base = ((uint64_t)o * (uint64_t)n_paths + (uint64_t)p) * (uint64_t)n_steps;

    float s = S0[o];
    float sum = 0.0f;
    for (int t = 0; t < n_steps; t++) {
        float z = normal_draw(seed, base + (uint64_t)t);
        s = s * expf(drift + vol * z);
        sum += s;
    }
    float payoff = sum / (float)n_steps - K[o];
    if (payoff < 0.0f) payoff = 0.0f;
    payoffs[idx] = payoff;
}

__global__ void mean_kernel(int n_opts, int n_paths, const float* payoffs, float r, float T,
                            float* price)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= n_opts) return;
    double total = 0.0;
    for (int p = 0; p < n_paths; p++) total += payoffs[(size_t)o * n_paths + p];
    price[o] = expf(-r * T) * (float)(total / (double)n_paths);
}

extern "C" void solution_compute(int n_opts, const float* S0, const float* K, const float* sigma,
                                 float r, float T, int n_paths, int n_steps, unsigned int seed,
                                 float* price)
{
    float* d_S0 = NULL;
    float* d_K = NULL;
    float* d_sigma = NULL;
    float* d_payoffs = NULL;
    float* d_price = NULL;
    size_t opt_bytes = (size_t)n_opts * sizeof(float);
    long long total = (long long)n_opts * n_paths;
    int threads = 256;
    long long blocks;

    if (n_opts <= 0) return;
    if (n_paths <= 0) {
        for (int o = 0; o < n_opts; o++) price[o] = NAN;  // mean over no paths, as in the C code
        return;
    }

    CHECK(cudaMalloc((void**)&d_S0, opt_bytes));
    CHECK(cudaMalloc((void**)&d_K, opt_bytes));
    CHECK(cudaMalloc((void**)&d_sigma, opt_bytes));
    CHECK(cudaMalloc((void**)&d_payoffs, (size_t)total * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_price, opt_bytes));

    CHECK(cudaMemcpy(d_S0, S0, opt_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_K, K, opt_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_sigma, sigma, opt_bytes, cudaMemcpyHostToDevice));

    blocks = (total + threads - 1) / threads;
    path_kernel<<<(unsigned)blocks, threads>>>(n_opts, d_S0, d_K, d_sigma, r, T, n_paths, n_steps,
                                               seed, d_payoffs);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    mean_kernel<<<(n_opts + threads - 1) / threads, threads>>>(n_opts, n_paths, d_payoffs, r, T,
                                                               d_price);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(price, d_price, opt_bytes, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_S0);
    cudaFree(d_K);
    cudaFree(d_sigma);
    cudaFree(d_payoffs);
    cudaFree(d_price);
}
