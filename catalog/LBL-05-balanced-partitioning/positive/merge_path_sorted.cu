#include <cuda_runtime.h>

#define ITEMS 16

// Merges two sorted arrays with merge path: every thread produces exactly ITEMS
// outputs; a binary search along its cross diagonal finds where its share starts.
__global__ void merge_path(const int* a, int na, const int* b, int nb, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int diag = min(t * ITEMS, na + nb);
    if (diag >= na + nb) return;
    int lo = max(0, diag - nb), hi = min(diag, na);
    while (lo < hi) {  // expect: LBL-05
        int mid = (lo + hi) >> 1;
        if (a[mid] <= b[diag - mid - 1]) lo = mid + 1;
        else hi = mid;
    }
    int i = lo, j = diag - lo;
    int end = min(diag + ITEMS, na + nb);
    for (int k = diag; k < end; ++k) {
        if (j >= nb || (i < na && a[i] <= b[j])) out[k] = a[i++];
        else out[k] = b[j++];
    }
}

extern "C" void solution_compute(int na, const int* a, int nb, const int* b, int* out) {
    int *da, *db, *dout;
    cudaMalloc(&da, na * sizeof(int));
    cudaMalloc(&db, nb * sizeof(int));
    cudaMalloc(&dout, (na + nb) * sizeof(int));
    cudaMemcpy(da, a, na * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, nb * sizeof(int), cudaMemcpyHostToDevice);
    int threads = (na + nb + ITEMS - 1) / ITEMS;
    merge_path<<<(threads + 127) / 128, 128>>>(da, na, db, nb, dout);
    cudaMemcpy(out, dout, (na + nb) * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
}
