#include <cuda_runtime.h>

// Out-degrees from CSR offsets. A warp-per-vertex neighbour sum is kept below
// but never launched; the running kernel is one thread per vertex in a
// grid-stride loop.
__global__ void neighbour_sum_warp_unused(int n, const int* rp, const int* ci, const float* x,
                                          float* out) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (w >= n) return;
    float s = 0.0f;
    for (int e = rp[w] + lane; e < rp[w + 1]; e += 32) s += x[ci[e]];  // ok: LBL-02
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
    if (lane == 0) out[w] = s;
}

__global__ void degrees(int n, const int* rp, int* deg) {
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)  // ok: LBL-02
        deg[v] = rp[v + 1] - rp[v];
}

extern "C" void solution_compute(int n, const int* rp, int* deg) {
    int *drp, *ddeg;
    cudaMalloc(&drp, (n + 1) * sizeof(int));
    cudaMalloc(&ddeg, n * sizeof(int));
    cudaMemcpy(drp, rp, (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
    degrees<<<512, 256>>>(n, drp, ddeg);
    cudaMemcpy(deg, ddeg, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(drp);
    cudaFree(ddeg);
}
