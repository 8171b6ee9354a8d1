#include <cuda_runtime.h>

#define BW 32
#define BH 8
#define R 2

// Reference: a horizontal blur pass writing a temporary image, then a vertical pass over it.
// Here the horizontal results of a tile (with a vertical halo) are kept in shared memory and the
// vertical pass reads them after a barrier: one kernel, no temporary image in global memory.
__global__ void blur_separable(const float* in, float* out, int w, int h) { // expect: CMP-01
    __shared__ float hrow[BH + 2 * R][BW];
    int x = blockIdx.x * BW + threadIdx.x;
    int y0 = blockIdx.y * BH;
    for (int ly = threadIdx.y; ly < BH + 2 * R; ly += BH) {
        int y = min(max(y0 + ly - R, 0), h - 1);
        float s = 0.0f;
        for (int k = -R; k <= R; ++k) {
            int xx = min(max(x + k, 0), w - 1);
            s += in[y * w + xx];
        }
        hrow[ly][threadIdx.x] = s * (1.0f / (2 * R + 1));
    }
    __syncthreads();
    int y = y0 + threadIdx.y;
    if (x >= w || y >= h) return;
    float v = 0.0f;
    for (int k = 0; k <= 2 * R; ++k) v += hrow[threadIdx.y + k][threadIdx.x];
    out[y * w + x] = v * (1.0f / (2 * R + 1));
}

extern "C" void solution_compute(const float* in, float* out, int w, int h) {
    float *di, *dout;
    cudaMalloc(&di, sizeof(float) * w * h);
    cudaMalloc(&dout, sizeof(float) * w * h);
    cudaMemcpy(di, in, sizeof(float) * w * h, cudaMemcpyHostToDevice);
    dim3 block(BW, BH), grid((w + BW - 1) / BW, (h + BH - 1) / BH);
    blur_separable<<<grid, block>>>(di, dout, w, h);
    cudaMemcpy(out, dout, sizeof(float) * w * h, cudaMemcpyDeviceToHost);
    cudaFree(di); cudaFree(dout);
}
