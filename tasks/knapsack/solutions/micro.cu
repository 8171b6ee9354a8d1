// 0/1 knapsack: one kernel per item over all capacities, one thread per capacity, the new row
// copied back over the previous one after every item (the plain port's structure), with the
// kernel tightened: read-only loads, a branch-free update (the shifted index is clamped so
// every thread issues the same loads and a select picks the result), launch bounds.
#include <cuda_runtime.h>
#include <stdio.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e = (call);                                                        \
        if (e != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e),         \
                    __FILE__, __LINE__);                                               \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

#define THREADS 256

__global__ void __launch_bounds__(THREADS)
knapsack_item(int capacity, int w, int v, const int* __restrict__ prev, int* __restrict__ next)
{
    const int c = blockIdx.x * THREADS + threadIdx.x;
    if (c > capacity) return;
    const bool fits = c >= w;
    const int keep = __ldg(prev + c);
    const int take = __ldg(prev + (fits ? c - w : c)) + v;
    next[c] = (fits && take > keep) ? take : keep;
}

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    int* d_prev = NULL;
    int* d_next = NULL;
    size_t bytes;
    int blocks;

    if (capacity < 0) return;
    bytes = (size_t)(capacity + 1) * sizeof(int);
    blocks = (capacity + 1 + THREADS - 1) / THREADS;

    CHECK(cudaMalloc((void**)&d_prev, bytes));
    CHECK(cudaMalloc((void**)&d_next, bytes));
    CHECK(cudaMemset(d_prev, 0, bytes));

    for (int i = 0; i < n_items; i++) {
        knapsack_item<<<blocks, THREADS>>>(capacity, weights[i], values[i], d_prev, d_next);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(d_prev, d_next, bytes, cudaMemcpyDeviceToDevice));
    }

    CHECK(cudaMemcpy(best, d_prev, bytes, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_prev);
    cudaFree(d_next);
}
