// Baseline CUDA port of mc_asian: one thread per (option, path) with the task's counter RNG,
// a block reduction of payoffs in double and one atomicAdd per block; prices on the host.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cmath>

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

__global__ void paths_kernel(const float* __restrict__ S0, const float* __restrict__ K,
                             const float* __restrict__ sigma, float r, float T, int n_paths,
                             int n_steps, unsigned int seed, double* totals)
{
    __shared__ double part[THREADS];
    int o = blockIdx.y;
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    double payoff = 0.0;
    if (p < n_paths) {
        float dt = T / (float)n_steps;
        float sig = sigma[o];
        float drift = (r - 0.5f * sig * sig) * dt;
        float vol = sig * sqrtf(dt);
        uint64_t base = ((uint64_t)o * (uint64_t)n_paths + (uint64_t)p) * (uint64_t)n_steps;
        float s = S0[o], sum = 0.0f;
        for (int t = 0; t < n_steps; t++) {
            float z = normal_draw(seed, base + (uint64_t)t);
            s = s * expf(drift + vol * z);
            sum += s;
        }
        float pay = sum / (float)n_steps - K[o];
        payoff = pay > 0.0f ? pay : 0.0f;
    }
    part[threadIdx.x] = payoff;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(&totals[o], part[0]);
}

extern "C" void solution_compute(int n_opts, const float* S0, const float* K, const float* sigma,
                                 float r, float T, int n_paths, int n_steps, unsigned int seed,
                                 float* price)
{
    float *d_S0 = nullptr, *d_K = nullptr, *d_sig = nullptr;
    double* d_tot = nullptr;
    double* totals = nullptr;
    size_t fb = (size_t)n_opts * sizeof(float);
    dim3 grid((n_paths + THREADS - 1) / THREADS, n_opts);
    if (n_opts <= 0 || n_paths <= 0) return;
    totals = new double[n_opts];
    CK(cudaMalloc(&d_S0, fb));
    CK(cudaMalloc(&d_K, fb));
    CK(cudaMalloc(&d_sig, fb));
    CK(cudaMalloc(&d_tot, (size_t)n_opts * sizeof(double)));
    CK(cudaMemcpy(d_S0, S0, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_K, K, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_sig, sigma, fb, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_tot, 0, (size_t)n_opts * sizeof(double)));
    paths_kernel<<<grid, THREADS>>>(d_S0, d_K, d_sig, r, T, n_paths, n_steps, seed, d_tot);
    CK(cudaGetLastError());
    CK(cudaMemcpy(totals, d_tot, (size_t)n_opts * sizeof(double), cudaMemcpyDeviceToHost));
    for (int o = 0; o < n_opts; o++)
        price[o] = expf(-r * T) * (float)(totals[o] / (double)n_paths);
done:
    delete[] totals;
    cudaFree(d_S0);
    cudaFree(d_K);
    cudaFree(d_sig);
    cudaFree(d_tot);
}
