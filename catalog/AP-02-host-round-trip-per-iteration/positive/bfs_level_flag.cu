// Level-synchronous BFS: after each level the "frontier not empty" flag is copied to the
// host to decide whether to launch the next level.
#include <cuda_runtime.h>

__global__ void expand(const int* row_ptr, const int* cols, int V, int level, int* depth, int* grew) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= V || depth[v] != level) return;
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int w = cols[e];
        if (depth[w] < 0) {
            depth[w] = level + 1;
            *grew = 1;
        }
    }
}

extern "C" void solution_compute(int V, int E, const int* row_ptr, const int* cols, int source, int* depth) {
    int *d_ptr, *d_cols, *d_depth, *d_grew;
    cudaMalloc(&d_ptr, (V + 1) * sizeof(int));
    cudaMalloc(&d_cols, E * sizeof(int));
    cudaMalloc(&d_depth, V * sizeof(int));
    cudaMalloc(&d_grew, sizeof(int));
    cudaMemcpy(d_ptr, row_ptr, (V + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_cols, cols, E * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(d_depth, 0xff, V * sizeof(int));
    int zero = 0;
    cudaMemcpy(d_depth + source, &zero, sizeof(int), cudaMemcpyHostToDevice);

    int level = 0, grew = 1;
    while (grew) {
        grew = 0;
        cudaMemcpy(d_grew, &grew, sizeof(int), cudaMemcpyHostToDevice);
        expand<<<(V + 255) / 256, 256>>>(d_ptr, d_cols, V, level, d_depth, d_grew);
        cudaMemcpy(&grew, d_grew, sizeof(int), cudaMemcpyDeviceToHost);  // expect: AP-02
        ++level;
    }
    cudaMemcpy(depth, d_depth, V * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_ptr); cudaFree(d_cols); cudaFree(d_depth); cudaFree(d_grew);
}
