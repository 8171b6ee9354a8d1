// 0/1 knapsack in one launch of a single block: the block sweeps the items in order and each
// thread fills every blockDim.x-th capacity of the row, so it computes many outputs per item.
#include <cuda_runtime.h>

__global__ void knapsack_rows(int items, const int* w, const int* v, int cap, int* a, int* b) {
    for (int c = threadIdx.x; c <= cap; c += blockDim.x) a[c] = 0;  // expect: PAR-02
    __syncthreads();
    for (int i = 0; i < items; ++i) {
        for (int c = threadIdx.x; c <= cap; c += blockDim.x) {  // expect: PAR-02
            int best = a[c];
            if (c >= w[i] && a[c - w[i]] + v[i] > best) best = a[c - w[i]] + v[i];
            b[c] = best;
        }
        __syncthreads();
        int* t = a; a = b; b = t;
    }
}

extern "C" void solution_compute(int items, const int* w, const int* v, int cap, int* best) {
    int *dw, *dv, *da, *db;
    cudaMalloc(&dw, items * sizeof(int));
    cudaMalloc(&dv, items * sizeof(int));
    cudaMalloc(&da, (cap + 1) * sizeof(int));
    cudaMalloc(&db, (cap + 1) * sizeof(int));
    cudaMemcpy(dw, w, items * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dv, v, items * sizeof(int), cudaMemcpyHostToDevice);
    knapsack_rows<<<1, 1024>>>(items, dw, dv, cap, da, db);
    int* last = (items % 2 == 0) ? da : db;
    cudaMemcpy(best, last + cap, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dw); cudaFree(dv); cudaFree(da); cudaFree(db);
}
