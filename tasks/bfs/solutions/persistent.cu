// BFS levels in one cooperative launch: the grid (sized with the occupancy API so that every
// block is resident) initialises the levels, then runs level after level over frontier queues
// with a grid-wide barrier between levels, and stops on the device when a level discovers
// nothing. The host uploads the graph, launches once and copies the levels back.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdio>

namespace cg = cooperative_groups;

#define CHECK_CUDA(x)                                                                  \
    do {                                                                               \
        cudaError_t status_ = (x);                                                     \
        if (status_ != cudaSuccess) {                                                  \
            fprintf(stderr, "bfs: %s failed at line %d: %s\n", #x, __LINE__,            \
                    cudaGetErrorString(status_));                                      \
            goto out;                                                                  \
        }                                                                              \
    } while (0)

#define THREADS 256

// counts[d % 3] holds the size of frontier d; during level d the grid appends to
// counts[(d+1) % 3] and one thread clears counts[(d+2) % 3], whose readers (level d-1) are
// past the previous barrier.
__global__ void __launch_bounds__(THREADS)
bfs_all(int n, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, int source,
        int* levels, int* queue_a, int* queue_b, int* counts)
{
    cg::grid_group grid = cg::this_grid();
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;

    for (int v = tid; v < n; v += stride) levels[v] = -1;
    if (tid == 0) {
        counts[0] = 1;
        counts[1] = 0;
        counts[2] = 0;
        queue_a[0] = source;
    }
    grid.sync();
    if (tid == 0) levels[source] = 0;  // after the barrier: no thread still writes -1 there

    for (int depth = 0;; depth++) {
        const int* frontier = (depth & 1) ? queue_b : queue_a;
        int* next = (depth & 1) ? queue_a : queue_b;
        const int size = __ldcg(&counts[depth % 3]);
        if (size == 0) break;  // the same value in every thread
        if (tid == 0) counts[(depth + 2) % 3] = 0;
        int* next_count = &counts[(depth + 1) % 3];
        for (int i = tid; i < size; i += stride) {
            const int u = __ldcg(&frontier[i]);  // written by other blocks: bypass L1
            const int end = row_ptr[u + 1];
            for (int k = row_ptr[u]; k < end; k++) {
                const int v = col_idx[k];
                if (__ldcg(&levels[v]) == -1 && atomicCAS(&levels[v], -1, depth + 1) == -1)
                    next[atomicAdd(next_count, 1)] = v;
            }
        }
        grid.sync();
    }
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, int source,
                                 int* levels)
{
    int *d_ptr = nullptr, *d_col = nullptr, *d_lev = nullptr, *d_q = nullptr, *d_cnt = nullptr;
    int *qa = nullptr, *qb = nullptr;
    int m = 0, dev = 0, coop = 0, sms = 0, per_sm = 0, blocks = 0;
    void* args[8];

    if (n <= 0) return;
    m = row_ptr[n];
    if (source < 0 || source >= n) {  // nothing reachable: every level is -1
        for (int v = 0; v < n; v++) levels[v] = -1;
        return;
    }
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) {
        fprintf(stderr, "bfs: device cannot launch cooperative kernels\n");
        return;
    }
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bfs_all, THREADS, 0));
    blocks = sms * per_sm;
    if (blocks > (n + THREADS - 1) / THREADS) blocks = (n + THREADS - 1) / THREADS;
    if (blocks < 1) blocks = 1;

    CHECK_CUDA(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_col, (size_t)m * sizeof(int) + sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_lev, (size_t)n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_q, 2 * (size_t)n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_cnt, 3 * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(d_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_col, col_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    qa = d_q;
    qb = d_q + n;

    args[0] = &n; args[1] = &d_ptr; args[2] = &d_col; args[3] = &source;
    args[4] = &d_lev; args[5] = &qa; args[6] = &qb; args[7] = &d_cnt;
    CHECK_CUDA(cudaLaunchCooperativeKernel((void*)bfs_all, dim3(blocks), dim3(THREADS), args, 0, 0));
    CHECK_CUDA(cudaMemcpy(levels, d_lev, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));

out:
    cudaFree(d_ptr);
    cudaFree(d_col);
    cudaFree(d_lev);
    cudaFree(d_q);
    cudaFree(d_cnt);
}
