#include <cuda_runtime.h>

// Bellman-Ford relaxation rounds inside one persistent launch (grid sized to
// fit on the device); a software grid barrier separates the rounds.
__device__ void grid_barrier(volatile unsigned int* arrived, unsigned int target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd((unsigned int*)arrived, 1u);
        while (*arrived < target) { }  // expect: PAR-09
    }
    __syncthreads();
}

__global__ void bellman_ford_persistent(const int* src, const int* dst, const float* w, int m,
                                        int n, float* dist, unsigned int* arrived) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (int round = 0; round < n - 1; ++round) {
        for (int e = tid; e < m; e += stride) {
            float du = dist[src[e]];
            if (du < 1e30f) {
                float cand = du + w[e];
                if (cand < dist[dst[e]])
                    atomicMin((int*)&dist[dst[e]], __float_as_int(cand));
            }
        }
        grid_barrier(arrived, (round + 1) * gridDim.x);
    }
}

extern "C" void solution_compute(int n, int m, const int* src, const int* dst, const float* w,
                                 int source, float* dist) {
    int *ds, *dd;
    float *dw, *ddist;
    unsigned int* dbar;
    cudaMalloc(&ds, m * sizeof(int));
    cudaMalloc(&dd, m * sizeof(int));
    cudaMalloc(&dw, m * sizeof(float));
    cudaMalloc(&ddist, n * sizeof(float));
    cudaMalloc(&dbar, sizeof(unsigned int));
    cudaMemcpy(ds, src, m * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dd, dst, m * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w, m * sizeof(float), cudaMemcpyHostToDevice);
    for (int i = 0; i < n; ++i) dist[i] = i == source ? 0.0f : 1e30f;
    cudaMemcpy(ddist, dist, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dbar, 0, sizeof(unsigned int));
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    bellman_ford_persistent<<<sms, 256>>>(ds, dd, dw, m, n, ddist, dbar);
    cudaMemcpy(dist, ddist, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(ds);
    cudaFree(dd);
    cudaFree(dw);
    cudaFree(ddist);
    cudaFree(dbar);
}
