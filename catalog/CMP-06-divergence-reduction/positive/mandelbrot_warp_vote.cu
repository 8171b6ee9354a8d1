#include <cuda_runtime.h>

// Escape-time iterations: the loop exits only when the whole warp has escaped (warp-uniform
// branch), and the per-lane update is predicated with a select instead of a branch.
__global__ void mandel(int* iters, int w, int h, float x0, float y0, float dx, int max_it) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    bool inside = px < w && py < h;
    float cr = x0 + px * dx, ci = y0 + py * dx;
    float zr = 0.f, zi = 0.f;
    int count = 0;
    for (int k = 0; k < max_it; ++k) {
        bool alive = inside && (zr * zr + zi * zi <= 4.0f);
        if (!__any_sync(0xffffffffu, alive)) break; // expect: CMP-06
        float nzr = zr * zr - zi * zi + cr;
        float nzi = 2.0f * zr * zi + ci;
        zr = alive ? nzr : zr; // expect: CMP-06
        zi = alive ? nzi : zi; // expect: CMP-06
        count += alive;
    }
    if (inside) iters[py * w + px] = count;
}

extern "C" void solution_compute(int* iters, int w, int h, float x0, float y0, float dx, int max_it) {
    int* d;
    cudaMalloc(&d, sizeof(int) * w * h);
    dim3 b(32, 4), g((w + 31) / 32, (h + 3) / 4);
    mandel<<<g, b>>>(d, w, h, x0, y0, dx, max_it);
    cudaMemcpy(iters, d, sizeof(int) * w * h, cudaMemcpyDeviceToHost);
    cudaFree(d);
}
