// N-body step: the O(N^2) force loop runs on the host; the device only integrates positions.
#include <cuda_runtime.h>
#include <math.h>
#include <vector>

__global__ void integrate(float* x, float* y, float* vx, float* vy, const float* fx, const float* fy,
                          int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vx[i] += dt * fx[i];
    vy[i] += dt * fy[i];
    x[i] += dt * vx[i];
    y[i] += dt * vy[i];
}

extern "C" void solution_compute(int n, float dt, float* x, float* y, float* vx, float* vy) {
    std::vector<float> fx(n, 0.0f), fy(n, 0.0f);
    for (int i = 0; i < n; ++i) {  // expect: AP-05
        for (int j = 0; j < n; ++j) {
            if (i == j) continue;
            float dx = x[j] - x[i], dy = y[j] - y[i];
            float r2 = dx * dx + dy * dy + 1e-6f;
            float inv = 1.0f / (r2 * sqrtf(r2));
            fx[i] += dx * inv;
            fy[i] += dy * inv;
        }
    }
    size_t b = n * sizeof(float);
    float *d_x, *d_y, *d_vx, *d_vy, *d_fx, *d_fy;
    cudaMalloc(&d_x, b); cudaMalloc(&d_y, b); cudaMalloc(&d_vx, b);
    cudaMalloc(&d_vy, b); cudaMalloc(&d_fx, b); cudaMalloc(&d_fy, b);
    cudaMemcpy(d_x, x, b, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, b, cudaMemcpyHostToDevice);
    cudaMemcpy(d_vx, vx, b, cudaMemcpyHostToDevice);
    cudaMemcpy(d_vy, vy, b, cudaMemcpyHostToDevice);
    cudaMemcpy(d_fx, fx.data(), b, cudaMemcpyHostToDevice);
    cudaMemcpy(d_fy, fy.data(), b, cudaMemcpyHostToDevice);
    integrate<<<(n + 255) / 256, 256>>>(d_x, d_y, d_vx, d_vy, d_fx, d_fy, n, dt);
    cudaMemcpy(x, d_x, b, cudaMemcpyDeviceToHost);
    cudaMemcpy(y, d_y, b, cudaMemcpyDeviceToHost);
    cudaMemcpy(vx, d_vx, b, cudaMemcpyDeviceToHost);
    cudaMemcpy(vy, d_vy, b, cudaMemcpyDeviceToHost);
    cudaFree(d_x); cudaFree(d_y); cudaFree(d_vx); cudaFree(d_vy); cudaFree(d_fx); cudaFree(d_fy);
}
