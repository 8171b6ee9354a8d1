#include <cuda_runtime.h>
#include <cstdio>

#define THREADS 256

// Plain fixed block size (no __launch_bounds__, no occupancy API). The device
// properties are read only to check the compute capability.
__global__ void cumulative_returns(const float* r, float* out, int assets, int days) {
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= assets) return;
    float v = 1.0f;
    for (int d = 0; d < days; ++d) {
        v *= 1.0f + r[(size_t)d * assets + a];
        out[(size_t)d * assets + a] = v;
    }
}

extern "C" void solution_compute(int assets, int days, const float* r, float* out) {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    if (prop.major < 6) fprintf(stderr, "compute capability %d.%d is old\n", prop.major, prop.minor);  // ok: PAR-11
    float *dr, *dout;
    size_t bytes = (size_t)assets * days * sizeof(float);
    cudaMalloc(&dr, bytes);
    cudaMalloc(&dout, bytes);
    cudaMemcpy(dr, r, bytes, cudaMemcpyHostToDevice);
    cumulative_returns<<<(assets + THREADS - 1) / THREADS, THREADS>>>(dr, dout, assets, days);  // ok: PAR-11
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
    cudaFree(dr);
    cudaFree(dout);
}
