// PageRank, three kernels per iteration (contributions with the dangling sum, the pull over
// in-edges, the L1 change), device buffers allocated once; the change is copied to the host
// after every iteration for the stopping test.
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
                              double* sums)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    double dang = 0.0;
    if (u < n) {
        int d = out_deg[u];
        contrib[u] = d == 0 ? 0.0f : rank[u] / (float)d;
        if (d == 0) dang = rank[u];
    }
    block_add(dang, &sums[0]);
}

__global__ void pull(int n, const int* __restrict__ in_ptr, const int* __restrict__ in_idx,
                     const float* __restrict__ contrib, float* __restrict__ new_rank,
                     float damping, const double* sums)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        float base = (1.0f - damping) / (float)n;
        float dang_share = (float)(sums[0] / n);
        float sum = 0.0f;
        for (int k = in_ptr[v]; k < in_ptr[v + 1]; k++) sum += contrib[in_idx[k]];
        new_rank[v] = base + damping * (sum + dang_share);
    }
}

__global__ void change(int n, const float* __restrict__ new_rank,
                       const float* __restrict__ old_rank, double* sums)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    double c = 0.0;
    if (v < n) c = fabs((double)new_rank[v] - (double)old_rank[v]);
    block_add(c, &sums[1]);
}

extern "C" void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                                 float damping, float tol, int max_iters, float* rank)
{
    int *d_ptr = nullptr, *d_idx = nullptr, *d_deg = nullptr;
    float *d_rank = nullptr, *d_contrib = nullptr;
    float* bufs[2] = {nullptr, nullptr};  // iteration it reads bufs[it & 1], writes the other
    double* d_sums = nullptr;
    double sums[2] = {0.0, 0.0};
    int m = 0, ran = 0;
    const int blocks = (n + THREADS - 1) / THREADS;
    if (n <= 0) return;
    m = in_ptr[n];
    CK(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CK(cudaMalloc(&d_idx, (size_t)m * sizeof(int) + sizeof(int)));
    CK(cudaMalloc(&d_deg, (size_t)n * sizeof(int)));
    CK(cudaMalloc(&d_rank, 2 * (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_contrib, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&d_sums, 2 * sizeof(double)));
    bufs[0] = d_rank;
    bufs[1] = d_rank + n;
    CK(cudaMemcpy(d_ptr, in_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_idx, in_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_deg, out_deg, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    init_rank<<<blocks, THREADS>>>(n, bufs[0]);
    CK(cudaGetLastError());
    for (int it = 0; it < max_iters; it++) {
        float* cur = bufs[it & 1];
        float* nxt = bufs[(it + 1) & 1];
        CK(cudaMemsetAsync(d_sums, 0, 2 * sizeof(double)));
        contributions<<<blocks, THREADS>>>(n, d_deg, cur, d_contrib, d_sums);
        pull<<<blocks, THREADS>>>(n, d_ptr, d_idx, d_contrib, nxt, damping, d_sums);
        change<<<blocks, THREADS>>>(n, nxt, cur, d_sums);
        CK(cudaGetLastError());
        CK(cudaMemcpy(sums, d_sums, 2 * sizeof(double), cudaMemcpyDeviceToHost));
        ran = it + 1;
        if (sums[1] < tol) break;
    }
    CK(cudaMemcpy(rank, bufs[ran & 1], (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_ptr);
    cudaFree(d_idx);
    cudaFree(d_deg);
    cudaFree(d_rank);
    cudaFree(d_contrib);
    cudaFree(d_sums);
}
