/* Black-Scholes call and put prices, single-threaded float reference. */
#include <math.h>

static float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
    const float a4 = -1.821255978f, a5 = 1.330274429f;
    const float rsqrt2pi = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = rsqrt2pi * expf(-0.5f * d * d) *
              (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - c : c;
}

void solution_compute(const float* S, const float* X, const float* T, int n, float r, float v,
                      float* call, float* put)
{
    for (int i = 0; i < n; i++) {
        float s = S[i], x = X[i], t = T[i];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
        float d2 = d1 - v * sqrt_t;
        float c1 = cnd(d1), c2 = cnd(d2);
        float disc = expf(-r * t);
        call[i] = s * c1 - x * disc * c2;
        put[i] = x * disc * (1.0f - c2) - s * (1.0f - c1);
    }
}
