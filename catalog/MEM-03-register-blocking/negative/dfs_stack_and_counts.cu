#include <cuda_runtime.h>

// Per-thread DFS over a tree stored as child lists: the local array is a run-time indexed stack.
__global__ void subtree_sizes(const int* child_start, const int* children, int* size, int n) {
    int root = blockIdx.x * blockDim.x + threadIdx.x;
    if (root >= n) return;
    int stack[64]; // ok: MEM-03
    int sp = 0, count = 0;
    stack[sp++] = root;
    while (sp > 0) {
        int v = stack[--sp];
        ++count;
        for (int e = child_start[v]; e < child_start[v + 1] && sp < 64; ++e) stack[sp++] = children[e];
    }
    size[root] = count;
}

// Per-thread digit counts with a data-dependent index: privatisation, not register blocking.
__global__ void digit_counts(const unsigned* keys, unsigned* counts, int n) {
    unsigned local[16] = {}; // ok: MEM-03
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        local[keys[i] & 15u] += 1u;
    for (int d = 0; d < 16; ++d) atomicAdd(&counts[d], local[d]);
}

// Register-blocked accumulation that nothing launches.
__global__ void unused_blocked(const float* a, float* out, int n) {
    float acc[4] = {}; // ok: MEM-03
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < 4; ++j) acc[j] += a[k * 4 + j];
    for (int j = 0; j < 4; ++j) out[j] = acc[j];
}

extern "C" void solution_compute(const int* child_start, const int* children, int* size, int n,
                                 const unsigned* keys, unsigned* counts, int nk) {
    int *dcs, *dch, *dsz;
    cudaMalloc(&dcs, sizeof(int) * (n + 1));
    cudaMalloc(&dch, sizeof(int) * n);
    cudaMalloc(&dsz, sizeof(int) * n);
    cudaMemcpy(dcs, child_start, sizeof(int) * (n + 1), cudaMemcpyHostToDevice);
    cudaMemcpy(dch, children, sizeof(int) * n, cudaMemcpyHostToDevice);
    subtree_sizes<<<(n + 127) / 128, 128>>>(dcs, dch, dsz, n);
    cudaMemcpy(size, dsz, sizeof(int) * n, cudaMemcpyDeviceToHost);

    unsigned *dk, *dc;
    cudaMalloc(&dk, sizeof(unsigned) * nk);
    cudaMalloc(&dc, sizeof(unsigned) * 16);
    cudaMemcpy(dk, keys, sizeof(unsigned) * nk, cudaMemcpyHostToDevice);
    cudaMemset(dc, 0, sizeof(unsigned) * 16);
    digit_counts<<<64, 256>>>(dk, dc, nk);
    cudaMemcpy(counts, dc, sizeof(unsigned) * 16, cudaMemcpyDeviceToHost);
    cudaFree(dcs); cudaFree(dch); cudaFree(dsz); cudaFree(dk); cudaFree(dc);
}
