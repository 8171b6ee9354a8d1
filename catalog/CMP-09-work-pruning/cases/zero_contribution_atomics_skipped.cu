// Case: each particle adds its force to its cell's three components with atomics, but skips an
// atomic whose contribution is zero (a particle that felt nothing in that direction): work that
// cannot change the result. The merge of a shared-memory histogram that skips empty bins, and a
// flush of a partial sum that skips zeros, are part of the privatisation (PAR-05), not pruning.
__device__ void add_force(float* cell_force, int cell, float fx, float fy, float fz) {
    if (fx != 0.0f)  // expect: CMP-09
        atomicAdd(&cell_force[3 * cell], fx);
    if (fy != 0.0f)  // expect: CMP-09
        atomicAdd(&cell_force[3 * cell + 1], fy);
    if (fz != 0.0f)  // expect: CMP-09
        atomicAdd(&cell_force[3 * cell + 2], fz);
}

__global__ void forces(const float* __restrict__ pos, const int* __restrict__ cell_of,
                       float* __restrict__ cell_force, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float p = pos[i];
    add_force(cell_force, cell_of[i], p > 1.0f ? 1.0f - p : 0.0f, -p, 0.0f);
}

__global__ void bin_counts(const int* __restrict__ bins, unsigned* __restrict__ hist, int n) {
    __shared__ unsigned local[64];
    for (int b = threadIdx.x; b < 64; b += blockDim.x) local[b] = 0u;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[bins[i] & 63], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 64; b += blockDim.x) {
        unsigned c = local[b];
        if (c != 0u)  // ok: CMP-09
            atomicAdd(&hist[b], c);
    }
}

__global__ void row_sums(const float* __restrict__ val, float* __restrict__ sums, int n, int w) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < w; k++)
        acc += val[(size_t)k * n + row];
    if (acc != 0.0f)  // ok: CMP-09
        atomicAdd(&sums[row % 64], acc);
}

extern "C" void solution_compute(const float* pos, const int* cell_of, float* cell_force,
                                 const int* bins, unsigned* hist, const float* val, float* sums,
                                 int n, int w) {
    forces<<<(n + 255) / 256, 256>>>(pos, cell_of, cell_force, n);
    bin_counts<<<64, 256>>>(bins, hist, n);
    row_sums<<<(n + 255) / 256, 256>>>(val, sums, n, w);
}
