// Case: persistent threads take items through a device helper that claims the next index with
// an atomic and returns it; the kernel loops while what the helper returns is below the item
// count: a dynamic work queue, though the counter's value leaves the helper before it is
// compared. A helper that returns a claimed output slot only reserves room for a result.
#include <cuda_runtime.h>

__device__ int take_next(int* head) {
    return atomicAdd(head, 1);  // expect: LBL-01
}

__device__ int reserve_slot(int* count) {
    return atomicAdd(count, 1);  // ok: LBL-01
}

__global__ void drain(const float* items, int n, int* head, float* kept, int* count) {
    int i = take_next(head);
    while (i < n) {
        float v = items[i];
        if (v > 0.0f) kept[reserve_slot(count)] = v;
        i = take_next(head);
    }
}

extern "C" void solution_compute(const float* items, int n, int* head, float* kept, int* count) {
    cudaMemset(head, 0, sizeof(int));
    cudaMemset(count, 0, sizeof(int));
    drain<<<132, 256>>>(items, n, head, kept, count);
    cudaDeviceSynchronize();
}
