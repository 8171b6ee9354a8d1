// PageRank (pull, CSR of in-edges) for a fixed number of iterations; ranks stay on the device
// and only the final vector is copied back.
#include <cuda_runtime.h>
#include <utility>

__global__ void pr_init(float* rank, int V) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < V) rank[v] = 1.0f / V;
}

__global__ void pr_contrib(const float* rank, const int* out_deg, float* contrib, int V) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < V) contrib[v] = out_deg[v] > 0 ? rank[v] / out_deg[v] : 0.0f;
}

__global__ void pr_pull(const int* in_ptr, const int* in_src, const float* contrib, float* next,
                        int V, float damping) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= V) return;
    float s = 0.0f;
    for (int e = in_ptr[v]; e < in_ptr[v + 1]; ++e) s += contrib[in_src[e]];
    next[v] = (1.0f - damping) / V + damping * s;
}

extern "C" void solution_compute(int V, int E, const int* in_ptr, const int* in_src,
                                 const int* out_deg, int iters, float* ranks) {
    int *d_ptr, *d_src, *d_deg;
    float *d_rank, *d_next, *d_contrib;
    cudaMalloc(&d_ptr, (V + 1) * sizeof(int));
    cudaMalloc(&d_src, E * sizeof(int));
    cudaMalloc(&d_deg, V * sizeof(int));
    cudaMalloc(&d_rank, V * sizeof(float));
    cudaMalloc(&d_next, V * sizeof(float));
    cudaMalloc(&d_contrib, V * sizeof(float));
    cudaMemcpy(d_ptr, in_ptr, (V + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_src, in_src, E * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_deg, out_deg, V * sizeof(int), cudaMemcpyHostToDevice);

    int t = 256, b = (V + t - 1) / t;
    pr_init<<<b, t>>>(d_rank, V);
    for (int it = 0; it < iters; ++it) {  // expect: HST-04
        pr_contrib<<<b, t>>>(d_rank, d_deg, d_contrib, V);
        pr_pull<<<b, t>>>(d_ptr, d_src, d_contrib, d_next, V, 0.85f);
        std::swap(d_rank, d_next);
    }
    cudaMemcpy(ranks, d_rank, V * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_ptr); cudaFree(d_src); cudaFree(d_deg);
    cudaFree(d_rank); cudaFree(d_next); cudaFree(d_contrib);
}
