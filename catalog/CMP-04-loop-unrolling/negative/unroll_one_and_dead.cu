#include <cuda_runtime.h>

// "#pragma unroll 1" forbids unrolling; the unrolled variant below is never launched.
__global__ void prefix_serial(const int* in, int* out, int n, int chunk) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int begin = t * chunk;
    if (begin >= n) return;
    int acc = 0;
#pragma unroll 1 // ok: CMP-04
    for (int i = begin; i < min(begin + chunk, n); ++i) { acc += in[i]; out[i] = acc; }
}

__global__ void scale_unrolled(float* x, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
#pragma unroll // ok: CMP-04
    for (int k = 0; k < 4; ++k) if (i + k < n) x[i + k] *= 2.0f;
}

extern "C" void solution_compute(const int* in, int* out, int n) {
    int *di, *dout;
    const int chunk = 32;
    cudaMalloc(&di, sizeof(int) * n);
    cudaMalloc(&dout, sizeof(int) * n);
    cudaMemcpy(di, in, sizeof(int) * n, cudaMemcpyHostToDevice);
    int workers = (n + chunk - 1) / chunk;
    prefix_serial<<<(workers + 127) / 128, 128>>>(di, dout, n, chunk);
    cudaMemcpy(out, dout, sizeof(int) * n, cudaMemcpyDeviceToHost);
    cudaFree(di); cudaFree(dout);
}
