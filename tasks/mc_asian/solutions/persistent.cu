// Monte Carlo Asian option prices in a single persistent launch.
//
// The grid is as large as the device keeps resident. Blocks walk a list of tiles (one tile =
// one option x 256 consecutive paths) with a stride of the grid size, reduce each tile's
// payoffs in shared memory and add the tile sum to the option's total with one atomic. When a
// block has no tiles left it takes a ticket; the block with the last ticket turns all totals
// into prices, so the whole computation is one kernel and one copy back.
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

constexpr int TILE = 256;  // paths per tile = threads per block

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

__global__ void __launch_bounds__(TILE)
asian_persistent(int n_opts, const float* __restrict__ S0, const float* __restrict__ K,
                 const float* __restrict__ sigma, float r, float T, int n_paths, int n_steps,
                 unsigned int seed, double* totals, unsigned int* done_blocks,
                 float* __restrict__ price)
{
    __shared__ double red[TILE];
    __shared__ bool last;
    const int tiles_per_opt = (n_paths + TILE - 1) / TILE;
    const long long n_tiles = (long long)tiles_per_opt * n_opts;
    const float dt = T / (float)n_steps;
    const float sqrt_dt = sqrtf(dt);

    for (long long tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {
        const int o = (int)(tile / tiles_per_opt);
        const int p = (int)(tile % tiles_per_opt) * TILE + threadIdx.x;
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
        for (int half = TILE / 2; half > 0; half >>= 1) {
            if (threadIdx.x < half) red[threadIdx.x] += red[threadIdx.x + half];
            __syncthreads();
        }
        if (threadIdx.x == 0) atomicAdd(&totals[o], red[0]);
        __syncthreads();
    }

    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(done_blocks, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        __threadfence();
        for (int o = threadIdx.x; o < n_opts; o += TILE) {
            const double total = __ldcg(&totals[o]);
            price[o] = expf(-r * T) * (float)(total / (double)n_paths);
        }
    }
}

extern "C" void solution_compute(int n_opts, const float* S0, const float* K, const float* sigma,
                                 float r, float T, int n_paths, int n_steps, unsigned int seed,
                                 float* price)
{
    float *d_S0 = nullptr, *d_K = nullptr, *d_sig = nullptr, *d_price = nullptr;
    double* d_totals = nullptr;
    unsigned int* d_done = nullptr;
    const size_t fb = (size_t)n_opts * sizeof(float);
    int dev = 0, sms = 0, per_sm = 0;
    long long tiles = 0, grid = 0;
    if (n_opts <= 0 || n_paths <= 0) return;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, asian_persistent, TILE, 0));
    tiles = (long long)((n_paths + TILE - 1) / TILE) * n_opts;
    grid = (long long)sms * (per_sm > 0 ? per_sm : 1);
    if (grid > tiles) grid = tiles;

    CK(cudaMalloc(&d_S0, fb));
    CK(cudaMalloc(&d_K, fb));
    CK(cudaMalloc(&d_sig, fb));
    CK(cudaMalloc(&d_price, fb));
    CK(cudaMalloc(&d_totals, (size_t)n_opts * sizeof(double)));
    CK(cudaMalloc(&d_done, sizeof(unsigned int)));
    CK(cudaMemcpy(d_S0, S0, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_K, K, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_sig, sigma, fb, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_totals, 0, (size_t)n_opts * sizeof(double)));
    CK(cudaMemset(d_done, 0, sizeof(unsigned int)));
    asian_persistent<<<(unsigned)grid, TILE>>>(n_opts, d_S0, d_K, d_sig, r, T, n_paths, n_steps,
                                               seed, d_totals, d_done, d_price);
    CK(cudaGetLastError());
    CK(cudaMemcpy(price, d_price, fb, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_S0);
    cudaFree(d_K);
    cudaFree(d_sig);
    cudaFree(d_price);
    cudaFree(d_totals);
    cudaFree(d_done);
}
