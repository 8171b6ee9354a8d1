#include <cuda_runtime.h>

// Explicit heat equation with a time-dependent source: each step is launched
// with its step number, but all cells of a step are independent (Jacobi-style
// double buffering), so there is no wavefront.
__global__ void heat_step(const float* u, float* un, int n, float alpha, float dt, int step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    float t = step * dt;
    float src = (i == n / 2) ? __sinf(t) : 0.0f;
    un[i] = u[i] + alpha * (u[i - 1] - 2.0f * u[i] + u[i + 1]) + dt * src;
}

extern "C" void solution_compute(int n, int steps, float alpha, float dt, float* u) {
    float *da, *db;
    cudaMalloc(&da, n * sizeof(float));
    cudaMalloc(&db, n * sizeof(float));
    cudaMemcpy(da, u, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, u, n * sizeof(float), cudaMemcpyHostToDevice);
    for (int s = 0; s < steps; ++s) {
        heat_step<<<(n + 255) / 256, 256>>>(da, db, n, alpha, dt, s);  // ok: PAR-08
        float* t = da;
        da = db;
        db = t;
    }
    cudaMemcpy(u, da, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
}
