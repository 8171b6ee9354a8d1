// SPH density arranged around the host link. The caller's position and density arrays are
// page-locked for the call (when they are big enough to be worth it) so the copies run as DMA;
// positions go up in chunks on several streams, each chunk binned into cells as soon as it has
// landed; after the cell starts are scanned and the particles placed in cell order, the
// densities are computed chunk by chunk in the caller's order and each chunk is copied back
// while the next ones are still computing. Kernels are kept simple.
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
constexpr int NSTREAMS = 4;
constexpr int CHUNKS = 8;
constexpr size_t PIN_MIN_BYTES = 1 << 20;   // below this, pinning costs more than it saves

__device__ int cell_coord(float v, float cell, int nc)
{
    const int c = (int)(v / cell);
    return c < 0 ? 0 : (c >= nc ? nc - 1 : c);
}

__global__ void bin_chunk(int i0, int i1, const float* __restrict__ pos, float cell, int nc,
                          int* counts, int2* __restrict__ cell_rank)
{
    const int i = i0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= i1) return;
    const int c = cell_coord(pos[3 * (size_t)i], cell, nc) +
                  nc * (cell_coord(pos[3 * (size_t)i + 1], cell, nc) +
                        nc * cell_coord(pos[3 * (size_t)i + 2], cell, nc));
    cell_rank[i] = make_int2(c, atomicAdd(&counts[c], 1));
}

__global__ void place(int n, const float* __restrict__ pos, const int2* __restrict__ cell_rank,
                      const int* __restrict__ start, float4* __restrict__ sorted)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int2 cr = cell_rank[i];
    sorted[start[cr.x] + cr.y] =
        make_float4(pos[3 * (size_t)i], pos[3 * (size_t)i + 1], pos[3 * (size_t)i + 2], 0.0f);
}

