#include <cuda_runtime.h>

// Spring forces: each edge thread adds equal and opposite forces to its two
// endpoints with global atomics.
__global__ void spring_forces(const int* ea, const int* eb, const float* rest, const float* px,
                              const float* py, float k, float* fx, float* fy, int m) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    int a = ea[e], b = eb[e];
    float dx = px[b] - px[a], dy = py[b] - py[a];
    float len = sqrtf(dx * dx + dy * dy) + 1e-12f;
    float f = k * (len - rest[e]) / len;
    atomicAdd(&fx[a], f * dx);  // expect: PAR-06
    atomicAdd(&fy[a], f * dy);  // expect: PAR-06
    atomicAdd(&fx[b], -f * dx);  // expect: PAR-06
    atomicAdd(&fy[b], -f * dy);  // expect: PAR-06
}

extern "C" void solution_compute(int n, int m, const int* ea, const int* eb, const float* rest,
                                 const float* px, const float* py, float k, float* fx, float* fy) {
    int *dea, *deb;
    float *dr, *dpx, *dpy, *dfx, *dfy;
    cudaMalloc(&dea, m * sizeof(int));
    cudaMalloc(&deb, m * sizeof(int));
    cudaMalloc(&dr, m * sizeof(float));
    cudaMalloc(&dpx, n * sizeof(float));
    cudaMalloc(&dpy, n * sizeof(float));
    cudaMalloc(&dfx, n * sizeof(float));
    cudaMalloc(&dfy, n * sizeof(float));
    cudaMemcpy(dea, ea, m * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(deb, eb, m * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dr, rest, m * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dpx, px, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dpy, py, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dfx, 0, n * sizeof(float));
    cudaMemset(dfy, 0, n * sizeof(float));
    spring_forces<<<(m + 255) / 256, 256>>>(dea, deb, dr, dpx, dpy, k, dfx, dfy, m);
    cudaMemcpy(fx, dfx, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(fy, dfy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dea);
    cudaFree(deb);
    cudaFree(dr);
    cudaFree(dpx);
    cudaFree(dpy);
    cudaFree(dfx);
    cudaFree(dfy);
}
