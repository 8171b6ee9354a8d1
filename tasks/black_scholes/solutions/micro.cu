// Black-Scholes call and put prices, one thread per option, with the kernel tuned: fast
// intrinsics (__expf, __logf, __fdividef), the polynomial coefficients in constant memory with
// an unrolled Horner loop of fused multiply-adds, read-only loads and a select for the tail.
#include <cuda_runtime.h>
#include <stdio.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e = (call);                                                       \
        if (e != cudaSuccess) {                                                       \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e),        \
                    __FILE__, __LINE__);                                              \
            goto cleanup;                                                             \
        }                                                                             \
    } while (0)

// Abramowitz-Stegun coefficients a1..a5
__constant__ float c_poly[5] = {0.31938153f, -0.356563782f, 1.781477937f, -1.821255978f,
                                1.330274429f};

__device__ __forceinline__ float cnd(float d)
{
    const float rsqrt2pi = 0.39894228040143267794f;
    const float k = __fdividef(1.0f, fmaf(0.2316419f, fabsf(d), 1.0f));
    float poly = c_poly[4];
#pragma unroll
    for (int q = 3; q >= 0; q--) poly = fmaf(poly, k, c_poly[q]);
    const float c = rsqrt2pi * __expf(-0.5f * d * d) * (k * poly);
    return d > 0.0f ? 1.0f - c : c;
}

__global__ void __launch_bounds__(256)
black_scholes(const float* __restrict__ S, const float* __restrict__ X,
              const float* __restrict__ T, int n, float r, float v, float* __restrict__ call,
              float* __restrict__ put)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float s = __ldg(&S[i]), x = __ldg(&X[i]), t = __ldg(&T[i]);
        const float sqrt_t = sqrtf(t);
        const float vs = v * sqrt_t;
        const float d1 = __fdividef(fmaf(fmaf(0.5f * v, v, r), t, __logf(__fdividef(s, x))), vs);
        const float d2 = d1 - vs;
        const float c1 = cnd(d1);
        const float c2 = cnd(d2);
        const float xd = x * __expf(-r * t);
        call[i] = fmaf(s, c1, -xd * c2);
        put[i] = fmaf(xd, 1.0f - c2, -s * (1.0f - c1));
    }
}

extern "C" void solution_compute(const float* S, const float* X, const float* T, int n, float r,
                                 float v, float* call, float* put)
{
    float *d_S = NULL, *d_X = NULL, *d_T = NULL, *d_call = NULL, *d_put = NULL;
    size_t size = (size_t)n * sizeof(float);
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    if (n <= 0) return;

    CHECK(cudaMalloc((void**)&d_S, size));
    CHECK(cudaMalloc((void**)&d_X, size));
    CHECK(cudaMalloc((void**)&d_T, size));
    CHECK(cudaMalloc((void**)&d_call, size));
    CHECK(cudaMalloc((void**)&d_put, size));

    CHECK(cudaMemcpy(d_S, S, size, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_X, X, size, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_T, T, size, cudaMemcpyHostToDevice));

    black_scholes<<<blocks, threads>>>(d_S, d_X, d_T, n, r, v, d_call, d_put);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(call, d_call, size, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(put, d_put, size, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_S);
    cudaFree(d_X);
    cudaFree(d_T);
    cudaFree(d_call);
    cudaFree(d_put);
}
