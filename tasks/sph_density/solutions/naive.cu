// SPH density on the GPU. The cell list is built like the reference's counting sort: the GPU
// finds each particle's cell and counts the cells, the counts come back to the host for the
// running sum, and the GPU then scatters the particle indices into cell order. Then one thread
// per particle runs the reference's 27-cell search.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e = (call);                                                       \
        if (e != cudaSuccess) {                                                       \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e),        \
                    __FILE__, __LINE__);                                              \
            goto cleanup;                                                             \
        }                                                                             \
    } while (0)

__device__ int cell_coord(float v, float cell, int nc)
{
    int c = (int)(v / cell);
    if (c < 0) c = 0;
    if (c >= nc) c = nc - 1;
    return c;
}

__global__ void find_cells(int n, const float* pos, float cell, int nc, int* cell_of, int* counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = cell_coord(pos[3 * i], cell, nc);
    int cy = cell_coord(pos[3 * i + 1], cell, nc);
    int cz = cell_coord(pos[3 * i + 2], cell, nc);
    cell_of[i] = cx + nc * (cy + nc * cz);
    atomicAdd(&counts[cell_of[i]], 1);
}

__global__ void scatter(int n, const int* cell_of, int* fill, int* order)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int slot = atomicAdd(&fill[cell_of[i]], 1);
    order[slot] = i;
}

__global__ void compute_density(int n, const float* pos, const int* start, const int* order,
                                float cell, int nc, float h2, double coef, float* density)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
    int cx = cell_coord(xi, cell, nc);
    int cy = cell_coord(yi, cell, nc);
    int cz = cell_coord(zi, cell, nc);
    double sum = 0.0;
    for (int z = cz - 1; z <= cz + 1; z++) {
        if (z < 0 || z >= nc) continue;
        for (int y = cy - 1; y <= cy + 1; y++) {
            if (y < 0 || y >= nc) continue;
            for (int x = cx - 1; x <= cx + 1; x++) {
                if (x < 0 || x >= nc) continue;
                int c = x + nc * (y + nc * z);
                for (int k = start[c]; k < start[c + 1]; k++) {
                    int j = order[k];
                    float dx = pos[3 * j] - xi;
                    float dy = pos[3 * j + 1] - yi;
                    float dz = pos[3 * j + 2] - zi;
                    float r2 = dx * dx + dy * dy + dz * dz;
                    if (r2 < h2) {
                        float q = h2 - r2;
                        sum += (double)(q * q * q);
                    }
                }
            }
        }
    }
    density[i] = (float)(coef * sum);
}

extern "C" void solution_compute(int n, const float* pos, float h, float mass, float box,
                                 float* density)
{
    const double pi = 3.14159265358979323846;
    int nc, ncells, threads = 256, blocks;
    float cell, h2;
    double h9, coef;
    float *d_pos = NULL, *d_density = NULL;
    int *d_cell_of = NULL, *d_counts = NULL, *d_start = NULL, *d_fill = NULL, *d_order = NULL;
    int *h_counts = NULL, *h_start = NULL;

    if (n <= 0) return;
    nc = (int)(box / h);
    if (nc < 1) nc = 1;
    if (nc > 512) nc = 512;
    cell = box / (float)nc;
    h2 = h * h;
    ncells = nc * nc * nc;
    h9 = (double)h * h * h * h * h * h * h * h * h;
    coef = (double)mass * 315.0 / (64.0 * pi * h9);
    blocks = (n + threads - 1) / threads;

    h_counts = (int*)malloc((size_t)ncells * sizeof(int));
    h_start = (int*)malloc(((size_t)ncells + 1) * sizeof(int));
    if (h_counts == NULL || h_start == NULL) goto cleanup;

    CHECK(cudaMalloc((void**)&d_pos, (size_t)n * 3 * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_density, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_cell_of, (size_t)n * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_order, (size_t)n * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_counts, (size_t)ncells * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_start, ((size_t)ncells + 1) * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_fill, (size_t)ncells * sizeof(int)));

    CHECK(cudaMemcpy(d_pos, pos, (size_t)n * 3 * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_counts, 0, (size_t)ncells * sizeof(int)));

    find_cells<<<blocks, threads>>>(n, d_pos, cell, nc, d_cell_of, d_counts);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    // running sum of the counts on the host, as in the reference
    CHECK(cudaMemcpy(h_counts, d_counts, (size_t)ncells * sizeof(int), cudaMemcpyDeviceToHost));
    h_start[0] = 0;
    for (int c = 0; c < ncells; c++) h_start[c + 1] = h_start[c] + h_counts[c];
    CHECK(cudaMemcpy(d_start, h_start, ((size_t)ncells + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_fill, h_start, (size_t)ncells * sizeof(int), cudaMemcpyHostToDevice));

    scatter<<<blocks, threads>>>(n, d_cell_of, d_fill, d_order);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    compute_density<<<blocks, threads>>>(n, d_pos, d_start, d_order, cell, nc, h2, coef, d_density);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(density, d_density, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_pos);
    cudaFree(d_density);
    cudaFree(d_cell_of);
    cudaFree(d_order);
    cudaFree(d_counts);
    cudaFree(d_start);
    cudaFree(d_fill);
    free(h_counts);
    free(h_start);
}
