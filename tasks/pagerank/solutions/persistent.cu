// PageRank in one cooperative launch: the grid (as many blocks as fit on the GPU at once, from
// the occupancy API) runs every iteration itself, with grid-wide barriers between the
// contribution phase and the pull phase, and tests convergence on the device. The host only
// uploads the graph, launches once and copies the ranks back.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdio>

namespace cg = cooperative_groups;

#define CHECK_CUDA(x)                                                                  \
    do {                                                                               \
        cudaError_t status_ = (x);                                                     \
        if (status_ != cudaSuccess) {                                                  \
            fprintf(stderr, "pagerank: %s failed at line %d: %s\n", #x, __LINE__,       \
                    cudaGetErrorString(status_));                                      \
            goto out;                                                                  \
        }                                                                              \
    } while (0)

#define THREADS 256

__device__ double block_reduce(double v, double* scratch)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = threadIdx.x < THREADS / 32 ? scratch[threadIdx.x] : 0.0;
    if (warp == 0)
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    __syncthreads();  // scratch is reused by the next call
    return v;         // valid in thread 0
}

// sums[3][2]: per iteration slot (it % 3) the dangling mass and the L1 change. Slot it+1 is
// cleared during iteration it; its last readers finished before the previous grid barrier.
__global__ void __launch_bounds__(THREADS)
pagerank_all(int n, const int* __restrict__ in_ptr, const int* __restrict__ in_idx,
             const int* __restrict__ out_deg, float* rank_a, float* rank_b, float* contrib,
             float damping, double tol, int max_iters, double* sums, int* result_in_b)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ double scratch[THREADS / 32];
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const float base = (1.0f - damping) / (float)n;

    for (int v = tid; v < n; v += stride) rank_a[v] = 1.0f / (float)n;
    grid.sync();

    float* cur = rank_a;
    float* nxt = rank_b;
    int in_b = 0;
    for (int it = 0; it < max_iters; it++) {
        double* slot = sums + 2 * (it % 3);
        if (tid == 0) {
            double* clear = sums + 2 * ((it + 1) % 3);
            clear[0] = 0.0;
            clear[1] = 0.0;
        }
        // contributions and dangling mass
        double dang = 0.0;
        for (int u = tid; u < n; u += stride) {
            const int d = out_deg[u];
            const float r = __ldcg(cur + u);  // written by other blocks: skip L1
            contrib[u] = d == 0 ? 0.0f : r / (float)d;
            if (d == 0) dang += r;
        }
        dang = block_reduce(dang, scratch);
        if (threadIdx.x == 0) atomicAdd(&slot[0], dang);
        grid.sync();

        // pull over in-edges and L1 change
        const float dang_share = (float)(__ldcg(&slot[0]) / n);
        double change = 0.0;
        for (int v = tid; v < n; v += stride) {
            float sum = 0.0f;
            const int end = in_ptr[v + 1];
            for (int k = in_ptr[v]; k < end; k++) sum += __ldcg(contrib + in_idx[k]);
            const float r = base + damping * (sum + dang_share);
            nxt[v] = r;
            change += fabs((double)r - (double)__ldcg(cur + v));
        }
        change = block_reduce(change, scratch);
        if (threadIdx.x == 0) atomicAdd(&slot[1], change);
        grid.sync();

        float* t = cur;
        cur = nxt;
        nxt = t;
        in_b ^= 1;
        if (__ldcg(&slot[1]) < tol) break;  // every thread reads the same total
    }
    if (tid == 0) *result_in_b = in_b;
}

extern "C" void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                                 float damping, float tol, int max_iters, float* rank)
{
    int *d_ptr = nullptr, *d_idx = nullptr, *d_deg = nullptr, *d_flag = nullptr;
    float *d_a = nullptr, *d_b = nullptr, *d_contrib = nullptr;
    double* d_sums = nullptr;
    int m = 0, dev = 0, coop = 0, sms = 0, per_sm = 0, blocks = 0, in_b = 0;
    double tol_d = tol;
    void* args[12];

    if (n <= 0) return;
    m = in_ptr[n];
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) {
        fprintf(stderr, "pagerank: device cannot launch cooperative kernels\n");
        return;
    }
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pagerank_all, THREADS, 0));
    blocks = sms * per_sm;  // every block must be resident for grid.sync
    if (blocks > (n + THREADS - 1) / THREADS) blocks = (n + THREADS - 1) / THREADS;
    if (blocks < 1) blocks = 1;

    CHECK_CUDA(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_idx, (size_t)m * sizeof(int) + sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_deg, (size_t)n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_a, (size_t)n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_b, (size_t)n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_contrib, (size_t)n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_sums, 6 * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&d_flag, sizeof(int)));
    CHECK_CUDA(cudaMemset(d_sums, 0, 6 * sizeof(double)));
    CHECK_CUDA(cudaMemcpy(d_ptr, in_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_idx, in_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_deg, out_deg, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));

    args[0] = &n; args[1] = &d_ptr; args[2] = &d_idx; args[3] = &d_deg; args[4] = &d_a;
    args[5] = &d_b; args[6] = &d_contrib; args[7] = &damping; args[8] = &tol_d;
    args[9] = &max_iters; args[10] = &d_sums; args[11] = &d_flag;
    CHECK_CUDA(cudaLaunchCooperativeKernel((void*)pagerank_all, dim3(blocks), dim3(THREADS), args,
                                           0, 0));
    CHECK_CUDA(cudaMemcpy(&in_b, d_flag, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(rank, in_b ? d_b : d_a, (size_t)n * sizeof(float),
                          cudaMemcpyDeviceToHost));

out:
    cudaFree(d_ptr);
    cudaFree(d_idx);
    cudaFree(d_deg);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_contrib);
    cudaFree(d_sums);
    cudaFree(d_flag);
}
