// Jacobi sweeps on a 1-D Poisson problem; the work buffers live in static pointers that
// survive between calls (cross-call state, not per-call buffer reuse).
#include <cuda_runtime.h>
#include <utility>

__global__ void jacobi(const float* u, const float* f, float* u_new, int n, float h2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) {
        if (i == 0 || i == n - 1) u_new[i] = u[i];
        return;
    }
    u_new[i] = 0.5f * (u[i - 1] + u[i + 1] - h2 * f[i]);
}

extern "C" void solution_compute(int n, int iters, const float* f, float* u) {
    static float* d_u = nullptr;  // expect: AP-04
    static float* d_v = nullptr;  // expect: AP-04
    static float* d_f = nullptr;  // expect: AP-04
    static int capacity = 0;  // expect: AP-04
    size_t bytes = n * sizeof(float);
    if (n > capacity) {
        cudaFree(d_u); cudaFree(d_v); cudaFree(d_f);
        cudaMalloc(&d_u, bytes);  // ok: HST-01
        cudaMalloc(&d_v, bytes);  // ok: HST-01
        cudaMalloc(&d_f, bytes);  // ok: HST-01
        capacity = n;
    }
    cudaMemcpy(d_f, f, bytes, cudaMemcpyHostToDevice);
    cudaMemset(d_u, 0, bytes);
    float h = 1.0f / (n - 1);
    for (int it = 0; it < iters; ++it) {
        jacobi<<<(n + 255) / 256, 256>>>(d_u, d_f, d_v, n, h * h);
        std::swap(d_u, d_v);
    }
    cudaMemcpy(u, d_u, bytes, cudaMemcpyDeviceToHost);
}
