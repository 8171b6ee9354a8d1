// Case: a whole program. initialize_input writes the problem's starting field (a sine on the
// boundary): set-up code that makes the input, not a table the solution computes once and reuses.
// The solution's own table of per-row weights, computed on the host and copied to the device, is
// precomputation.
#include <cuda_runtime.h>
#include <math.h>
#include <vector>

__global__ void weighted_sweep(const float *f, const float *w, float *g, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y;
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        g[j * n + i] = w[j] * (f[j * n + i - 1] + f[j * n + i + 1]);
}

static void initialize_input(float *f, int n)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            f[j * n + i] = (i == 0) ? sinf(j * 6.2831853f / (n - 1)) : 0.0f;  // ok: CMP-03
}

static void run(const std::vector<float> &f, float *g, int n)
{
    std::vector<float> w(n);
    for (int j = 0; j < n; ++j)
        w[j] = expf(-0.5f * j / n);  // expect: CMP-03
    float *df, *dw, *dg;
    cudaMalloc(&df, sizeof(float) * n * n);
    cudaMalloc(&dw, sizeof(float) * n);
    cudaMalloc(&dg, sizeof(float) * n * n);
    cudaMemcpy(df, f.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
    weighted_sweep<<<dim3((n + 255) / 256, n), 256>>>(df, dw, dg, n);
    cudaMemcpy(g, dg, sizeof(float) * n * n, cudaMemcpyDeviceToHost);
    cudaFree(df);
    cudaFree(dw);
    cudaFree(dg);
}

int main()
{
    const int n = 512;
    std::vector<float> f(n * n), g(n * n);
    initialize_input(f.data(), n);
    run(f, g.data(), n);
    return 0;
}
