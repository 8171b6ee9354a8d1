// SPH density with a device-built cell list and the particles re-laid out in cell order.
// Steps: cell of each particle with per-cell counts (atomics), exclusive scan of the counts
// (CUB) into cell starts, a scatter that writes the positions in cell order as float4 together
// with each slot's original index, then one thread per sorted slot searching the 27 cells.
// Threads of a warp then mostly share cells, so their neighbour reads are contiguous.
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cstdio>

#define CUDA_TRY(call)                                                                 \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "sph: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                    cudaGetErrorString(err_));                                         \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

constexpr int THREADS = 256;

__device__ __forceinline__ int cell_coord(float v, float cell, int nc)
{
    const int c = (int)(v / cell);
    return c < 0 ? 0 : (c >= nc ? nc - 1 : c);
}

__global__ void assign_cells(int n, const float* __restrict__ pos, float cell, int nc,
                             int* __restrict__ cell_of, int* counts)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t b = 3 * (size_t)i;
    const int c = cell_coord(pos[b], cell, nc) +
                  nc * (cell_coord(pos[b + 1], cell, nc) + nc * cell_coord(pos[b + 2], cell, nc));
    cell_of[i] = c;
    atomicAdd(&counts[c], 1);
}

__global__ void reorder(int n, const float* __restrict__ pos, const int* __restrict__ cell_of,
                        int* fill, float4* __restrict__ sorted_pos, int* __restrict__ sorted_id)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int k = atomicAdd(&fill[cell_of[i]], 1);
    const size_t b = 3 * (size_t)i;
    sorted_pos[k] = make_float4(pos[b], pos[b + 1], pos[b + 2], 0.0f);
    sorted_id[k] = i;
}

__global__ void density_sorted(int n, const float4* __restrict__ sorted_pos,
                               const int* __restrict__ sorted_id, const int* __restrict__ start,
                               float cell, int nc, float h2, double coef,
                               float* __restrict__ density)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const float4 p = sorted_pos[k];
    const int cx = cell_coord(p.x, cell, nc), cy = cell_coord(p.y, cell, nc);
    const int cz = cell_coord(p.z, cell, nc);
    double sum = 0.0;
    for (int z = max(cz - 1, 0); z <= min(cz + 1, nc - 1); z++)
        for (int y = max(cy - 1, 0); y <= min(cy + 1, nc - 1); y++)
            for (int x = max(cx - 1, 0); x <= min(cx + 1, nc - 1); x++) {
                const int c = x + nc * (y + nc * z);
                const int end = start[c + 1];
                for (int m = start[c]; m < end; m++) {
                    const float4 q4 = sorted_pos[m];
                    const float dx = q4.x - p.x, dy = q4.y - p.y, dz = q4.z - p.z;
                    const float r2 = dx * dx + dy * dy + dz * dz;
                    if (r2 < h2) {
                        const float q = h2 - r2;
                        sum += (double)(q * q * q);
                    }
                }
            }
    density[sorted_id[k]] = (float)(coef * sum);
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
    const int blocks = (n + THREADS - 1) / THREADS;
    const size_t cell_bytes = ((size_t)ncells + 1) * sizeof(int);

    float *d_pos = nullptr, *d_density = nullptr;
    float4* d_sorted_pos = nullptr;
    int *d_cell_of = nullptr, *d_counts = nullptr, *d_start = nullptr, *d_fill = nullptr;
    int* d_sorted_id = nullptr;
    void* d_temp = nullptr;
    size_t temp_bytes = 0;

    // every buffer up front; nothing is allocated between the kernels
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_counts, d_start, ncells + 1));
    CUDA_TRY(cudaMalloc(&d_temp, temp_bytes));
    CUDA_TRY(cudaMalloc(&d_pos, 3 * (size_t)n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_density, (size_t)n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_sorted_pos, (size_t)n * sizeof(float4)));
    CUDA_TRY(cudaMalloc(&d_sorted_id, (size_t)n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_cell_of, (size_t)n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_counts, cell_bytes));
    CUDA_TRY(cudaMalloc(&d_start, cell_bytes));
    CUDA_TRY(cudaMalloc(&d_fill, cell_bytes));

    CUDA_TRY(cudaMemcpy(d_pos, pos, 3 * (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    // counts[ncells] stays 0, so start[ncells] = n closes the last cell
    CUDA_TRY(cudaMemset(d_counts, 0, cell_bytes));
    assign_cells<<<blocks, THREADS>>>(n, d_pos, cell, nc, d_cell_of, d_counts);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_counts, d_start, ncells + 1));
    CUDA_TRY(cudaMemcpy(d_fill, d_start, cell_bytes, cudaMemcpyDeviceToDevice));
    reorder<<<blocks, THREADS>>>(n, d_pos, d_cell_of, d_fill, d_sorted_pos, d_sorted_id);
    CUDA_TRY(cudaGetLastError());
    density_sorted<<<blocks, THREADS>>>(n, d_sorted_pos, d_sorted_id, d_start, cell, nc, h2, coef,
                                        d_density);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpy(density, d_density, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_temp);
    cudaFree(d_pos);
    cudaFree(d_density);
    cudaFree(d_sorted_pos);
    cudaFree(d_sorted_id);
    cudaFree(d_cell_of);
    cudaFree(d_counts);
    cudaFree(d_start);
    cudaFree(d_fill);
}
