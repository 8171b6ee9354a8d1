// Monte Carlo Asian option prices with Thrust and CUB: thrust::transform over the flat
// (option, path) index computes every path's payoff (the task's counter RNG makes each path a
// pure function of its index), cub::DeviceSegmentedReduce sums the payoffs of each option in
// double, and a last thrust::transform turns the sums into discounted prices.
#include <cub/cub.cuh>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>

namespace {

__host__ __device__ inline uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

struct path_payoff {
    const float* S0;
    const float* K;
    const float* sigma;
    float r, dt;
    int n_paths, n_steps;
    unsigned int seed;

    __device__ double operator()(long long g) const
    {
        const int o = (int)(g / n_paths);
        const float sig = sigma[o];
        const float drift = (r - 0.5f * sig * sig) * dt;
        const float vol = sig * sqrtf(dt);
        const uint64_t base = (uint64_t)g * (uint64_t)n_steps;  // (o * n_paths + p) * n_steps
        float s = S0[o], sum = 0.0f;
        for (int t = 0; t < n_steps; t++) {
            const uint64_t x = splitmix64(((uint64_t)seed << 40) ^ (base + (uint64_t)t));
            const float u1 = (float)((x >> 40) + 1) * (1.0f / 16777216.0f);
            const float u2 = (float)((x >> 16) & 0xFFFFFFULL) * (1.0f / 16777216.0f);
            const float z = sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
            s = s * expf(drift + vol * z);
            sum += s;
        }
        const float payoff = sum / (float)n_steps - K[o];
        return payoff > 0.0f ? (double)payoff : 0.0;
    }
};

struct discounted_mean {
    float discount;
    double paths;
    __device__ float operator()(double total) const { return discount * (float)(total / paths); }
};

}  // namespace

extern "C" void solution_compute(int n_opts, const float* S0, const float* K, const float* sigma,
                                 float r, float T, int n_paths, int n_steps, unsigned int seed,
                                 float* price)
{
    if (n_opts <= 0 || n_paths <= 0) return;
    try {
        const long long total = (long long)n_opts * n_paths;
        thrust::device_vector<float> d_S0(S0, S0 + n_opts), d_K(K, K + n_opts);
        thrust::device_vector<float> d_sigma(sigma, sigma + n_opts);
        thrust::device_vector<double> payoffs(total);
        path_payoff op{thrust::raw_pointer_cast(d_S0.data()), thrust::raw_pointer_cast(d_K.data()),
                       thrust::raw_pointer_cast(d_sigma.data()), r, T / (float)n_steps,
                       n_paths, n_steps, seed};
        thrust::transform(thrust::counting_iterator<long long>(0),
                          thrust::counting_iterator<long long>(total), payoffs.begin(), op);

        // Option o owns payoffs [o * n_paths, (o + 1) * n_paths).
        thrust::device_vector<long long> offsets(n_opts + 1);
        thrust::sequence(offsets.begin(), offsets.end(), 0LL, (long long)n_paths);
        thrust::device_vector<double> totals(n_opts);
        const double* in = thrust::raw_pointer_cast(payoffs.data());
        double* out = thrust::raw_pointer_cast(totals.data());
        const long long* off = thrust::raw_pointer_cast(offsets.data());
        size_t temp_bytes = 0;
        cudaError_t err = cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, in, out, n_opts,
                                                          off, off + 1);
        if (err != cudaSuccess) throw std::runtime_error(cudaGetErrorString(err));
        thrust::device_vector<unsigned char> temp(temp_bytes);
        err = cub::DeviceSegmentedReduce::Sum(thrust::raw_pointer_cast(temp.data()), temp_bytes,
                                              in, out, n_opts, off, off + 1);
        if (err != cudaSuccess) throw std::runtime_error(cudaGetErrorString(err));

        thrust::device_vector<float> d_price(n_opts);
        thrust::transform(totals.begin(), totals.end(), d_price.begin(),
                          discounted_mean{expf(-r * T), (double)n_paths});
        thrust::copy(d_price.begin(), d_price.end(), price);
    } catch (const std::exception& e) {
        fprintf(stderr, "mc_asian (thrust): %s\n", e.what());
    }
}
