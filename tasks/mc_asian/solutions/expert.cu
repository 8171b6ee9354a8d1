// Monte Carlo Asian option prices in one kernel launch.
//
// The work is pure arithmetic (about 100 instructions per step, nothing to read), so the
// design is about issue efficiency and overheads: one path per thread on a 2-D grid (paths x
// options) that gives every SM several full waves; the step loop unrolled so that the RNG of
// later steps overlaps the exp/multiply chain of earlier ones; the uniform draws converted
// from 32-bit integers (exact, the values have 24 bits) and the cosine as cospi, which needs no
// range reduction; payoffs summed in double with warp shuffles, one double atomicAdd per
// block, and the last block of each option (ticket counter) writing the discounted price, so
// there is no second kernel. The option parameters travel in one copy.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <vector>

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
constexpr int WARPS = THREADS / 32;

__device__ __forceinline__ float normal_draw(unsigned int seed, uint64_t counter)
{
    uint64_t x = ((uint64_t)seed << 40) ^ counter;
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    const unsigned hi = (unsigned)(x >> 32);
    const unsigned lo = (unsigned)x;
    const float u1 = __uint2float_rn((hi >> 8) + 1u) * (1.0f / 16777216.0f);
    const float u2 = __uint2float_rn(((hi << 16) | (lo >> 16)) & 0xFFFFFFu) * (1.0f / 16777216.0f);
    // cos(2 pi u2) = cospi(2 u2); 2 u2 is exact in float
    return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

__global__ void __launch_bounds__(THREADS)
asian_kernel(int n_opts, const float* __restrict__ params, float r, float T, int n_paths,
             int n_steps, unsigned int seed, double* __restrict__ totals,
             unsigned int* __restrict__ tickets, float* __restrict__ price)
{
    __shared__ double warp_sum[WARPS];
    __shared__ bool last;
    const int o = blockIdx.y;
    const int p = blockIdx.x * THREADS + threadIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    double payoff = 0.0;
    if (p < n_paths) {
        const float s0 = params[o], k = params[n_opts + o], sig = params[2 * n_opts + o];
        const float dt = T / (float)n_steps;
        const float drift = (r - 0.5f * sig * sig) * dt;
        const float vol = sig * sqrtf(dt);
        const uint64_t base = ((uint64_t)o * (uint64_t)n_paths + (uint64_t)p) * (uint64_t)n_steps;
        float s = s0, sum = 0.0f;
#pragma unroll 4
        for (int t = 0; t < n_steps; t++) {
            const float z = normal_draw(seed, base + (uint64_t)t);
            s = s * expf(fmaf(vol, z, drift));
            sum += s;
        }
        payoff = (double)fmaxf(sum / (float)n_steps - k, 0.0f);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) payoff += __shfl_down_sync(0xffffffffu, payoff, off);
    if (lane == 0) warp_sum[warp] = payoff;
    __syncthreads();
    if (warp == 0) {
        double v = lane < WARPS ? warp_sum[lane] : 0.0;
#pragma unroll
        for (int off = WARPS / 2; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0) {
            atomicAdd(&totals[o], v);
            __threadfence();
            last = atomicAdd(&tickets[o], 1u) == gridDim.x - 1;
        }
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        const double total = atomicAdd(&totals[o], 0.0);  // read at L2, after every block's add
        price[o] = expf(-r * T) * (float)(total / (double)n_paths);
    }
}

extern "C" void solution_compute(int n_opts, const float* S0, const float* K, const float* sigma,
                                 float r, float T, int n_paths, int n_steps, unsigned int seed,
                                 float* price)
{
    // One allocation: params [S0 | K | sigma], totals, tickets, prices.
    char* d_buf = nullptr;
    std::vector<float> params;
    size_t param_bytes = 0, total_off = 0, ticket_off = 0, price_off = 0, bytes = 0;
    dim3 grid;
    if (n_opts <= 0 || n_paths <= 0 || n_opts > 65535) return;
    params.resize((size_t)3 * n_opts);
    std::copy(S0, S0 + n_opts, params.begin());
    std::copy(K, K + n_opts, params.begin() + n_opts);
    std::copy(sigma, sigma + n_opts, params.begin() + 2 * (size_t)n_opts);
    param_bytes = params.size() * sizeof(float);
    total_off = (param_bytes + 15) & ~(size_t)15;
    ticket_off = total_off + (size_t)n_opts * sizeof(double);
    price_off = ticket_off + (size_t)n_opts * sizeof(unsigned int);
    bytes = price_off + (size_t)n_opts * sizeof(float);

    CK(cudaMalloc(&d_buf, bytes));
    CK(cudaMemcpyAsync(d_buf, params.data(), param_bytes, cudaMemcpyHostToDevice, 0));
    CK(cudaMemsetAsync(d_buf + total_off, 0, price_off - total_off, 0));
    grid = dim3((n_paths + THREADS - 1) / THREADS, n_opts);
    asian_kernel<<<grid, THREADS>>>(n_opts, reinterpret_cast<const float*>(d_buf), r, T, n_paths,
                                    n_steps, seed, reinterpret_cast<double*>(d_buf + total_off),
                                    reinterpret_cast<unsigned int*>(d_buf + ticket_off),
                                    reinterpret_cast<float*>(d_buf + price_off));
    CK(cudaGetLastError());
    CK(cudaMemcpy(price, d_buf + price_off, (size_t)n_opts * sizeof(float),
                  cudaMemcpyDeviceToHost));
done:
    cudaFree(d_buf);
}