__global__ void density_chunk(int i0, int i1, const float* __restrict__ pos,
                              const float4* __restrict__ sorted, const int* __restrict__ start,
                              float cell, int nc, float h2, double coef,
                              float* __restrict__ density)
{
    const int i = i0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= i1) return;
    const float xi = pos[3 * (size_t)i], yi = pos[3 * (size_t)i + 1], zi = pos[3 * (size_t)i + 2];
    const int cx = cell_coord(xi, cell, nc), cy = cell_coord(yi, cell, nc);
    const int cz = cell_coord(zi, cell, nc);
    double sum = 0.0;
    for (int z = max(cz - 1, 0); z <= min(cz + 1, nc - 1); z++)
        for (int y = max(cy - 1, 0); y <= min(cy + 1, nc - 1); y++)
            for (int x = max(cx - 1, 0); x <= min(cx + 1, nc - 1); x++) {
                const int c = x + nc * (y + nc * z);
                for (int m = start[c]; m < start[c + 1]; m++) {
                    const float4 q4 = sorted[m];
                    const float dx = q4.x - xi, dy = q4.y - yi, dz = q4.z - zi;
                    const float r2 = dx * dx + dy * dy + dz * dz;
                    if (r2 < h2) {
                        const float q = h2 - r2;
                        sum += (double)(q * q * q);
                    }
                }
            }
    density[i] = (float)(coef * sum);
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
    const size_t pos_bytes = 3 * (size_t)n * sizeof(float);
    const size_t den_bytes = (size_t)n * sizeof(float);
    const int chunk = (n + CHUNKS - 1) / CHUNKS;

    cudaStream_t st[NSTREAMS] = {};
    cudaEvent_t ready = nullptr, binned[NSTREAMS] = {}, placed = nullptr;
    bool pos_pinned = false, den_pinned = false;
    float *d_pos = nullptr, *d_density = nullptr;
    float4* d_sorted = nullptr;
    int2* d_cell_rank = nullptr;
    int *d_counts = nullptr, *d_start = nullptr;
    void* d_temp = nullptr;
    size_t temp_bytes = 0;

    if (pos_bytes >= PIN_MIN_BYTES) {
        // read-only use: registering does not change the caller's data
        pos_pinned = cudaHostRegister(const_cast<float*>(pos), pos_bytes,
                                      cudaHostRegisterDefault) == cudaSuccess;
        den_pinned = cudaHostRegister(density, den_bytes, cudaHostRegisterDefault) == cudaSuccess;
        cudaGetLastError();   // a failed registration only means pageable copies
    }
    for (int s = 0; s < NSTREAMS; s++) {
        CK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&binned[s], cudaEventDisableTiming));
    }
    CK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&placed, cudaEventDisableTiming));

    CK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_counts, d_start, ncells + 1, st[0]));
    CK(cudaMallocAsync(&d_temp, temp_bytes, st[0]));
    CK(cudaMallocAsync(&d_pos, pos_bytes, st[0]));
    CK(cudaMallocAsync(&d_density, den_bytes, st[0]));
    CK(cudaMallocAsync(&d_sorted, (size_t)n * sizeof(float4), st[0]));
    CK(cudaMallocAsync(&d_cell_rank, (size_t)n * sizeof(int2), st[0]));
    CK(cudaMallocAsync(&d_counts, cell_bytes, st[0]));
    CK(cudaMallocAsync(&d_start, cell_bytes, st[0]));
    CK(cudaMemsetAsync(d_counts, 0, cell_bytes, st[0]));
    CK(cudaEventRecord(ready, st[0]));

    // upload and bin, chunk by chunk
    for (int c = 0; c * chunk < n; c++) {
        cudaStream_t s = st[c % NSTREAMS];
        const int i0 = c * chunk, i1 = (i0 + chunk < n) ? i0 + chunk : n;
        CK(cudaStreamWaitEvent(s, ready, 0));
        CK(cudaMemcpyAsync(d_pos + 3 * (size_t)i0, pos + 3 * (size_t)i0,
                           3 * (size_t)(i1 - i0) * sizeof(float), cudaMemcpyHostToDevice, s));
        bin_chunk<<<(i1 - i0 + THREADS - 1) / THREADS, THREADS, 0, s>>>(i0, i1, d_pos, cell, nc,
                                                                      d_counts, d_cell_rank);
        CK(cudaGetLastError());
    }
    for (int s = 1; s < NSTREAMS; s++) {
        CK(cudaEventRecord(binned[s], st[s]));
        CK(cudaStreamWaitEvent(st[0], binned[s], 0));
    }

    // cell starts and the sorted copy of the positions
    CK(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_counts, d_start, ncells + 1, st[0]));
    place<<<(n + THREADS - 1) / THREADS, THREADS, 0, st[0]>>>(n, d_pos, d_cell_rank, d_start,
                                                            d_sorted);
    CK(cudaGetLastError());
    CK(cudaEventRecord(placed, st[0]));

    // densities, chunk by chunk, each chunk going home behind its kernel
    for (int c = 0; c * chunk < n; c++) {
        cudaStream_t s = st[c % NSTREAMS];
        const int i0 = c * chunk, i1 = (i0 + chunk < n) ? i0 + chunk : n;
        CK(cudaStreamWaitEvent(s, placed, 0));
        density_chunk<<<(i1 - i0 + THREADS - 1) / THREADS, THREADS, 0, s>>>(
            i0, i1, d_pos, d_sorted, d_start, cell, nc, h2, coef, d_density);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(density + i0, d_density + i0, (size_t)(i1 - i0) * sizeof(float),
                           cudaMemcpyDeviceToHost, s));
    }
    for (int s = 0; s < NSTREAMS; s++) CK(cudaStreamSynchronize(st[s]));

done:
    for (int s = 0; s < NSTREAMS; s++)
        if (st[s]) cudaStreamSynchronize(st[s]);
    if (st[0]) {
        void* bufs[] = {d_temp, d_pos, d_density, d_sorted, d_cell_rank, d_counts, d_start};
        for (void* b : bufs)
            if (b) cudaFreeAsync(b, st[0]);
        cudaStreamSynchronize(st[0]);
    }
    for (int s = 0; s < NSTREAMS; s++) {
        if (binned[s]) cudaEventDestroy(binned[s]);
        if (st[s]) cudaStreamDestroy(st[s]);
    }
    if (ready) cudaEventDestroy(ready);
    if (placed) cudaEventDestroy(placed);
    if (pos_pinned) cudaHostUnregister(const_cast<float*>(pos));
    if (den_pinned) cudaHostUnregister(density);
}
