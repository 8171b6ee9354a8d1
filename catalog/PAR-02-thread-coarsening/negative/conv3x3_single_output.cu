#include <cuda_runtime.h>

#define TILE 16
#define K 3

// 3x3 convolution, one output pixel per thread. The constant-trip loops load
// the halo into shared memory and accumulate into a single output.
__global__ void conv3x3(const float* img, const float* w, float* out, int h, int wd) {
    __shared__ float tile[TILE + 2][TILE + 2];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int r = 0; r < 2; ++r) {  // ok: PAR-02
        int ty = threadIdx.y + r * TILE;
        if (ty < TILE + 2) {
            int gy = min(max(blockIdx.y * TILE + ty - 1, 0), h - 1);
            int gx = min(max(x - 1, 0), wd - 1);
            tile[ty][threadIdx.x] = img[gy * wd + gx];
            if (threadIdx.x < 2) {
                int gx2 = min(max((int)(blockIdx.x * TILE + TILE + threadIdx.x) - 1, 0), wd - 1);
                tile[ty][TILE + threadIdx.x] = img[gy * wd + gx2];
            }
        }
    }
    __syncthreads();
    if (x >= wd || y >= h) return;
    out[y * wd + x] = 0.0f;
    for (int t = 0; t < K * K; ++t) {  // ok: PAR-02
        out[y * wd + x] += w[t] * tile[threadIdx.y + t / K][threadIdx.x + t % K];
    }
}

extern "C" void solution_compute(int h, int wd, const float* img, const float* w, float* out) {
    float *di, *dw, *dout;
    size_t bytes = (size_t)h * wd * sizeof(float);
    cudaMalloc(&di, bytes);
    cudaMalloc(&dw, K * K * sizeof(float));
    cudaMalloc(&dout, bytes);
    cudaMemcpy(di, img, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w, K * K * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(TILE, TILE);
    dim3 grid((wd + TILE - 1) / TILE, (h + TILE - 1) / TILE);
    conv3x3<<<grid, block>>>(di, dw, dout, h, wd);
    cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
    cudaFree(di);
    cudaFree(dw);
    cudaFree(dout);
}
