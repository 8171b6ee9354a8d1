#include <cuda_runtime.h>
#include <vector>

// The interface passes particles interleaved as x0 y0 z0 x1 y1 z1 ...; the port splits them into
// three contiguous arrays so each kernel access is one coalesced stream.
__global__ void radial_dist(const float* x, const float* y, const float* z, float* r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = sqrtf(x[i] * x[i] + y[i] * y[i] + z[i] * z[i]);
}

extern "C" void solution_compute(const float* xyz, float* r, int n) {
    std::vector<float> hx(n), hy(n), hz(n);
    for (int i = 0; i < n; ++i) {
        hx[i] = xyz[3 * i + 0]; // expect: MEM-07
        hy[i] = xyz[3 * i + 1]; // expect: MEM-07
        hz[i] = xyz[3 * i + 2]; // expect: MEM-07
    }
    float *dx, *dy, *dz, *dr;
    cudaMalloc(&dx, sizeof(float) * n); cudaMalloc(&dy, sizeof(float) * n);
    cudaMalloc(&dz, sizeof(float) * n); cudaMalloc(&dr, sizeof(float) * n);
    cudaMemcpy(dx, hx.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, hy.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dz, hz.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
    radial_dist<<<(n + 255) / 256, 256>>>(dx, dy, dz, dr, n);
    cudaMemcpy(r, dr, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy); cudaFree(dz); cudaFree(dr);
}
