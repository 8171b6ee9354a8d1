// 0/1 knapsack: the item list is cut into groups of K consecutive items and each group is one
// pass over the DP row; the items live on the device and every pass reads its group's weights
// and values there. A pass applies the group as one max-plus step: new[c] is the best of
// P[c - W(S)] + V(S) over the subsets S of the group whose weight W(S) fits in c, which is what
// K single-item passes produce. Threads cover the row in a grid-stride loop over a grid sized
// by the occupancy calculator; two row buffers alternate between passes.
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
constexpr int K = 1;  // items per pass

__device__ __forceinline__ void group_pass(int capacity, const int* weights, const int* values,
                                           int n_items, int g, const int* src, int* dst, int tid,
                                           int stride)
{
    long long sub_w[1 << K];
    int sub_v[1 << K];
    sub_w[0] = 0;
    sub_v[0] = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
        const int i = g * K + k;
        const long long w = i < n_items ? weights[i] : (long long)capacity + 1;
        const int v = i < n_items ? values[i] : 0;
#pragma unroll
        for (int m = 0; m < (1 << k); m++) {
            sub_w[m | (1 << k)] = sub_w[m] + w;
            sub_v[m | (1 << k)] = sub_v[m] + v;
        }
    }
    for (int c = tid; c <= capacity; c += stride) {
        int b = src[c];
#pragma unroll
        for (int m = 1; m < (1 << K); m++) {
            if (c >= sub_w[m]) {
                const int take = src[c - (int)sub_w[m]] + sub_v[m];
                if (take > b) b = take;
            }
        }
        dst[c] = b;
    }
}

__global__ void __launch_bounds__(THREADS)
pass_kernel(int capacity, const int* weights, const int* values, int n_items, int g,
            const int* src, int* dst)
{
    group_pass(capacity, weights, values, n_items, g, src, dst, blockIdx.x * THREADS + threadIdx.x,
               gridDim.x * THREADS);
}

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    int *d_w = nullptr, *d_v = nullptr, *d_rows = nullptr;
    int *src = nullptr, *dst = nullptr;
    int dev = 0, sms = 0, per_sm = 0, grid = 0, n_groups = 0;
    size_t row = 0;
    if (capacity < 0) return;
    row = (size_t)capacity + 1;
    n_groups = (n_items + K - 1) / K;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pass_kernel, THREADS, 0));
    grid = sms * (per_sm > 0 ? per_sm : 1);
    if (grid > (int)((row + THREADS - 1) / THREADS)) grid = (int)((row + THREADS - 1) / THREADS);

    CK(cudaMalloc(&d_rows, 2 * row * sizeof(int)));
    CK(cudaMalloc(&d_w, (size_t)(n_items > 0 ? n_items : 1) * sizeof(int)));
    CK(cudaMalloc(&d_v, (size_t)(n_items > 0 ? n_items : 1) * sizeof(int)));
    if (n_items > 0) {
        CK(cudaMemcpy(d_w, weights, (size_t)n_items * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_v, values, (size_t)n_items * sizeof(int), cudaMemcpyHostToDevice));
    }
    CK(cudaMemset(d_rows, 0, row * sizeof(int)));
    src = d_rows;
    dst = d_rows + row;
    for (int g = 0; g < n_groups; g++) {
        pass_kernel<<<grid, THREADS>>>(capacity, d_w, d_v, n_items, g, src, dst);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(0));
        int* t = src;
        src = dst;
        dst = t;
    }
    CK(cudaMemcpy(best, d_rows + (n_groups % 2 ? row : 0), row * sizeof(int),
                  cudaMemcpyDeviceToHost));
done:
    cudaFree(d_w);
    cudaFree(d_v);
    cudaFree(d_rows);
}
