// PageRank, one kernel per iteration: the pull over in-edges (LANES threads per vertex,
// summed with shuffles) accumulates the L1 change and
// also produces the next iteration's contributions and dangling sum from each new rank (the
// contribution kernel runs once, for the start ranks); device buffers allocated
// once; the stopping test runs on the device, so all iterations are queued without waiting
// and only the ranks come back.
#include <cuda_runtime.h>
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
constexpr int LANES = 32;  // threads per vertex in the pull

__device__ void block_add(double value, double* target)
{
    __shared__ double part[THREADS];
    part[threadIdx.x] = value;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(target, part[0]);
}

__global__ void init_rank(int n, float* rank)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) rank[v] = 1.0f / (float)n;
}

__global__ void contributions(int n, const int* __restrict__ out_deg,
                              const float* __restrict__ rank, float* __restrict__ contrib,
                              double* sums, const int* state)
{
    if (state[0]) return;  // converged earlier
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    double dang = 0.0;
    if (u < n) {
        int d = out_deg[u];
        contrib[u] = d == 0 ? 0.0f : rank[u] / (float)d;
        if (d == 0) dang = rank[u];
    }
    block_add(dang, &sums[0]);
}

// sums: [0] dangling of old_rank, [1] change; next_sums[0]: dangling of new_rank
__global__ void pull(int n, const int* __restrict__ in_ptr, const int* __restrict__ in_idx,
                     const int* __restrict__ out_deg, const float* __restrict__ contrib,
                     float* __restrict__ next_contrib, const float* __restrict__ old_rank,
                     float* __restrict__ new_rank, float damping, double* sums,
                     double* next_sums, const int* state)
{
    if (state[0]) return;
    const int v = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) / LANES);
    const int lane = threadIdx.x % LANES;
    double c = 0.0, dang = 0.0;
    float sum = 0.0f;
    if (v < n)
        for (int k = in_ptr[v] + lane; k < in_ptr[v + 1]; k += LANES) sum += contrib[in_idx[k]];
    // every lane of the warp takes part, also those past n
    for (int off = LANES / 2; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, off, LANES);
    if (v < n && lane == 0) {
        float base = (1.0f - damping) / (float)n;
        float dang_share = (float)(sums[0] / n);
        float r = base + damping * (sum + dang_share);
        new_rank[v] = r;
        c = fabs((double)r - (double)old_rank[v]);
        int d = out_deg[v];
        next_contrib[v] = d == 0 ? 0.0f : r / (float)d;
        if (d == 0) dang = r;
    }
    block_add(c, &sums[1]);
    block_add(dang, &next_sums[0]);
}

// state[0]: converged; state[1]: iterations run.
__global__ void check(const double* sums, double tol, int it, int* state)
{
    if (state[0]) return;
    state[1] = it + 1;
    if (sums[1] < tol) state[0] = 1;
}

extern "C" void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                                 float damping, float tol, int max_iters, float* rank)
{
    int *d_ptr = nullptr, *d_idx = nullptr, *d_deg = nullptr;
    float *d_rank = nullptr, *d_contrib = nullptr;
    float* bufs[2] = {nullptr, nullptr};  // iteration it reads bufs[it & 1], writes the other
    float* cbufs[2] = {nullptr, nullptr}; // contributions, likewise
    double* d_sums = nullptr;             // two slots of (dangling, change), by iteration parity
    int* d_state = nullptr;
    int state[2] = {0, 0};
    int m = 0, ran = 0;
    const int blocks = (n + THREADS - 1) / THREADS;
    const int pull_blocks = (int)(((long long)n * LANES + THREADS - 1) / THREADS);
    if (n <= 0) return;
    m = in_ptr[n];
    CK(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CK(cudaMalloc(&d_idx, (size_t)m * sizeof(int) + sizeof(int)));
    CK(cudaMalloc(&d_deg, (size_t)n * sizeof(int)));
    CK(cudaMalloc(&d_rank, 2 * (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_contrib, 2 * (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_sums, 4 * sizeof(double)));
    CK(cudaMalloc(&d_state, 2 * sizeof(int)));
    CK(cudaMemset(d_state, 0, 2 * sizeof(int)));
    bufs[0] = d_rank;
    bufs[1] = d_rank + n;
    cbufs[0] = d_contrib;
    cbufs[1] = d_contrib + n;
    CK(cudaMemcpy(d_ptr, in_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_idx, in_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_deg, out_deg, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    init_rank<<<blocks, THREADS>>>(n, bufs[0]);
    CK(cudaMemsetAsync(d_sums, 0, 4 * sizeof(double)));
    contributions<<<blocks, THREADS>>>(n, d_deg, bufs[0], cbufs[0], d_sums, d_state);
    CK(cudaGetLastError());
    for (int it = 0; it < max_iters; it++) {
        float* cur = bufs[it & 1];
        float* nxt = bufs[(it + 1) & 1];
        double* s_cur = d_sums + 2 * (it & 1);
        double* s_nxt = d_sums + 2 * ((it + 1) & 1);
        CK(cudaMemsetAsync(s_nxt, 0, 2 * sizeof(double)));
        pull<<<pull_blocks, THREADS>>>(n, d_ptr, d_idx, d_deg, cbufs[it & 1],
                                  cbufs[(it + 1) & 1], cur, nxt, damping, s_cur, s_nxt, d_state);
        check<<<1, 1>>>(s_cur, (double)tol, it, d_state);
        CK(cudaGetLastError());
    }
    CK(cudaMemcpy(state, d_state, 2 * sizeof(int), cudaMemcpyDeviceToHost));
    ran = state[1];
    CK(cudaMemcpy(rank, bufs[ran & 1], (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_ptr);
    cudaFree(d_idx);
    cudaFree(d_deg);
    cudaFree(d_rank);
    cudaFree(d_contrib);
    cudaFree(d_sums);
    cudaFree(d_state);
}
