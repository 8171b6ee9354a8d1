// SPH density with one warp per particle. Particles are first placed in cell order (counting
// sort: atomics for the counts and ranks, CUB scan for the cell starts). A warp then walks the
// nine x-rows of the 27 neighbouring cells (cells x-1..x+1 of a row are adjacent in cell
// order), its 32 lanes taking consecutive candidates, so every load is one coalesced sweep;
// the lanes' double sums are combined with shuffles.
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cstdio>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

constexpr int THREADS = 256;
constexpr int WARPS_PER_BLOCK = THREADS / 32;

__device__ __forceinline__ int cell_coord(float v, float cell, int nc)
{
    const int c = (int)(v / cell);
    return min(max(c, 0), nc - 1);
}

__global__ void bin(int n, const float* __restrict__ pos, float cell, int nc, int* counts,
                    int* __restrict__ cell_of, int* __restrict__ rank)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t b = 3 * (size_t)i;
    const int c = cell_coord(pos[b], cell, nc) +
                  nc * (cell_coord(pos[b + 1], cell, nc) + nc * cell_coord(pos[b + 2], cell, nc));
    cell_of[i] = c;
    rank[i] = atomicAdd(&counts[c], 1);
}

__global__ void place(int n, const float* __restrict__ pos, const int* __restrict__ cell_of,
                      const int* __restrict__ rank, const int* __restrict__ start,
                      float* __restrict__ sx, float* __restrict__ sy, float* __restrict__ sz,
                      int* __restrict__ sid)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int k = start[cell_of[i]] + rank[i];
    const size_t b = 3 * (size_t)i;
    sx[k] = pos[b];
    sy[k] = pos[b + 1];
    sz[k] = pos[b + 2];
    sid[k] = i;
}

__global__ void __launch_bounds__(THREADS)
density_warp(int n, const float* __restrict__ sx, const float* __restrict__ sy,
             const float* __restrict__ sz, const int* __restrict__ sid,
             const int* __restrict__ start, float cell, int nc, float h2, double coef,
             float* __restrict__ density)
{
    const int k = blockIdx.x * WARPS_PER_BLOCK + (threadIdx.x >> 5);   // sorted particle
    const int lane = threadIdx.x & 31;
    if (k >= n) return;   // whole warp
    const float px = sx[k], py = sy[k], pz = sz[k];
    const int cx = cell_coord(px, cell, nc), cy = cell_coord(py, cell, nc);
    const int cz = cell_coord(pz, cell, nc);
    const int x0 = max(cx - 1, 0), x1 = min(cx + 1, nc - 1);
    double sum = 0.0;
    for (int z = max(cz - 1, 0); z <= min(cz + 1, nc - 1); z++)
        for (int y = max(cy - 1, 0); y <= min(cy + 1, nc - 1); y++) {
            const int row = nc * (y + nc * z);
            const int end = start[row + x1 + 1];
            for (int m = start[row + x0] + lane; m < end; m += 32) {
                const float dx = sx[m] - px, dy = sy[m] - py, dz = sz[m] - pz;
                const float r2 = dx * dx + dy * dy + dz * dz;
                if (r2 < h2) {
                    const float q = h2 - r2;
                    sum += (double)(q * q * q);
                }
            }
        }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) density[sid[k]] = (float)(coef * sum);
}

extern "C" void solution_compute(int n, const float* pos, float h, float mass, float box,
                                 float* density)
{
    if (n <= 0) return;
    int nc = (int)(box / h);
    if (nc < 1) nc = 1;
    if (nc > 512) nc = 512;
    const float cell = box / (float)nc, h2 = h * h;
    const int ncells = nc * nc * nc;
    const double h9 = (double)h * h * h * h * h * h * h * h * h;
    const double coef = (double)mass * 315.0 / (64.0 * 3.14159265358979323846 * h9);
    const size_t cell_bytes = ((size_t)ncells + 1) * sizeof(int);
    const int blocks = (n + THREADS - 1) / THREADS;
    const int warp_blocks = (n + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;

    float *d_pos = nullptr, *d_density = nullptr, *d_s = nullptr;
    int *d_cell_of = nullptr, *d_rank = nullptr, *d_counts = nullptr, *d_start = nullptr;
    int* d_sid = nullptr;
    void* d_temp = nullptr;
    size_t temp_bytes = 0;

    CK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_counts, d_start, ncells + 1));
    CK(cudaMalloc(&d_temp, temp_bytes));
    CK(cudaMalloc(&d_pos, 3 * (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_s, 3 * (size_t)n * sizeof(float)));   // sorted x, y, z planes
    CK(cudaMalloc(&d_density, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_cell_of, (size_t)n * sizeof(int)));
    CK(cudaMalloc(&d_rank, (size_t)n * sizeof(int)));
    CK(cudaMalloc(&d_sid, (size_t)n * sizeof(int)));
    CK(cudaMalloc(&d_counts, cell_bytes));
    CK(cudaMalloc(&d_start, cell_bytes));

    CK(cudaMemcpy(d_pos, pos, 3 * (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(d_counts, 0, cell_bytes));
    bin<<<blocks, THREADS>>>(n, d_pos, cell, nc, d_counts, d_cell_of, d_rank);
    CK(cudaGetLastError());
    CK(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_counts, d_start, ncells + 1));
    place<<<blocks, THREADS>>>(n, d_pos, d_cell_of, d_rank, d_start, d_s, d_s + n, d_s + 2 * (size_t)n,
                               d_sid);
    CK(cudaGetLastError());
    density_warp<<<warp_blocks, THREADS>>>(n, d_s, d_s + n, d_s + 2 * (size_t)n, d_sid, d_start,
                                           cell, nc, h2, coef, d_density);
    CK(cudaGetLastError());
    CK(cudaMemcpy(density, d_density, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_temp);
    cudaFree(d_pos);
    cudaFree(d_s);
    cudaFree(d_density);
    cudaFree(d_cell_of);
    cudaFree(d_rank);
    cudaFree(d_sid);
    cudaFree(d_counts);
    cudaFree(d_start);
}
