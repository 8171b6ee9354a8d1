// SPH density in one cooperative launch: every phase of the cell-list build and the density
// search runs in the same resident grid, separated by grid-wide barriers:
//   clear counts | bin + count (atomics) | chunk sums | chunk scans -> cell starts |
//   place particles in cell order | density
// The scan of the cell counts is done in place: each block owns one contiguous chunk of the
// counts, adds up the totals of the chunks before it, and scans its chunk tile by tile.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

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
constexpr int WARPS = THREADS / 32;

struct Args {
    int n;
    int nc;
    int ncells;
    float cell;
    float h2;
    double coef;
    const float* pos;
    int* counts;       // ncells + 1
    int* start;        // ncells + 1
    int* chunk_sum;    // one per block
    int2* cell_rank;   // n
    float4* sorted;    // n
    float* density;    // n
};

__device__ __forceinline__ int cell_coord(float v, float cell, int nc)
{
    const int c = (int)(v / cell);
    return min(max(c, 0), nc - 1);
}

// Sum over the block; every thread gets the total. All threads must call it.
__device__ int block_sum(int v, int* warp_tot)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    __syncthreads();   // the previous user of warp_tot is done
    if ((threadIdx.x & 31) == 0) warp_tot[threadIdx.x >> 5] = v;
    __syncthreads();
    int t = 0;
    for (int w = 0; w < WARPS; w++) t += warp_tot[w];
    return t;
}

// Exclusive scan over the block; *total gets the block's sum. All threads must call it.
__device__ int block_exclusive_scan(int v, int* warp_tot, int* total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int x = v;
    for (int off = 1; off < 32; off <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off) x += y;
    }
    __syncthreads();
    if (lane == 31) warp_tot[warp] = x;
    __syncthreads();
    int before = 0, all = 0;
    for (int w = 0; w < WARPS; w++) {
        const int t = warp_tot[w];
        if (w < warp) before += t;
        all += t;
    }
    *total = all;
    return before + x - v;
}

__global__ void __launch_bounds__(THREADS) sph_density_all(Args a)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ int warp_tot[WARPS];
    const long long tid = (long long)blockIdx.x * THREADS + threadIdx.x;
    const long long stride = (long long)gridDim.x * THREADS;
    const int ncount = a.ncells + 1;   // the extra 0 makes start[ncells] = n

    for (long long c = tid; c < ncount; c += stride) a.counts[c] = 0;
    grid.sync();

    for (long long i = tid; i < a.n; i += stride) {
        const float* p = a.pos + 3 * i;
        const int c = cell_coord(__ldg(p), a.cell, a.nc) +
                      a.nc * (cell_coord(__ldg(p + 1), a.cell, a.nc) +
                              a.nc * cell_coord(__ldg(p + 2), a.cell, a.nc));
        a.cell_rank[i] = make_int2(c, atomicAdd(&a.counts[c], 1));
    }
    grid.sync();

    // this block's chunk of the counts
    const int chunk = (ncount + gridDim.x - 1) / gridDim.x;
    const int lo = min((int)blockIdx.x * chunk, ncount);
    const int hi = min(lo + chunk, ncount);
    int s = 0;
    for (int c = lo + threadIdx.x; c < hi; c += THREADS) s += a.counts[c];
    s = block_sum(s, warp_tot);
    if (threadIdx.x == 0) a.chunk_sum[blockIdx.x] = s;
    grid.sync();

    int offset = 0;
    for (int b = threadIdx.x; b < (int)blockIdx.x; b += THREADS) offset += a.chunk_sum[b];
    int running = block_sum(offset, warp_tot);
    for (int base = lo; base < hi; base += THREADS) {   // same trip count for the whole block
        const int c = base + threadIdx.x;
        const int v = c < hi ? a.counts[c] : 0;
        int tile_total;
        const int ex = block_exclusive_scan(v, warp_tot, &tile_total);
        if (c < hi) a.start[c] = running + ex;
        running += tile_total;
    }
    grid.sync();

    for (long long i = tid; i < a.n; i += stride) {
        const int2 cr = a.cell_rank[i];
        const float* p = a.pos + 3 * i;
        a.sorted[a.start[cr.x] + cr.y] =
            make_float4(__ldg(p), __ldg(p + 1), __ldg(p + 2), __int_as_float((int)i));
    }
    grid.sync();

    for (long long k = tid; k < a.n; k += stride) {
        const float4 p = a.sorted[k];
        const int cx = cell_coord(p.x, a.cell, a.nc), cy = cell_coord(p.y, a.cell, a.nc);
        const int cz = cell_coord(p.z, a.cell, a.nc);
        double sum = 0.0;
        for (int z = max(cz - 1, 0); z <= min(cz + 1, a.nc - 1); z++)
            for (int y = max(cy - 1, 0); y <= min(cy + 1, a.nc - 1); y++)
                for (int x = max(cx - 1, 0); x <= min(cx + 1, a.nc - 1); x++) {
                    const int c = x + a.nc * (y + a.nc * z);
                    const int end = a.start[c + 1];
                    for (int m = a.start[c]; m < end; m++) {
                        const float4 q4 = a.sorted[m];
                        const float dx = q4.x - p.x, dy = q4.y - p.y, dz = q4.z - p.z;
                        const float r2 = dx * dx + dy * dy + dz * dz;
                        if (r2 < a.h2) {
                            const float q = a.h2 - r2;
                            sum += (double)(q * q * q);
                        }
                    }
                }
        a.density[__float_as_int(p.w)] = (float)(a.coef * sum);
    }
}

