#include <cuda_runtime.h>

// Rows of the Mandelbrot set have very different costs, so warps take rows from
// an atomic counter. The counter only hands out work: each row is written by
// plain stores, nothing is combined with atomics.
__global__ void mandel_rows(int* next_row, int w, int h, int max_iter, int* iters) {
    __shared__ int row;
    while (true) {
        if (threadIdx.x == 0) row = atomicAdd(next_row, 1);  // ok: PAR-06
        __syncthreads();
        int y = row;
        __syncthreads();
        if (y >= h) return;
        for (int x = threadIdx.x; x < w; x += blockDim.x) {
            float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / h;
            float zr = 0.f, zi = 0.f;
            int it = 0;
            while (it < max_iter && zr * zr + zi * zi < 4.0f) {
                float t = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = t;
                ++it;
            }
            iters[y * w + x] = it;
        }
    }
}

extern "C" void solution_compute(int w, int h, int max_iter, int* iters) {
    int *di, *dnext;
    cudaMalloc(&di, (size_t)w * h * sizeof(int));
    cudaMalloc(&dnext, sizeof(int));
    cudaMemset(dnext, 0, sizeof(int));
    mandel_rows<<<132, 128>>>(dnext, w, h, max_iter, di);
    cudaMemcpy(iters, di, (size_t)w * h * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(di);
    cudaFree(dnext);
}
