// Case: the tile holds structs built from three global arrays in a compound literal, read through
// a pointer that is declared first and pointed at one input or the other afterwards: the struct
// of loads is a copy and the pointer reads global memory, so the shared array is a tile.
#include <cuda_runtime.h>

#define BLOCK 256

struct point { float x, y, z; };

__global__ void nearest_dot(const float* ax, const float* ay, const float* az, const float* bx,
                            const float* by, const float* bz, float* out, int n, int use_b) {
    __shared__ struct point tile[BLOCK];  // expect: MEM-02
    const float* xs;
    const float* ys;
    const float* zs;
    if (use_b) { xs = bx; ys = by; zs = bz; } else { xs = ax; ys = ay; zs = az; }
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float px = i < n ? ax[i] : 0.0f, best = -1e30f;
    for (int base = 0; base < n; base += BLOCK) {
        if (base + threadIdx.x < n)
            tile[threadIdx.x] = (struct point){xs[base + threadIdx.x], ys[base + threadIdx.x],
                                               zs[base + threadIdx.x]};
        __syncthreads();
        for (int k = 0; k < BLOCK && base + k < n; ++k)
            best = fmaxf(best, px * tile[k].x + tile[k].y * tile[k].z);
        __syncthreads();
    }
    if (i < n) out[i] = best;
}

extern "C" void solution_compute(const float* ax, const float* ay, const float* az,
                                 const float* bx, const float* by, const float* bz, float* out,
                                 int n) {
    nearest_dot<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(ax, ay, az, bx, by, bz, out, n, 1);
    cudaDeviceSynchronize();
}
