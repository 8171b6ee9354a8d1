// PageRank with the state kept on the device: the graph, both rank vectors and the
// contributions stay resident for the whole call, the reciprocal out-degrees are computed once,
// and the two global sums (dangling mass, L1 change) are block tree reductions written as
// per-block partials and combined by a one-block kernel, so they are deterministic. Only the
// 8-byte change crosses to the host each iteration for the stopping test.
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_TRY(call)                                                                 \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,       \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

constexpr int THREADS = 256;
constexpr int FINISH_THREADS = 1024;

// Sum of one double per thread over the block; the result is valid in thread 0.
template <int N>
__device__ double block_sum(double v)
{
    __shared__ double buf[N];
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = N / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    return buf[0];
}

__global__ void setup(int n, const int* __restrict__ out_deg, float* __restrict__ inv_deg,
                      float* __restrict__ rank)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        int d = out_deg[v];
        inv_deg[v] = d > 0 ? 1.0f / (float)d : 0.0f;  // 0 marks a dangling vertex
        rank[v] = 1.0f / (float)n;
    }
}

__global__ void contributions(int n, const float* __restrict__ inv_deg,
                              const float* __restrict__ rank, float* __restrict__ contrib,
                              double* __restrict__ partial)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    double dang = 0.0;
    if (u < n) {
        float r = rank[u], inv = inv_deg[u];
        contrib[u] = r * inv;
        if (inv == 0.0f) dang = r;
    }
    double s = block_sum<THREADS>(dang);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// One block adds up the per-block partials; writes the total to *out.
__global__ void finish(int count, const double* __restrict__ partial, double* __restrict__ out)
{
    double s = 0.0;
    for (int i = threadIdx.x; i < count; i += FINISH_THREADS) s += partial[i];
    s = block_sum<FINISH_THREADS>(s);
    if (threadIdx.x == 0) *out = s;
}

__global__ void pull(int n, const int* __restrict__ in_ptr, const int* __restrict__ in_idx,
                     const float* __restrict__ contrib, const float* __restrict__ old_rank,
                     float* __restrict__ new_rank, float damping,
                     const double* __restrict__ dangling, double* __restrict__ partial)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    double change = 0.0;
    if (v < n) {
        const float base = (1.0f - damping) / (float)n;
        const float dang_share = (float)(*dangling / n);
        float sum = 0.0f;
        const int end = in_ptr[v + 1];
        for (int k = in_ptr[v]; k < end; k++) sum += contrib[in_idx[k]];
        const float r = base + damping * (sum + dang_share);
        new_rank[v] = r;
        change = fabs((double)r - (double)old_rank[v]);
    }
    double s = block_sum<THREADS>(change);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

extern "C" void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                                 float damping, float tol, int max_iters, float* rank)
{
    int *d_ptr = nullptr, *d_idx = nullptr, *d_deg = nullptr;
    float *d_inv = nullptr, *d_cur = nullptr, *d_next = nullptr, *d_contrib = nullptr;
    double *d_partial = nullptr, *d_sums = nullptr;  // sums: [0] dangling, [1] change
    double diff = 0.0;
    const int blocks = (n + THREADS - 1) / THREADS;
    int m = 0;

    if (n <= 0) return;
    m = in_ptr[n];
    CUDA_TRY(cudaMalloc(&d_ptr, (size_t)(n + 1) * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_idx, (size_t)m * sizeof(int) + sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_deg, (size_t)n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_inv, (size_t)n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_cur, (size_t)n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_next, (size_t)n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_contrib, (size_t)n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_partial, (size_t)blocks * sizeof(double)));
    CUDA_TRY(cudaMalloc(&d_sums, 2 * sizeof(double)));
    CUDA_TRY(cudaMemcpy(d_ptr, in_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_idx, in_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_deg, out_deg, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));

    setup<<<blocks, THREADS>>>(n, d_deg, d_inv, d_cur);
    CUDA_TRY(cudaGetLastError());
    for (int it = 0; it < max_iters; it++) {
        contributions<<<blocks, THREADS>>>(n, d_inv, d_cur, d_contrib, d_partial);
        finish<<<1, FINISH_THREADS>>>(blocks, d_partial, d_sums);
        pull<<<blocks, THREADS>>>(n, d_ptr, d_idx, d_contrib, d_cur, d_next, damping, d_sums,
                                  d_partial);
        finish<<<1, FINISH_THREADS>>>(blocks, d_partial, d_sums + 1);
        CUDA_TRY(cudaGetLastError());
        CUDA_TRY(cudaMemcpy(&diff, d_sums + 1, sizeof(double), cudaMemcpyDeviceToHost));
        float* t = d_cur;  // the newest ranks are in d_cur from here on
        d_cur = d_next;
        d_next = t;
        if (diff < tol) break;
    }
    CUDA_TRY(cudaMemcpy(rank, d_cur, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));

done:
    cudaFree(d_ptr);
    cudaFree(d_idx);
    cudaFree(d_deg);
    cudaFree(d_inv);
    cudaFree(d_cur);
    cudaFree(d_next);
    cudaFree(d_contrib);
    cudaFree(d_partial);
    cudaFree(d_sums);
}
