// BFS from a frontier queue (the adjacency walk depends on which vertices are in the queue)
// and a particle kernel reading xyz triples (a small AoS stride).
#include <cuda_runtime.h>

__global__ void expand_frontier(const int* row_ptr, const int* cols, const int* frontier, int fsize,
                                int* dist, int level, int* next, int* next_size) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= fsize) return;
    int v = frontier[t];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {  // ok: AP-03
        int w = cols[e];
        if (atomicCAS(&dist[w], -1, level + 1) == -1) next[atomicAdd(next_size, 1)] = w;
    }
}

__global__ void radius2(const float* xyz, int n, float* r2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xyz[3 * i], y = xyz[3 * i + 1], z = xyz[3 * i + 2];  // ok: AP-03
        r2[i] = x * x + y * y + z * z;
    }
}

extern "C" void solution_compute(int V, int E, const int* row_ptr, const int* cols, int source,
                                 const float* xyz, float* r2, int* dist) {
    int *d_ptr, *d_cols, *d_dist, *d_f, *d_g, *d_size;
    float *d_xyz, *d_r2;
    cudaMalloc(&d_ptr, (V + 1) * sizeof(int));
    cudaMalloc(&d_cols, E * sizeof(int));
    cudaMalloc(&d_dist, V * sizeof(int));
    cudaMalloc(&d_f, V * sizeof(int));
    cudaMalloc(&d_g, V * sizeof(int));
    cudaMalloc(&d_size, sizeof(int));
    cudaMalloc(&d_xyz, 3 * V * sizeof(float));
    cudaMalloc(&d_r2, V * sizeof(float));
    cudaMemcpy(d_ptr, row_ptr, (V + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_cols, cols, E * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_xyz, xyz, 3 * V * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_dist, 0xff, V * sizeof(int));
    int zero = 0;
    cudaMemcpy(d_dist + source, &zero, sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_f, &source, sizeof(int), cudaMemcpyHostToDevice);
    int fsize = 1;
    for (int level = 0; fsize > 0; ++level) {
        cudaMemset(d_size, 0, sizeof(int));
        expand_frontier<<<(fsize + 255) / 256, 256>>>(d_ptr, d_cols, d_f, fsize, d_dist, level, d_g, d_size);
        cudaMemcpy(&fsize, d_size, sizeof(int), cudaMemcpyDeviceToHost);
        int* t = d_f; d_f = d_g; d_g = t;
    }
    radius2<<<(V + 255) / 256, 256>>>(d_xyz, V, d_r2);
    cudaMemcpy(dist, d_dist, V * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(r2, d_r2, V * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_ptr); cudaFree(d_cols); cudaFree(d_dist); cudaFree(d_f); cudaFree(d_g); cudaFree(d_size);
    cudaFree(d_xyz); cudaFree(d_r2);
}
