#include <cuda_runtime.h>
#include <utility>

// Explicit Euler steps of independent decays: buffers are swapped each step, but no cell reads
// its neighbours, so there is no Gauss-Seidel ordering to replace.
__global__ void decay_step(const float* y, float* yn, const float* k, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) yn[i] = y[i] - dt * k[i] * y[i];
}

// Butterfly lanes for a warp sum: XOR picks a shuffle partner, not a sorting-network partner.
__global__ void warp_sums(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off); // ok: CMP-02
    if ((threadIdx.x & 31) == 0) out[i >> 5] = v;
}

extern "C" void solution_compute(const float* y0, const float* k, float* y, float dt, int steps, int n,
                                 float* sums) {
    float *dy, *dn, *dk, *ds;
    cudaMalloc(&dy, sizeof(float) * n); cudaMalloc(&dn, sizeof(float) * n);
    cudaMalloc(&dk, sizeof(float) * n); cudaMalloc(&ds, sizeof(float) * ((n + 31) / 32));
    cudaMemcpy(dy, y0, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dk, k, sizeof(float) * n, cudaMemcpyHostToDevice);
    for (int s = 0; s < steps; ++s) {
        decay_step<<<(n + 255) / 256, 256>>>(dy, dn, dk, dt, n);
        std::swap(dy, dn); // ok: CMP-02
    }
    warp_sums<<<(n + 255) / 256, 256>>>(dy, ds, n);
    cudaMemcpy(y, dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaMemcpy(sums, ds, sizeof(float) * ((n + 31) / 32), cudaMemcpyDeviceToHost);
    cudaFree(dy); cudaFree(dn); cudaFree(dk); cudaFree(ds);
}
