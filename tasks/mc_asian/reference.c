/* Monte Carlo arithmetic-average Asian call, single-threaded reference. */
#include <math.h>
#include <stdint.h>

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static float normal_draw(unsigned int seed, uint64_t counter)
{
    uint64_t x = splitmix64(((uint64_t)seed << 40) ^ counter);
    float u1 = (float)((x >> 40) + 1) * (1.0f / 16777216.0f);
    float u2 = (float)((x >> 16) & 0xFFFFFFULL) * (1.0f / 16777216.0f);
    return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

void solution_compute(int n_opts, const float* S0, const float* K, const float* sigma, float r,
                      float T, int n_paths, int n_steps, unsigned int seed, float* price)
{
    float dt = T / (float)n_steps;
    for (int o = 0; o < n_opts; o++) {
        float sig = sigma[o];
        float drift = (r - 0.5f * sig * sig) * dt;
        float vol = sig * sqrtf(dt);
        double total = 0.0;
        for (int p = 0; p < n_paths; p++) {
            uint64_t base = ((uint64_t)o * (uint64_t)n_paths + (uint64_t)p) * (uint64_t)n_steps;
            float s = S0[o], sum = 0.0f;
            for (int t = 0; t < n_steps; t++) {
                float z = normal_draw(seed, base + (uint64_t)t);
                s = s * expf(drift + vol * z);
                sum += s;
            }
            float payoff = sum / (float)n_steps - K[o];
            total += payoff > 0.0f ? payoff : 0.0f;
        }
        price[o] = expf(-r * T) * (float)(total / (double)n_paths);
    }
}
