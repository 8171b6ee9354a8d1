// 0/1 knapsack in one cooperative launch: the whole item loop runs on the device.
//
// The grid is sized to be fully resident, so a grid-wide barrier can separate one item's pass
// from the next without going back to the host. Each thread updates capacities in a
// grid-stride loop, reading the previous row and writing the other buffer; the buffers swap
// after every barrier. Item weights and values are brought into shared memory a tile at a time.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
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
constexpr int TILE = 1024;  // items staged in shared memory at a time

__global__ void __launch_bounds__(THREADS)
knapsack_persistent(int capacity, int n_items, const int* __restrict__ weights,
                    const int* __restrict__ values, int* row0, int* row1)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ int tile_w[TILE];
    __shared__ int tile_v[TILE];
    const int tid = blockIdx.x * THREADS + threadIdx.x;
    const int stride = gridDim.x * THREADS;
    int* src = row0;  // rows are written inside this kernel: plain (coherent) loads only
    int* dst = row1;
    for (int first = 0; first < n_items; first += TILE) {
        const int count = n_items - first < TILE ? n_items - first : TILE;
        __syncthreads();  // everyone is done with the previous tile
        for (int k = threadIdx.x; k < count; k += THREADS) {
            tile_w[k] = weights[first + k];
            tile_v[k] = values[first + k];
        }
        __syncthreads();
        for (int k = 0; k < count; k++) {
            const int w = tile_w[k], v = tile_v[k];
            for (int c = tid; c <= capacity; c += stride) {
                int keep = src[c];
                if (c >= w) {
                    const int take = src[c - w] + v;
                    if (take > keep) keep = take;
                }
                dst[c] = keep;
            }
            grid.sync();
            int* t = src;
            src = dst;
            dst = t;
        }
    }
}

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    int *d_w = nullptr, *d_v = nullptr, *d_rows = nullptr;
    int dev = 0, sms = 0, per_sm = 0, grid = 0, needed = 0;
    size_t row_bytes = 0;
    if (capacity < 0) return;
    row_bytes = (size_t)(capacity + 1) * sizeof(int);
    CK(cudaMalloc(&d_rows, 2 * row_bytes));
    CK(cudaMemset(d_rows, 0, row_bytes));
    if (n_items > 0) {
        CK(cudaMalloc(&d_w, (size_t)n_items * sizeof(int)));
        CK(cudaMalloc(&d_v, (size_t)n_items * sizeof(int)));
        CK(cudaMemcpy(d_w, weights, (size_t)n_items * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_v, values, (size_t)n_items * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, knapsack_persistent, THREADS, 0));
        needed = (capacity + THREADS) / THREADS;
        grid = sms * (per_sm > 0 ? per_sm : 1);
        if (grid > needed) grid = needed;
        int* row0 = d_rows;
        int* row1 = d_rows + (capacity + 1);
        void* args[] = {&capacity, &n_items, &d_w, &d_v, &row0, &row1};
        CK(cudaLaunchCooperativeKernel((void*)knapsack_persistent, grid, THREADS, args, 0, 0));
    }
    CK(cudaMemcpy(best, d_rows + (n_items > 0 && n_items % 2 ? capacity + 1 : 0), row_bytes,
                  cudaMemcpyDeviceToHost));
done:
    cudaFree(d_w);
    cudaFree(d_v);
    cudaFree(d_rows);
}
