#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/sort.h>
#include <thrust/execution_policy.h>

// Counts neighbours within radius h in 2-D: particles are binned into grid cells
// of size h by sorting on the cell id, so each query scans only 3x3 cells.
__global__ void cell_ids(const float* x, const float* y, int n, float h, int gdim, int* cell,
                         int* order) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = min((int)(x[i] / h), gdim - 1), cy = min((int)(y[i] / h), gdim - 1);
    cell[i] = cy * gdim + cx;
    order[i] = i;
}

__global__ void cell_bounds(const int* cell, int n, int* start, int* end) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (i == 0 || cell[i] != cell[i - 1]) start[cell[i]] = i;
    if (i == n - 1 || cell[i] != cell[i + 1]) end[cell[i]] = i + 1;
}

__global__ void count_neighbors(const float* x, const float* y, const int* order, const int* start,
                                const int* end, int n, float h, int gdim, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = min((int)(x[i] / h), gdim - 1), cy = min((int)(y[i] / h), gdim - 1);
    int c = 0;
    for (int oy = -1; oy <= 1; ++oy)
        for (int ox = -1; ox <= 1; ++ox) {
            int nx = cx + ox, ny = cy + oy;
            if (nx < 0 || ny < 0 || nx >= gdim || ny >= gdim) continue;
            int cid = ny * gdim + nx;
            for (int k = start[cid]; k < end[cid]; ++k) {
                int j = order[k];
                float dx = x[j] - x[i], dy = y[j] - y[i];
                if (j != i && dx * dx + dy * dy <= h * h) ++c;
            }
        }
    count[i] = c;
}

extern "C" void solution_compute(int n, const float* x, const float* y, float h, float box,
                                 int* count) {
    int gdim = (int)(box / h) + 1;
    float *dx, *dy;
    int *dcell, *dorder, *dstart, *dend, *dcount;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMalloc(&dcell, n * sizeof(int));
    cudaMalloc(&dorder, n * sizeof(int));
    cudaMalloc(&dstart, gdim * gdim * sizeof(int));
    cudaMalloc(&dend, gdim * gdim * sizeof(int));
    cudaMalloc(&dcount, n * sizeof(int));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dstart, 0, gdim * gdim * sizeof(int));
    cudaMemset(dend, 0, gdim * gdim * sizeof(int));
    int blocks = (n + 255) / 256;
    cell_ids<<<blocks, 256>>>(dx, dy, n, h, gdim, dcell, dorder);
    thrust::sort_by_key(thrust::device, dcell, dcell + n, dorder);  // expect: LBL-04
    cell_bounds<<<blocks, 256>>>(dcell, n, dstart, dend);
    count_neighbors<<<blocks, 256>>>(dx, dy, dorder, dstart, dend, n, h, gdim, dcount);
    cudaMemcpy(count, dcount, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy); cudaFree(dcell); cudaFree(dorder);
    cudaFree(dstart); cudaFree(dend); cudaFree(dcount);
}
