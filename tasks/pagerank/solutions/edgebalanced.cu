// PageRank with the pull split by edges instead of by vertices: every thread takes the same
// number of consecutive in-edges (EPT), whatever rows they belong to, so long and short rows
// cost the same per thread. A thread's first row is found once per call by binary search in
// in_ptr; during an iteration the thread walks its edges, and each time it leaves a row it
// adds that row's partial sum into sums[v] with one atomic. A vertex kernel then forms the new
// ranks, the L1 change, and the next iteration's contributions and dangling mass.
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
constexpr int EPT = 16;  // in-edges per thread

__device__ double block_sum(double v, double* sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

// first_row[w]: the row holding edge w*EPT, i.e. the last v with in_ptr[v] <= w*EPT.
__global__ void find_rows(int n, int workers, const int* __restrict__ in_ptr,
                          int* __restrict__ first_row)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= workers) return;
    const long long e = (long long)w * EPT;
    int lo = 0, hi = n;  // in_ptr[lo] <= e < in_ptr[hi]
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (in_ptr[mid] <= e) lo = mid;
        else hi = mid;
    }
    first_row[w] = lo;
}

__global__ void setup(int n, const int* __restrict__ deg, float* __restrict__ rank,
                      float* __restrict__ contrib, double* dangling)
{
    __shared__ double sh[THREADS];
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    double dang = 0.0;
    if (u < n) {
        const float r = 1.0f / (float)n;
        const int d = deg[u];
        rank[u] = r;
        contrib[u] = d == 0 ? 0.0f : r / (float)d;
        if (d == 0) dang = r;
    }
    dang = block_sum(dang, sh);
    if (threadIdx.x == 0) atomicAdd(dangling, dang);
}

__global__ void edge_sums(int m, int workers, const int* __restrict__ in_ptr,
                          const int* __restrict__ in_idx, const int* __restrict__ first_row,
                          const float* __restrict__ contrib, float* __restrict__ sums)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= workers) return;
    int e = w * EPT;
    const int e_end = min(e + EPT, m);
    int v = first_row[w];
    int row_end = in_ptr[v + 1];
    float acc = 0.0f;
    for (; e < e_end; e++) {
        while (e >= row_end) {  // left row v (skipping rows without in-edges)
            if (acc != 0.0f) atomicAdd(&sums[v], acc);
            acc = 0.0f;
            v++;
            row_end = in_ptr[v + 1];
        }
        acc += contrib[in_idx[e]];
    }
    if (acc != 0.0f) atomicAdd(&sums[v], acc);
}

// acc[0]: L1 change; acc[1]: dangling mass of the new ranks (for the next iteration).
__global__ void vertex_update(int n, const int* __restrict__ deg, const float* __restrict__ sums,
                              const float* __restrict__ old_rank, float* __restrict__ new_rank,
                              float* __restrict__ contrib, float damping,
                              const double* __restrict__ dangling, double* acc)
{
    __shared__ double sh[THREADS];
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    double change = 0.0, dang = 0.0;
    if (v < n) {
        const float base = (1.0f - damping) / (float)n;
        const float share = (float)(*dangling / n);
        const float r = base + damping * (sums[v] + share);
        const int d = deg[v];
        new_rank[v] = r;
        contrib[v] = d == 0 ? 0.0f : r / (float)d;
        if (d == 0) dang = r;
        change = fabs((double)r - (double)old_rank[v]);
    }
    change = block_sum(change, sh);
    dang = block_sum(dang, sh);
    if (threadIdx.x == 0) {
        atomicAdd(&acc[0], change);
        atomicAdd(&acc[1], dang);
    }
}

extern "C" void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                                 float damping, float tol, int max_iters, float* rank)
{
    int *d_ptr = nullptr, *d_idx = nullptr, *d_deg = nullptr, *d_first = nullptr;
    float *d_cur = nullptr, *d_next = nullptr, *d_contrib = nullptr, *d_sums = nullptr;
    double* d_acc = nullptr;  // [it&1] holds: change, dangling of the ranks it produces
    double h_acc[2];
    int m = 0, workers = 0;
    const int vblocks = (n + THREADS - 1) / THREADS;

    if (n <= 0) return;
    m = in_ptr[n];
    workers = (int)(((long long)m + EPT - 1) / EPT);
    CK(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CK(cudaMalloc(&d_idx, (size_t)m * sizeof(int) + sizeof(int)));
    CK(cudaMalloc(&d_deg, (size_t)n * sizeof(int)));
    CK(cudaMalloc(&d_first, (size_t)workers * sizeof(int) + sizeof(int)));
    CK(cudaMalloc(&d_cur, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_next, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_contrib, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_sums, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_acc, 4 * sizeof(double)));
    CK(cudaMemcpy(d_ptr, in_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_idx, in_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_deg, out_deg, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(d_acc, 0, 4 * sizeof(double)));

    if (workers > 0) {
        find_rows<<<(workers + THREADS - 1) / THREADS, THREADS>>>(n, workers, d_ptr, d_first);
        CK(cudaGetLastError());
    }
    // the dangling mass of the start ranks goes where iteration 0 reads it: d_acc[1]
    setup<<<vblocks, THREADS>>>(n, d_deg, d_cur, d_contrib, d_acc + 1);
    CK(cudaGetLastError());

    for (int it = 0; it < max_iters; it++) {
        double* in_acc = d_acc + 2 * (it & 1);        // dangling of the current ranks at [1]
        double* out_acc = d_acc + 2 * ((it + 1) & 1);
        CK(cudaMemsetAsync(out_acc, 0, 2 * sizeof(double)));
        CK(cudaMemsetAsync(d_sums, 0, (size_t)n * sizeof(float)));
        if (workers > 0)
            edge_sums<<<(workers + THREADS - 1) / THREADS, THREADS>>>(m, workers, d_ptr, d_idx,
                                                                       d_first, d_contrib, d_sums);
        vertex_update<<<vblocks, THREADS>>>(n, d_deg, d_sums, d_cur, d_next, d_contrib, damping,
                                            in_acc + 1, out_acc);
        CK(cudaGetLastError());
        CK(cudaMemcpy(h_acc, out_acc, 2 * sizeof(double), cudaMemcpyDeviceToHost));
        float* t = d_cur;
        d_cur = d_next;
        d_next = t;
        if (h_acc[0] < tol) break;
    }
    CK(cudaMemcpy(rank, d_cur, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));

done:
    cudaFree(d_ptr);
    cudaFree(d_idx);
    cudaFree(d_deg);
    cudaFree(d_first);
    cudaFree(d_cur);
    cudaFree(d_next);
    cudaFree(d_contrib);
    cudaFree(d_sums);
    cudaFree(d_acc);
}
