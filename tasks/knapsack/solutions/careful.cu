// 0/1 knapsack: the items go to the device once and every item is one kernel over the DP row,
// reading its weight and value from device memory, so the host loop only queues launches and
// never waits. Two row buffers are swapped between items. Each thread handles four
// consecutive capacities: the unshifted row is read and the new row written as int4 (the
// buffers are padded to a multiple of four), the shifted reads stay scalar since c - w has any
// alignment.
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
constexpr int VEC = 4;

__device__ __forceinline__ int relax(int keep, const int* __restrict__ prev, int c, int w, int v)
{
    if (c < w) return keep;
    const int take = prev[c - w] + v;
    return take > keep ? take : keep;
}

__global__ void __launch_bounds__(THREADS)
item_kernel(int n_vec, const int* __restrict__ weights, const int* __restrict__ values, int item,
            const int* __restrict__ prev, int* __restrict__ next)
{
    const int q = blockIdx.x * THREADS + threadIdx.x;
    if (q >= n_vec) return;
    const int w = weights[item], v = values[item];
    const int c = q * VEC;
    const int4 keep = reinterpret_cast<const int4*>(prev)[q];
    int4 out = keep;
    if (c + VEC - 1 >= w) {
        out.x = relax(keep.x, prev, c, w, v);
        out.y = relax(keep.y, prev, c + 1, w, v);
        out.z = relax(keep.z, prev, c + 2, w, v);
        out.w = relax(keep.w, prev, c + 3, w, v);
    }
    reinterpret_cast<int4*>(next)[q] = out;
}

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    int *d_w = nullptr, *d_v = nullptr, *d_a = nullptr, *d_b = nullptr;
    const int n_vec = (capacity + VEC) / VEC;  // ceil((capacity + 1) / VEC)
    const size_t padded = (size_t)n_vec * VEC * sizeof(int);
    const size_t items = (size_t)(n_items > 0 ? n_items : 1) * sizeof(int);
    const int blocks = (n_vec + THREADS - 1) / THREADS;
    if (capacity < 0) return;
    CK(cudaMalloc(&d_w, items));
    CK(cudaMalloc(&d_v, items));
    CK(cudaMalloc(&d_a, padded));
    CK(cudaMalloc(&d_b, padded));
    if (n_items > 0) {
        CK(cudaMemcpy(d_w, weights, (size_t)n_items * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_v, values, (size_t)n_items * sizeof(int), cudaMemcpyHostToDevice));
    }
    CK(cudaMemset(d_a, 0, padded));
    for (int i = 0; i < n_items; i++) {
        item_kernel<<<blocks, THREADS>>>(n_vec, d_w, d_v, i, d_a, d_b);
        int* t = d_a;
        d_a = d_b;
        d_b = t;
    }
    CK(cudaGetLastError());
    CK(cudaMemcpy(best, d_a, (size_t)(capacity + 1) * sizeof(int), cudaMemcpyDeviceToHost));
done:
    cudaFree(d_w);
    cudaFree(d_v);
    cudaFree(d_a);
    cudaFree(d_b);
}
