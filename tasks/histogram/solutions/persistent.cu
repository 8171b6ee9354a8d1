// histogram in a single cooperative launch and no memsets: the resident blocks first clear the
// output and the tile counter, grid.sync(), then pull 8K-key tiles from the counter until the
// keys run out (blocks that get faster tiles simply take more), counting into a block-private
// shared-memory histogram that is merged once at the end. Too many bins for shared memory:
// the same loop adds straight into the global histogram.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "histogram: %s -> %s\n", #call, cudaGetErrorString(e_));      \
            goto cleanup;                                                                 \
        }                                                                                 \
    } while (0)

constexpr int THREADS = 512;
constexpr long long TILE = 8192;  // keys per work item

__global__ void __launch_bounds__(THREADS)
hist_persistent(const int* __restrict__ keys, long long n, int num_bins, int use_shared,
                unsigned int* hist, unsigned long long* next_tile)
{
    cg::grid_group grid = cg::this_grid();
    extern __shared__ unsigned int local[];
    __shared__ unsigned long long tile;

    const long long gstride = (long long)gridDim.x * THREADS;
    for (long long b = (long long)blockIdx.x * THREADS + threadIdx.x; b < num_bins; b += gstride) hist[b] = 0u;
    if (blockIdx.x == 0 && threadIdx.x == 0) *next_tile = 0ull;
    if (use_shared)
        for (int b = threadIdx.x; b < num_bins; b += THREADS) local[b] = 0u;
    grid.sync();

    unsigned int* target = use_shared ? local : hist;
    const unsigned long long tiles = (unsigned long long)((n + TILE - 1) / TILE);
    for (;;) {
        if (threadIdx.x == 0) tile = atomicAdd(next_tile, 1ull);
        __syncthreads();
        const unsigned long long t = tile;
        __syncthreads();  // everyone has read it before thread 0 overwrites it
        if (t >= tiles) break;
        const long long begin = (long long)t * TILE;
        const long long end = begin + TILE < n ? begin + TILE : n;
        for (long long i = begin + threadIdx.x; i < end; i += THREADS) atomicAdd(target + keys[i], 1u);
    }

    if (use_shared) {
        __syncthreads();
        for (int b = threadIdx.x; b < num_bins; b += THREADS)
            if (local[b]) atomicAdd(hist + b, local[b]);
    }
}

extern "C" void solution_compute(const int* keys, int n, int num_bins, unsigned int* hist)
{
    if (num_bins <= 0) return;
    long long count = n > 0 ? n : 0;
    const size_t key_bytes = (size_t)count * sizeof(int);
    const size_t hist_bytes = (size_t)num_bins * sizeof(unsigned int);
    int* d_keys = nullptr;
    unsigned int* d_hist = nullptr;
    unsigned long long* d_next = nullptr;
    int dev = 0, sms = 0, coop = 0, smem_optin = 0, per_sm = 0, blocks = 0, use_shared = 0;
    size_t smem = 0;
    void* args[6];

    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (!coop) {
        fprintf(stderr, "histogram: no cooperative launch on this device\n");
        return;
    }
    // leave room for the kernel's own static shared memory
    use_shared = hist_bytes + 1024 <= (size_t)smem_optin;
    smem = use_shared ? hist_bytes : 0;
    CK(cudaFuncSetAttribute(hist_persistent, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hist_persistent, THREADS, smem));
    blocks = per_sm * sms;  // every block resident, as grid.sync() needs
    if (blocks < 1) {
        fprintf(stderr, "histogram: kernel does not fit on an SM\n");
        return;
    }

    CK(cudaMalloc(&d_keys, key_bytes + sizeof(int)));
    CK(cudaMalloc(&d_hist, hist_bytes));
    CK(cudaMalloc(&d_next, sizeof(unsigned long long)));
    CK(cudaMemcpy(d_keys, keys, key_bytes, cudaMemcpyHostToDevice));

    args[0] = &d_keys;
    args[1] = &count;
    args[2] = &num_bins;
    args[3] = &use_shared;
    args[4] = &d_hist;
    args[5] = &d_next;
    CK(cudaLaunchCooperativeKernel((void*)hist_persistent, dim3(blocks), dim3(THREADS), args, smem, 0));
    CK(cudaGetLastError());
    CK(cudaMemcpy(hist, d_hist, hist_bytes, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_keys);
    cudaFree(d_hist);
    cudaFree(d_next);
}
