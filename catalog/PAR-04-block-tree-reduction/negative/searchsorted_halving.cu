#include <cuda_runtime.h>

// Bucket lookup by halving a step over a sorted table: the loop halves like a
// tree reduction but nothing is reduced and no shared memory is involved.
__global__ void bucketize(const float* edges, int nedges, const float* x, int* bucket, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    int pos = 0;
    for (int step = nedges / 2; step > 0; step >>= 1) {  // ok: PAR-04
        if (pos + step < nedges && edges[pos + step] <= v) pos += step;
    }
    bucket[i] = pos;
}

__global__ void tree_sum_unused(const float* x, float* out, int n) {
    __shared__ float s[256];
    s[threadIdx.x] = threadIdx.x < n ? x[threadIdx.x] : 0.0f;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {  // ok: PAR-04
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = s[0];
}

extern "C" void solution_compute(int nedges, const float* edges, int n, const float* x, int* bucket) {
    float *de, *dx;
    int* db;
    cudaMalloc(&de, nedges * sizeof(float));
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&db, n * sizeof(int));
    cudaMemcpy(de, edges, nedges * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    bucketize<<<(n + 255) / 256, 256>>>(de, nedges, dx, db, n);
    cudaMemcpy(bucket, db, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(de);
    cudaFree(dx);
    cudaFree(db);
}
