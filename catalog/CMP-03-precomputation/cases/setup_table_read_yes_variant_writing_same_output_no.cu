// Case: make_decay fills a table once that the stepping kernel reads every step (precomputation).
// profile_fast and profile_exact are two variants that compute the task's result (an analytic
// profile) into the same output buffer; the other launch only writes that buffer, so neither
// fills a table that another kernel reads.
#include <cuda_runtime.h>
#include <math.h>

__global__ void make_decay(float *decay, int m)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        decay[k] = expf(-0.1f * k);  // expect: CMP-03
}

__global__ void step(float *u, const float *decay, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        u[i] *= decay[i % m];
}

__global__ void profile_fast(float *profile, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        profile[i] = __expf(-a * i) * __sinf(a * i);  // ok: CMP-03
}

__global__ void profile_exact(float *profile, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        profile[i] = expf(-a * i) * sinf(a * i);  // ok: CMP-03
}

extern "C" void solution_compute(float *u, float *decay, float *profile, float a, int n, int m,
                                 int steps, int fast)
{
    make_decay<<<(m + 255) / 256, 256>>>(decay, m);
    for (int s = 0; s < steps; ++s)
        step<<<(n + 255) / 256, 256>>>(u, decay, n, m);
    if (fast)
        profile_fast<<<(n + 255) / 256, 256>>>(profile, a, n);
    else
        profile_exact<<<(n + 255) / 256, 256>>>(profile, a, n);
}