extern "C" void solution_compute(int n, const float* pos, float h, float mass, float box,
                                 float* density)
{
    if (n <= 0) return;
    Args a = {};
    a.n = n;
    a.nc = (int)(box / h);
    if (a.nc < 1) a.nc = 1;
    if (a.nc > 512) a.nc = 512;
    a.cell = box / (float)a.nc;
    a.h2 = h * h;
    a.ncells = a.nc * a.nc * a.nc;
    const double h9 = (double)h * h * h * h * h * h * h * h * h;
    a.coef = (double)mass * 315.0 / (64.0 * 3.14159265358979323846 * h9);
    const size_t cell_bytes = ((size_t)a.ncells + 1) * sizeof(int);

    float* d_pos = nullptr;
    int dev = 0, coop = 0, sms = 0, per_sm = 0, blocks = 0;
    void* params[] = {&a};

    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) {
        fprintf(stderr, "sph_density: device cannot launch cooperative kernels\n");
        return;
    }
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sph_density_all, THREADS, 0));
    blocks = sms * per_sm;   // every block must be resident for the grid barriers
    if (blocks > (n + THREADS - 1) / THREADS) blocks = (n + THREADS - 1) / THREADS;
    if (blocks < 1) blocks = 1;

    CK(cudaMalloc(&d_pos, 3 * (size_t)n * sizeof(float)));
    CK(cudaMalloc(&a.density, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&a.counts, cell_bytes));
    CK(cudaMalloc(&a.start, cell_bytes));
    CK(cudaMalloc(&a.chunk_sum, (size_t)blocks * sizeof(int)));
    CK(cudaMalloc(&a.cell_rank, (size_t)n * sizeof(int2)));
    CK(cudaMalloc(&a.sorted, (size_t)n * sizeof(float4)));
    a.pos = d_pos;
    CK(cudaMemcpy(d_pos, pos, 3 * (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaLaunchCooperativeKernel((void*)sph_density_all, dim3(blocks), dim3(THREADS), params, 0,
                                   0));
    CK(cudaMemcpy(density, a.density, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_pos);
    cudaFree(a.density);
    cudaFree(a.counts);
    cudaFree(a.start);
    cudaFree(a.chunk_sum);
    cudaFree(a.cell_rank);
    cudaFree(a.sorted);
}
