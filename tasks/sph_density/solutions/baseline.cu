// Baseline CUDA port of sph_density: cell ids, per-cell counts (atomics), an exclusive scan
// (CUB), a scatter into cell order, then one thread per particle searching the 27 cells.
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

__device__ int cell_coord(float v, float cell, int nc)
{
    int c = (int)(v / cell);
    return c < 0 ? 0 : (c >= nc ? nc - 1 : c);
}

__global__ void assign_cells(int n, const float* __restrict__ pos, float cell, int nc,
                             int* cell_of, int* counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = cell_coord(pos[3 * i], cell, nc) +
            nc * (cell_coord(pos[3 * i + 1], cell, nc) + nc * cell_coord(pos[3 * i + 2], cell, nc));
    cell_of[i] = c;
    atomicAdd(&counts[c], 1);
}

__global__ void scatter(int n, const int* __restrict__ cell_of, int* fill, int* order)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    order[atomicAdd(&fill[cell_of[i]], 1)] = i;
}

__global__ void density_kernel(int n, const float* __restrict__ pos, const int* __restrict__ start,
                               const int* __restrict__ order, float cell, int nc, float h2,
                               double coef, float* density)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
    int cx = cell_coord(xi, cell, nc), cy = cell_coord(yi, cell, nc), cz = cell_coord(zi, cell, nc);
    double sum = 0.0;
    for (int z = max(cz - 1, 0); z <= min(cz + 1, nc - 1); z++)
        for (int y = max(cy - 1, 0); y <= min(cy + 1, nc - 1); y++)
            for (int x = max(cx - 1, 0); x <= min(cx + 1, nc - 1); x++) {
                int c = x + nc * (y + nc * z);
                for (int k = start[c]; k < start[c + 1]; k++) {
                    int j = order[k];
                    float dx = pos[3 * j] - xi, dy = pos[3 * j + 1] - yi, dz = pos[3 * j + 2] - zi;
                    float r2 = dx * dx + dy * dy + dz * dz;
                    if (r2 < h2) {
                        float q = h2 - r2;
                        sum += (double)(q * q * q);
                    }
                }
            }
    density[i] = (float)(coef * sum);
}

extern "C" void solution_compute(int n, const float* pos, float h, float mass, float box,
                                 float* density)
{
    float *d_pos = nullptr, *d_den = nullptr;
    int *d_cell = nullptr, *d_counts = nullptr, *d_start = nullptr, *d_fill = nullptr;
    int* d_order = nullptr;
    void* d_tmp = nullptr;
    size_t tmp_bytes = 0;
    const int threads = 256;
    int blocks = (n + threads - 1) / threads;
    int nc = (int)(box / h);
    if (nc < 1) nc = 1;
    if (nc > 512) nc = 512;
    float cell = box / (float)nc, h2 = h * h;
    int ncells = nc * nc * nc;
    double h9 = (double)h * h * h * h * h * h * h * h * h;
    double coef = (double)mass * 315.0 / (64.0 * 3.14159265358979323846 * h9);
    if (n <= 0) return;
    CK(cudaMalloc(&d_pos, (size_t)n * 3 * sizeof(float)));
    CK(cudaMalloc(&d_den, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_cell, (size_t)n * sizeof(int)));
    CK(cudaMalloc(&d_order, (size_t)n * sizeof(int)));
    CK(cudaMalloc(&d_counts, (size_t)(ncells + 1) * sizeof(int)));
    CK(cudaMalloc(&d_start, (size_t)(ncells + 1) * sizeof(int)));
    CK(cudaMalloc(&d_fill, (size_t)(ncells + 1) * sizeof(int)));
    CK(cudaMemcpy(d_pos, pos, (size_t)n * 3 * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(d_counts, 0, (size_t)(ncells + 1) * sizeof(int)));
    assign_cells<<<blocks, threads>>>(n, d_pos, cell, nc, d_cell, d_counts);
    CK(cudaGetLastError());
    // start[c] = sum of counts before c; the extra last count (0) makes start[ncells] = n.
    CK(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, d_counts, d_start, ncells + 1));
    CK(cudaMalloc(&d_tmp, tmp_bytes));
    CK(cub::DeviceScan::ExclusiveSum(d_tmp, tmp_bytes, d_counts, d_start, ncells + 1));
    CK(cudaMemcpy(d_fill, d_start, (size_t)(ncells + 1) * sizeof(int), cudaMemcpyDeviceToDevice));
    scatter<<<blocks, threads>>>(n, d_cell, d_fill, d_order);
    CK(cudaGetLastError());
    density_kernel<<<blocks, threads>>>(n, d_pos, d_start, d_order, cell, nc, h2, coef, d_den);
    CK(cudaGetLastError());
    CK(cudaMemcpy(density, d_den, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_pos);
    cudaFree(d_den);
    cudaFree(d_cell);
    cudaFree(d_order);
    cudaFree(d_counts);
    cudaFree(d_start);
    cudaFree(d_fill);
    cudaFree(d_tmp);
}
