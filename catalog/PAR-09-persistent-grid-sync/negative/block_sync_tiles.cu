#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Tiled 1-D convolution. block.sync() is a block barrier (like __syncthreads),
// not grid.sync(); each launch is independent.
__global__ void conv1d_tiled(const float* x, const float* k, float* y, int n, int r) {
    extern __shared__ float tile[];
    cg::thread_block block = cg::this_thread_block();
    int base = blockIdx.x * blockDim.x;
    for (int t = threadIdx.x; t < blockDim.x + 2 * r; t += blockDim.x) {
        int g = base + t - r;
        tile[t] = (g >= 0 && g < n) ? x[g] : 0.0f;
    }
    block.sync();  // ok: PAR-09
    int i = base + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int j = -r; j <= r; ++j) acc += k[j + r] * tile[threadIdx.x + r + j];
    y[i] = acc;
}

extern "C" void solution_compute(int n, int r, const float* x, const float* k, float* y) {
    float *dx, *dk, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dk, (2 * r + 1) * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dk, k, (2 * r + 1) * sizeof(float), cudaMemcpyHostToDevice);
    size_t smem = (256 + 2 * r) * sizeof(float);
    conv1d_tiled<<<(n + 255) / 256, 256, smem>>>(dx, dk, dy, n, r);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dk);
    cudaFree(dy);
}
