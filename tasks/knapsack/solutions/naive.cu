// 0/1 knapsack on the GPU, straightforward port.
// For every item a kernel computes the next DP row from the previous one, one thread per
// capacity; the new row is then copied back over the previous row for the next item.
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

__global__ void knapsack_item(int capacity, int w, int v, const int* prev, int* next)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c > capacity) return;
    if (c >= w && prev[c - w] + v > prev[c])
        next[c] = prev[c - w] + v;
    else
        next[c] = prev[c];
}

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    int* d_prev = NULL;
    int* d_next = NULL;
    size_t bytes;
    int threads = 256;
    int blocks;

    if (capacity < 0) return;
    bytes = (size_t)(capacity + 1) * sizeof(int);
    blocks = (capacity + 1 + threads - 1) / threads;

    CHECK(cudaMalloc((void**)&d_prev, bytes));
    CHECK(cudaMalloc((void**)&d_next, bytes));
    CHECK(cudaMemset(d_prev, 0, bytes));

    for (int i = 0; i < n_items; i++) {
        knapsack_item<<<blocks, threads>>>(capacity, weights[i], values[i], d_prev, d_next);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(d_prev, d_next, bytes, cudaMemcpyDeviceToDevice));
    }

    CHECK(cudaMemcpy(best, d_prev, bytes, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_prev);
    cudaFree(d_next);
}
