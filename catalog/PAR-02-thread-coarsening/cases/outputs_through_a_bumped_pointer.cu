// Case: each thread writes all its outputs through its own pointer, advanced by the output
// plane's size after each store (*o = v; o += n): one output per pass of a loop whose index
// starts at zero, so several outputs per thread. A pointer advanced by the grid's extent is a
// grid-stride loop instead.
#include <cuda_runtime.h>

__global__ void one_hot_planes(const int* cls, float* out, int n, int classes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float* o = out + i;
    for (int c = 0; c < classes; ++c) {  // expect: PAR-02
        *o = cls[i] == c ? 1.0f : 0.0f;
        o += n;
    }
}

__global__ void fill(float* out, float v, int n) {
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    float* p = out + first;
    for (int k = first; k < n; k += blockDim.x * gridDim.x) {  // ok: PAR-02
        *p = v;
        p += blockDim.x * gridDim.x;
    }
}

extern "C" void solution_compute(const int* cls, float* planes, float* extra, int n, int classes) {
    one_hot_planes<<<(n + 255) / 256, 256>>>(cls, planes, n, classes);
    fill<<<80, 256>>>(extra, 0.0f, n);
    cudaDeviceSynchronize();
}
