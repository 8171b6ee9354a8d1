#include <cuda_runtime.h>

// SPH-style density: particles are placed into grid cells by a counting sort
// (count per cell, prefix sum, scatter), so each particle scans only the 27
// neighbouring cells.
__device__ int cell_coord(float p, float h, int nc) {
    int c = (int)(p / h);
    return c < 0 ? 0 : (c >= nc ? nc - 1 : c);
}

__global__ void assign_cells(const float* pos, int n, float h, int nc, int* cell_of, int* counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = cell_coord(pos[3 * i], h, nc) +
            nc * (cell_coord(pos[3 * i + 1], h, nc) + nc * cell_coord(pos[3 * i + 2], h, nc));
    cell_of[i] = c;
    atomicAdd(&counts[c], 1);
}

__global__ void exclusive_offsets(const int* counts, int cells, int* start) {
    int acc = 0;
    for (int c = 0; c < cells; ++c) {
        start[c] = acc;
        acc += counts[c];
    }
    start[cells] = acc;
}

__global__ void place(const int* cell_of, int n, int* fill, int* order) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) order[atomicAdd(&fill[cell_of[i]], 1)] = i;  // expect: LBL-04
}

__global__ void density(const float* pos, const int* start, const int* order, int n, float h,
                        int nc, float* rho) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2], s = 0.0f;
    int cx = cell_coord(xi, h, nc), cy = cell_coord(yi, h, nc), cz = cell_coord(zi, h, nc);
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int x = cx + dx, y = cy + dy, z = cz + dz;
                if (x < 0 || y < 0 || z < 0 || x >= nc || y >= nc || z >= nc) continue;
                int c = x + nc * (y + nc * z);
                for (int k = start[c]; k < start[c + 1]; ++k) {
                    int j = order[k];
                    float rx = pos[3 * j] - xi, ry = pos[3 * j + 1] - yi, rz = pos[3 * j + 2] - zi;
                    float q = h * h - (rx * rx + ry * ry + rz * rz);
                    if (q > 0.0f) s += q * q * q;
                }
            }
    rho[i] = s;
}

extern "C" void solution_compute(int n, const float* pos, float h, float box, float* rho) {
    int nc = (int)(box / h) + 1, cells = nc * nc * nc, blocks = (n + 255) / 256;
    float *dpos, *drho;
    int *dcell, *dcount, *dstart, *dfill, *dorder;
    cudaMalloc(&dpos, 3 * (size_t)n * sizeof(float));
    cudaMalloc(&drho, n * sizeof(float));
    cudaMalloc(&dcell, n * sizeof(int));
    cudaMalloc(&dcount, cells * sizeof(int));
    cudaMalloc(&dstart, (cells + 1) * sizeof(int));
    cudaMalloc(&dfill, (cells + 1) * sizeof(int));
    cudaMalloc(&dorder, n * sizeof(int));
    cudaMemcpy(dpos, pos, 3 * (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dcount, 0, cells * sizeof(int));
    assign_cells<<<blocks, 256>>>(dpos, n, h, nc, dcell, dcount);
    exclusive_offsets<<<1, 1>>>(dcount, cells, dstart);
    cudaMemcpy(dfill, dstart, (cells + 1) * sizeof(int), cudaMemcpyDeviceToDevice);
    place<<<blocks, 256>>>(dcell, n, dfill, dorder);
    density<<<blocks, 256>>>(dpos, dstart, dorder, n, h, nc, drho);
    cudaMemcpy(rho, drho, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dpos); cudaFree(drho); cudaFree(dcell); cudaFree(dcount);
    cudaFree(dstart); cudaFree(dfill); cudaFree(dorder);
}
