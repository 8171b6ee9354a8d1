#include <cuda_runtime.h>

#define THREADS 128

// Pull-based PageRank step with one block per vertex: the threads of the block
// split the in-edges, so hub vertices do not serialise on one thread.
__global__ void pr_pull(int n, const int* in_ptr, const int* in_src, const float* out_deg_inv,
                        const float* pr, float* pr_next, float damping) {
    __shared__ float part[THREADS];
    int v = blockIdx.x;
    float s = 0.0f;
    for (int e = in_ptr[v] + threadIdx.x; e < in_ptr[v + 1]; e += blockDim.x) {  // expect: LBL-02
        int u = in_src[e];
        s += pr[u] * out_deg_inv[u];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = THREADS / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) pr_next[v] = (1.0f - damping) / n + damping * part[0];
}

extern "C" void solution_compute(int n, int m, const int* in_ptr, const int* in_src,
                                 const float* out_deg_inv, float damping, float* pr) {
    int *dptr, *dsrc;
    float *dinv, *dpr, *dnext;
    cudaMalloc(&dptr, (n + 1) * sizeof(int));
    cudaMalloc(&dsrc, m * sizeof(int));
    cudaMalloc(&dinv, n * sizeof(float));
    cudaMalloc(&dpr, n * sizeof(float));
    cudaMalloc(&dnext, n * sizeof(float));
    cudaMemcpy(dptr, in_ptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dsrc, in_src, m * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dinv, out_deg_inv, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dpr, pr, n * sizeof(float), cudaMemcpyHostToDevice);
    pr_pull<<<n, THREADS>>>(n, dptr, dsrc, dinv, dpr, dnext, damping);
    cudaMemcpy(pr, dnext, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dptr);
    cudaFree(dsrc);
    cudaFree(dinv);
    cudaFree(dpr);
    cudaFree(dnext);
}
