// Baseline CUDA port of knapsack: one kernel launch per item over all capacities, reading the
// previous row and writing the next (double buffer).
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

__global__ void item_kernel(int capacity, int w, int v, const int* __restrict__ prev,
                            int* __restrict__ next)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c > capacity) return;
    int keep = prev[c];
    if (c >= w) {
        int take = prev[c - w] + v;
        if (take > keep) keep = take;
    }
    next[c] = keep;
}

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    int *a = nullptr, *b = nullptr;
    size_t bytes = (size_t)(capacity + 1) * sizeof(int);
    const int threads = 256;
    int blocks = (capacity + 1 + threads - 1) / threads;
    if (capacity < 0) return;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 0, bytes));
    for (int i = 0; i < n_items; i++) {
        if (weights[i] > capacity) continue;
        item_kernel<<<blocks, threads>>>(capacity, weights[i], values[i], a, b);
        CK(cudaGetLastError());
        int* t = a;
        a = b;
        b = t;
    }
    CK(cudaMemcpy(best, a, bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(a);
    cudaFree(b);
}
