// Vector norm with unified memory: cudaMallocManaged is not pinned staging memory.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void sumsq(const float* x, int n, float* acc) {
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        s += x[i] * x[i];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(acc, s);
}

extern "C" void solution_compute(int n, const float* x, float* result) {
    float *m_x, *m_acc;
    cudaMallocManaged(&m_x, n * sizeof(float));  // ok: HST-02
    cudaMallocManaged(&m_acc, sizeof(float));
    for (int i = 0; i < n; ++i) m_x[i] = x[i];
    *m_acc = 0.0f;
    sumsq<<<256, 256>>>(m_x, n, m_acc);
    if (cudaDeviceSynchronize() != cudaSuccess)
        fprintf(stderr, "kernel failed; try cudaHostAlloc staging\n");  // ok: HST-02
    *result = sqrtf(*m_acc);
    cudaFree(m_x);
    cudaFree(m_acc);
}
