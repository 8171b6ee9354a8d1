#include <cuda_runtime.h>

// Diffusion step; the inputs are marked read-only and non-aliased.
__global__ void diffuse(const float* __restrict__ u,    // expect: MEM-04
                        const float* __restrict__ kappa, // expect: MEM-04
                        float* __restrict__ un, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    float k = kappa[i];
    un[i] = u[i] + dt * k * (u[i - 1] - 2.0f * u[i] + u[i + 1]);
}

extern "C" void solution_compute(const float* u0, const float* kappa, float* out, int n,
                                 int steps, float dt) {
    float *du, *dk, *dn;
    cudaMalloc(&du, sizeof(float) * n);
    cudaMalloc(&dk, sizeof(float) * n);
    cudaMalloc(&dn, sizeof(float) * n);
    cudaMemcpy(du, u0, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dn, u0, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dk, kappa, sizeof(float) * n, cudaMemcpyHostToDevice);
    for (int s = 0; s < steps; ++s) {
        diffuse<<<(n + 255) / 256, 256>>>(du, dk, dn, n, dt);
        float* t = du; du = dn; dn = t;
    }
    cudaMemcpy(out, du, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(du); cudaFree(dk); cudaFree(dn);
}
