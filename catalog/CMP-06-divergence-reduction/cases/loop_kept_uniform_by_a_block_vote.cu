// Case: a shared tile is relaxed until no thread's value changes. The loop goes on while the
// block votes so (again = __syncthreads_or(changed)), so every thread of the block takes the
// same number of passes and the barrier inside stays legal; a loop on the thread's own flag
// leaves each thread to stop on its own.
#include <cuda_runtime.h>

__global__ void smooth_tile(int* labels, int n) {
    __shared__ int tile[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x] = i < n ? labels[i] : 0x7fffffff;
    __syncthreads();
    int changed = 1;
    bool again = __syncthreads_or(changed);
    while (again) {  // expect: CMP-06
        int left = threadIdx.x > 0 ? tile[threadIdx.x - 1] : tile[threadIdx.x];
        __syncthreads();
        changed = left < tile[threadIdx.x];
        if (changed) tile[threadIdx.x] = left;
        again = __syncthreads_or(changed);
    }
    if (i < n) labels[i] = tile[threadIdx.x];
}

__global__ void chase(int* parent, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int p = parent[i];
    bool moving = true;
    while (moving) {  // ok: CMP-06
        int q = parent[p];
        moving = q != p;
        p = q;
    }
    parent[i] = p;
}

extern "C" void solution_compute(int* labels, int* parent, int n) {
    smooth_tile<<<(n + 255) / 256, 256>>>(labels, n);
    chase<<<(n + 255) / 256, 256>>>(parent, n);
    cudaDeviceSynchronize();
}
