// Case: the accesses sit in __device__ load/store helpers that take the index as a parameter, and
// in a loop over a pointer bumped by a row each step: the stride in threadIdx.x comes from the
// index each caller passes and from the pointer's start, so all of them are stride 1.
#include <cuda_runtime.h>

__device__ __forceinline__ float load_at(const float* p, int i) { return p[i]; }  // expect: MEM-01
__device__ __forceinline__ void store_at(float* p, int i, float v) { p[i] = v; }  // expect: MEM-01

__global__ void axpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) store_at(y, i, a * load_at(x, i) + load_at(y, i));
}

__global__ void column_sums(const float* m, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const float* p = m + c;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) {
        s += *p;  // expect: MEM-01
        p += cols;
    }
    out[c] = s;  // expect: MEM-01
}

extern "C" void solution_compute(const float* x, float* y, float a, int n, const float* m,
                                 float* out, int rows, int cols) {
    axpy<<<(n + 255) / 256, 256>>>(x, y, a, n);
    column_sums<<<(cols + 255) / 256, 256>>>(m, out, rows, cols);
    cudaDeviceSynchronize();
}
