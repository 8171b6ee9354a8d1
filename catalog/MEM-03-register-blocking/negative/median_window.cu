#include <cuda_runtime.h>

// A 3x3 median filter: the local array is a window that is filled once and sorted,
// not a block of accumulators reused across a loop.
__global__ void median3x3(const float* img, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float win[9]; // ok: MEM-03
    int c = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
            win[c++] = img[yy * w + xx];
        }
    for (int i = 1; i < 9; ++i) {
        float v = win[i];
        int j = i - 1;
        while (j >= 0 && win[j] > v) { win[j + 1] = win[j]; --j; }
        win[j + 1] = v;
    }
    out[y * w + x] = win[4];
}

extern "C" void solution_compute(const float* img, float* out, int w, int h) {
    float *di, *dout;
    cudaMalloc(&di, sizeof(float) * w * h);
    cudaMalloc(&dout, sizeof(float) * w * h);
    cudaMemcpy(di, img, sizeof(float) * w * h, cudaMemcpyHostToDevice);
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    median3x3<<<grid, block>>>(di, dout, w, h);
    cudaMemcpy(out, dout, sizeof(float) * w * h, cudaMemcpyDeviceToHost);
    cudaFree(di); cudaFree(dout);
}
