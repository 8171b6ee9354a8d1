// Single-source shortest paths for a batch of requests (Bellman-Ford on CSR).
// The graph and the distance vector are allocated once and reused for every request.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void init_dist(float* dist, int V, int src) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < V) dist[v] = (v == src) ? 0.0f : FLT_MAX;
}

__global__ void relax_edges(const int* row_offsets, const int* col_indices, const float* weights,
                            float* dist, int V) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= V) return;
    float du = dist[u];
    if (du == FLT_MAX) return;
    for (int e = row_offsets[u]; e < row_offsets[u + 1]; ++e) {
        float nd = du + weights[e];
        int v = col_indices[e];
        if (nd < dist[v]) atomicMin((int*)&dist[v], __float_as_int(nd));
    }
}

extern "C" void solution_compute(int V, int E, const int* row_offsets, const int* col_indices,
                                 const float* weights, int num_requests, const int* sources,
                                 const int* targets, float* distances) {
    int *d_row, *d_col;
    float *d_w, *d_dist;
    cudaMalloc(&d_row, (V + 1) * sizeof(int));  // expect: HST-01
    cudaMalloc(&d_col, E * sizeof(int));  // expect: HST-01
    cudaMalloc(&d_w, E * sizeof(float));  // expect: HST-01
    cudaMalloc(&d_dist, V * sizeof(float));  // expect: HST-01
    cudaMemcpy(d_row, row_offsets, (V + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_col, col_indices, E * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, weights, E * sizeof(float), cudaMemcpyHostToDevice);

    int threads = 256, blocks = (V + threads - 1) / threads;
    for (int r = 0; r < num_requests; ++r) {
        init_dist<<<blocks, threads>>>(d_dist, V, sources[r]);
        for (int it = 0; it < V - 1; ++it)
            relax_edges<<<blocks, threads>>>(d_row, d_col, d_w, d_dist, V);
        float d;
        cudaMemcpy(&d, d_dist + targets[r], sizeof(float), cudaMemcpyDeviceToHost);
        distances[r] = d;
    }
    cudaFree(d_row);
    cudaFree(d_col);
    cudaFree(d_w);
    cudaFree(d_dist);
}
