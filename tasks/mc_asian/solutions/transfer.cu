// Monte Carlo Asian option prices with asynchronous, pinned transfers.
//
// Option parameters are packed per option (S0, K, sigma side by side) into pinned memory so a
// group of options goes up in one copy. The options are split into groups, one stream each:
// every stream copies its group's parameters, clears its sums, runs the path kernel and the
// price kernel, and copies its prices back into pinned memory, so one group's copies overlap
// another group's kernels. Device memory comes from the stream-ordered allocator.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>

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
constexpr int NSTREAMS = 4;

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

// params: 3 floats per option of the group; first_opt: global index of the group's option 0.
__global__ void paths_kernel(const float* __restrict__ params, int first_opt, float r, float T,
                             int n_paths, int n_steps, unsigned int seed, double* totals)
{
    __shared__ double part[THREADS];
    const int g = blockIdx.y;  // option within the group
    const int p = blockIdx.x * THREADS + threadIdx.x;
    double payoff = 0.0;
    if (p < n_paths) {
        const float s0 = params[3 * g], k = params[3 * g + 1], sig = params[3 * g + 2];
        const float dt = T / (float)n_steps;
        const float drift = (r - 0.5f * sig * sig) * dt;
        const float vol = sig * sqrtf(dt);
        const uint64_t o = (uint64_t)(first_opt + g);
        const uint64_t base = (o * (uint64_t)n_paths + (uint64_t)p) * (uint64_t)n_steps;
        float s = s0, sum = 0.0f;
        for (int t = 0; t < n_steps; t++) {
            s = s * expf(drift + vol * normal_draw(seed, base + (uint64_t)t));
            sum += s;
        }
        const float pay = sum / (float)n_steps - k;
        payoff = pay > 0.0f ? pay : 0.0f;
    }
    part[threadIdx.x] = payoff;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(&totals[g], part[0]);
}

__global__ void price_kernel(int count, const double* totals, float r, float T, int n_paths,
                             float* prices)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < count) prices[g] = expf(-r * T) * (float)(totals[g] / (double)n_paths);
}

extern "C" void solution_compute(int n_opts, const float* S0, const float* K, const float* sigma,
                                 float r, float T, int n_paths, int n_steps, unsigned int seed,
                                 float* price)
{
    cudaStream_t streams[NSTREAMS] = {};
    float* h_params = nullptr;
    float* h_price = nullptr;
    float* d_params = nullptr;
    float* d_price = nullptr;
    double* d_totals = nullptr;
    int group = 0;
    if (n_opts <= 0 || n_paths <= 0) return;
    group = (n_opts + NSTREAMS - 1) / NSTREAMS;
    if (group > 65535) group = 65535;

    for (int s = 0; s < NSTREAMS; s++)
        CK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CK(cudaHostAlloc((void**)&h_params, (size_t)3 * n_opts * sizeof(float), cudaHostAllocDefault));
    CK(cudaHostAlloc((void**)&h_price, (size_t)n_opts * sizeof(float), cudaHostAllocDefault));
    for (int o = 0; o < n_opts; o++) {
        h_params[3 * o] = S0[o];
        h_params[3 * o + 1] = K[o];
        h_params[3 * o + 2] = sigma[o];
    }
    CK(cudaMallocAsync((void**)&d_params, (size_t)3 * n_opts * sizeof(float), streams[0]));
    CK(cudaMallocAsync((void**)&d_totals, (size_t)n_opts * sizeof(double), streams[0]));
    CK(cudaMallocAsync((void**)&d_price, (size_t)n_opts * sizeof(float), streams[0]));
    CK(cudaStreamSynchronize(streams[0]));  // allocations visible to every stream

    for (int first = 0, k = 0; first < n_opts; first += group, k++) {
        const int count = n_opts - first < group ? n_opts - first : group;
        cudaStream_t st = streams[k % NSTREAMS];
        const dim3 grid((n_paths + THREADS - 1) / THREADS, count);
        CK(cudaMemcpyAsync(d_params + 3 * (size_t)first, h_params + 3 * (size_t)first,
                           (size_t)3 * count * sizeof(float), cudaMemcpyHostToDevice, st));
        CK(cudaMemsetAsync(d_totals + first, 0, (size_t)count * sizeof(double), st));
        paths_kernel<<<grid, THREADS, 0, st>>>(d_params + 3 * (size_t)first, first, r, T, n_paths,
                                               n_steps, seed, d_totals + first);
        CK(cudaGetLastError());
        price_kernel<<<(count + 127) / 128, 128, 0, st>>>(count, d_totals + first, r, T, n_paths,
                                                          d_price + first);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(h_price + first, d_price + first, (size_t)count * sizeof(float),
                           cudaMemcpyDeviceToHost, st));
    }
    for (int s = 0; s < NSTREAMS; s++) CK(cudaStreamSynchronize(streams[s]));
    std::memcpy(price, h_price, (size_t)n_opts * sizeof(float));
done:
    if (streams[0]) {
        cudaDeviceSynchronize();
        if (d_params) cudaFreeAsync(d_params, streams[0]);
        if (d_totals) cudaFreeAsync(d_totals, streams[0]);
        if (d_price) cudaFreeAsync(d_price, streams[0]);
        cudaStreamSynchronize(streams[0]);
    }
    for (int s = 0; s < NSTREAMS; s++)
        if (streams[s]) cudaStreamDestroy(streams[s]);
    cudaFreeHost(h_params);
    cudaFreeHost(h_price);
}
