// Particle binning per time step; scratch comes from the stream-ordered pool, so the
// per-step cudaMallocAsync recycles the same memory instead of calling the driver.
#include <cuda_runtime.h>
#include <cstdint>

__global__ void count_cells(const float* x, const float* y, int n, int cells, float inv_h, int* counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = min(cells - 1, (int)(x[i] * inv_h));
    int cy = min(cells - 1, (int)(y[i] * inv_h));
    atomicAdd(&counts[cy * cells + cx], 1);
}

__global__ void drift(float* x, float* y, const float* vx, const float* vy, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] = fminf(fmaxf(x[i] + dt * vx[i], 0.0f), 0.999f);
    y[i] = fminf(fmaxf(y[i] + dt * vy[i], 0.0f), 0.999f);
}

__global__ void accumulate(const int* counts, int ncell, int* occupancy) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < ncell) occupancy[c] += counts[c];
}

extern "C" void solution_compute(int n, int steps, int cells, float dt, const float* px,
                                 const float* py, const float* vx, const float* vy, int* occupancy) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMemPool_t pool;
    cudaDeviceGetDefaultMemPool(&pool, 0);
    uint64_t keep = UINT64_MAX;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);

    float *d_x, *d_y, *d_vx, *d_vy;
    int* d_occ;
    size_t fb = n * sizeof(float);
    int ncell = cells * cells;
    cudaMalloc(&d_x, fb);  // expect: HST-01
    cudaMalloc(&d_y, fb);  // expect: HST-01
    cudaMalloc(&d_vx, fb);  // expect: HST-01
    cudaMalloc(&d_vy, fb);  // expect: HST-01
    cudaMalloc(&d_occ, ncell * sizeof(int));  // expect: HST-01
    cudaMemcpy(d_x, px, fb, cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, py, fb, cudaMemcpyHostToDevice);
    cudaMemcpy(d_vx, vx, fb, cudaMemcpyHostToDevice);
    cudaMemcpy(d_vy, vy, fb, cudaMemcpyHostToDevice);
    cudaMemset(d_occ, 0, ncell * sizeof(int));

    int threads = 256;
    for (int t = 0; t < steps; ++t) {
        int* d_counts;
        cudaMallocAsync(&d_counts, ncell * sizeof(int), s);  // expect: HST-01
        cudaMemsetAsync(d_counts, 0, ncell * sizeof(int), s);
        drift<<<(n + threads - 1) / threads, threads, 0, s>>>(d_x, d_y, d_vx, d_vy, n, dt);
        count_cells<<<(n + threads - 1) / threads, threads, 0, s>>>(d_x, d_y, n, cells, (float)cells, d_counts);
        accumulate<<<(ncell + threads - 1) / threads, threads, 0, s>>>(d_counts, ncell, d_occ);
        cudaFreeAsync(d_counts, s);
    }
    cudaMemcpyAsync(occupancy, d_occ, ncell * sizeof(int), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    cudaFree(d_x); cudaFree(d_y); cudaFree(d_vx); cudaFree(d_vy); cudaFree(d_occ);
    cudaStreamDestroy(s);
}
