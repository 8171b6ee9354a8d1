// Case: double buffering without cp.async. A helper loads the next slab from global memory into
// registers while the block computes on the current shared stage; a second helper then stores
// the registers into the other stage (sx[buf ^ 1]). The loads overlap the compute; the shared
// stages are the two halves of sx.
#include <cuda_runtime.h>

constexpr int TILE = 32;

struct Slab {
    float v;
    __device__ void load(const float* __restrict__ x, int n, int k0, int tid) {
        v = k0 + tid < n ? __ldg(x + k0 + tid) : 0.0f;
    }
    __device__ void store(float* stage, int tid) const { stage[tid] = v; }
};

__global__ void dot_slabs(const float* __restrict__ x, const float* __restrict__ w, float* out,
                          int n) {
    __shared__ float sx[2][TILE];  // expect: MEM-09
    int tid = threadIdx.x;
    Slab slab;
    slab.load(x, n, 0, tid);
    slab.store(sx[0], tid);
    __syncthreads();
    float acc = 0.0f;
    int buf = 0;
    for (int k0 = 0; k0 < n; k0 += TILE, buf ^= 1) {
        bool more = k0 + TILE < n;
        if (more) slab.load(x, n, k0 + TILE, tid);
        for (int k = 0; k < TILE; k++) acc += sx[buf][k] * w[k0 + k];
        if (more) slab.store(sx[buf ^ 1], tid);
        __syncthreads();
    }
    out[blockIdx.x * TILE + tid] = acc;
}

void solution_compute(const float* d_x, const float* d_w, float* d_out, int n) {
    dot_slabs<<<1, TILE>>>(d_x, d_w, d_out, n);
}
