// Black-Scholes with Thrust: device_vectors built from the host arrays, one thrust::transform
// over zipped (S, X, T) that writes zipped (call, put), and Thrust copies back.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/transform.h>
#include <thrust/tuple.h>
#include <cstdio>
#include <exception>

struct bs_price {
    float r, v;

    __device__ static float cnd(float d)
    {
        const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
        const float a4 = -1.821255978f, a5 = 1.330274429f;
        const float rsqrt2pi = 0.39894228040143267794f;
        const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
        const float c = rsqrt2pi * expf(-0.5f * d * d) *
                        (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
        return d > 0.0f ? 1.0f - c : c;
    }

    __device__ thrust::tuple<float, float> operator()(const thrust::tuple<float, float, float>& o) const
    {
        const float s = thrust::get<0>(o), x = thrust::get<1>(o), t = thrust::get<2>(o);
        const float sqrt_t = sqrtf(t);
        const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
        const float d2 = d1 - v * sqrt_t;
        const float c1 = cnd(d1), c2 = cnd(d2);
        const float disc = expf(-r * t);
        return thrust::make_tuple(s * c1 - x * disc * c2, x * disc * (1.0f - c2) - s * (1.0f - c1));
    }
};

extern "C" void solution_compute(const float* S, const float* X, const float* T, int n, float r,
                                 float v, float* call, float* put)
{
    if (n <= 0) return;
    try {
        thrust::device_vector<float> dS(S, S + n), dX(X, X + n), dT(T, T + n);
        thrust::device_vector<float> dC(n), dP(n);
        auto in = thrust::make_zip_iterator(thrust::make_tuple(dS.begin(), dX.begin(), dT.begin()));
        auto out = thrust::make_zip_iterator(thrust::make_tuple(dC.begin(), dP.begin()));
        thrust::transform(in, in + n, out, bs_price{r, v});
        thrust::copy(dC.begin(), dC.end(), call);
        thrust::copy(dP.begin(), dP.end(), put);
    } catch (const std::exception& e) {
        fprintf(stderr, "black_scholes (thrust): %s\n", e.what());
    }
}
