#include <cuda_runtime.h>

#define TILE 16

// Mandelbrot tiles have very different costs; persistent blocks take the next
// tile from a global counter until all tiles are done.
__global__ void mandel_tiles(int* next_tile, int tiles_x, int tiles_total, int w, int h,
                             int max_iter, int* iters) {
    __shared__ int tile;
    while (true) {
        if (threadIdx.x == 0 && threadIdx.y == 0) tile = atomicAdd(next_tile, 1);  // expect: LBL-01
        __syncthreads();
        int t = tile;
        __syncthreads();
        if (t >= tiles_total) break;
        int x = (t % tiles_x) * TILE + threadIdx.x;
        int y = (t / tiles_x) * TILE + threadIdx.y;
        if (x < w && y < h) {
            float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / h;
            float zr = 0.f, zi = 0.f;
            int it = 0;
            while (it < max_iter && zr * zr + zi * zi < 4.0f) {
                float tmp = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = tmp;
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
    int tiles_x = (w + TILE - 1) / TILE, tiles_y = (h + TILE - 1) / TILE;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    mandel_tiles<<<sms * 8, dim3(TILE, TILE)>>>(dnext, tiles_x, tiles_x * tiles_y, w, h, max_iter, di);
    cudaMemcpy(iters, di, (size_t)w * h * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(di);
    cudaFree(dnext);
}
