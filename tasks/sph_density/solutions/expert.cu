// SPH density, cell list built and searched on the device in four stream-ordered launches.
// * bin: each particle's cell, and its rank inside that cell from the value atomicAdd returns,
//   so placing particles later needs no second round of atomics;
// * CUB exclusive scan of the per-cell counts into cell starts;
// * place: positions written in cell order as float4, the original index in the 4th lane;
// * density: one thread per sorted slot. Cells x-1, x, x+1 of one (y, z) row are adjacent in
//   cell order, so the 27-cell search is 9 contiguous runs of 16-byte loads.
// Everything is queued on one stream with stream-ordered allocations and one final sync.
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

__device__ __forceinline__ int cell_coord(float v, float cell, int nc)
{
    const int c = (int)(v / cell);
    return min(max(c, 0), nc - 1);
}

__global__ void bin(int n, const float* __restrict__ pos, float cell, int nc, int* counts,
                    int2* __restrict__ cell_rank)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t b = 3 * (size_t)i;
    const int c = cell_coord(__ldg(pos + b), cell, nc) +
                  nc * (cell_coord(__ldg(pos + b + 1), cell, nc) +
                        nc * cell_coord(__ldg(pos + b + 2), cell, nc));
    cell_rank[i] = make_int2(c, atomicAdd(&counts[c], 1));
}

__global__ void place(int n, const float* __restrict__ pos, const int2* __restrict__ cell_rank,
                      const int* __restrict__ start, float4* __restrict__ sorted)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int2 cr = cell_rank[i];
    const size_t b = 3 * (size_t)i;
    sorted[start[cr.x] + cr.y] =
        make_float4(__ldg(pos + b), __ldg(pos + b + 1), __ldg(pos + b + 2), __int_as_float(i));
}

__global__ void __launch_bounds__(256)
density_runs(int n, const float4* __restrict__ sorted, const int* __restrict__ start, float cell,
             int nc, float h2, double coef, float* __restrict__ density)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const float4 p = __ldg(&sorted[k]);
    const int cx = cell_coord(p.x, cell, nc), cy = cell_coord(p.y, cell, nc);
    const int cz = cell_coord(p.z, cell, nc);
    const int x0 = max(cx - 1, 0), x1 = min(cx + 1, nc - 1);
    const int y0 = max(cy - 1, 0), y1 = min(cy + 1, nc - 1);
    const int z0 = max(cz - 1, 0), z1 = min(cz + 1, nc - 1);
    double sum = 0.0;
    for (int z = z0; z <= z1; z++) {
        for (int y = y0; y <= y1; y++) {
            const int row = nc * (y + nc * z);
            const int end = __ldg(&start[row + x1 + 1]);
            for (int m = __ldg(&start[row + x0]); m < end; m++) {
                const float4 q4 = __ldg(&sorted[m]);
                const float dx = q4.x - p.x, dy = q4.y - p.y, dz = q4.z - p.z;
                const float r2 = dx * dx + dy * dy + dz * dz;
                if (r2 < h2) {
                    const float q = h2 - r2;
                    sum += (double)(q * q * q);
                }
            }
        }
    }
    density[__float_as_int(p.w)] = (float)(coef * sum);
}

static int blocks_for(int n, int threads) { return (n + threads - 1) / threads; }

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

    cudaStream_t st = nullptr;
    float *d_pos = nullptr, *d_density = nullptr;
    float4* d_sorted = nullptr;
    int2* d_cell_rank = nullptr;
    int *d_counts = nullptr, *d_start = nullptr;
    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    int grid_min = 0, dens_threads = 256;

    CK(cudaOccupancyMaxPotentialBlockSize(&grid_min, &dens_threads, density_runs, 0, 256));
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_counts, d_start, ncells + 1, st));
    CK(cudaMallocAsync(&d_temp, temp_bytes, st));
    CK(cudaMallocAsync(&d_pos, 3 * (size_t)n * sizeof(float), st));
    CK(cudaMallocAsync(&d_density, (size_t)n * sizeof(float), st));
    CK(cudaMallocAsync(&d_sorted, (size_t)n * sizeof(float4), st));
    CK(cudaMallocAsync(&d_cell_rank, (size_t)n * sizeof(int2), st));
    CK(cudaMallocAsync(&d_counts, cell_bytes, st));
    CK(cudaMallocAsync(&d_start, cell_bytes, st));

    CK(cudaMemcpyAsync(d_pos, pos, 3 * (size_t)n * sizeof(float), cudaMemcpyHostToDevice, st));
    CK(cudaMemsetAsync(d_counts, 0, cell_bytes, st));   // counts[ncells] = 0: start[ncells] = n
    bin<<<blocks_for(n, 256), 256, 0, st>>>(n, d_pos, cell, nc, d_counts, d_cell_rank);
    CK(cudaGetLastError());
    CK(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_counts, d_start, ncells + 1, st));
    place<<<blocks_for(n, 256), 256, 0, st>>>(n, d_pos, d_cell_rank, d_start, d_sorted);
    CK(cudaGetLastError());
    density_runs<<<blocks_for(n, dens_threads), dens_threads, 0, st>>>(n, d_sorted, d_start, cell,
                                                                      nc, h2, coef, d_density);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(density, d_density, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
done:
    if (st) {
        void* bufs[] = {d_temp, d_pos, d_density, d_sorted, d_cell_rank, d_counts, d_start};
        for (void* b : bufs)
            if (b) cudaFreeAsync(b, st);
        cudaStreamSynchronize(st);
        cudaStreamDestroy(st);
    }
}
