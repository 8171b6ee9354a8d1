// Case: the allocated bytes reach the loop's launches only through typed views: a cast pointer
// (Pair* d_pairs = (Pair*)d_raw) and a struct of pointers into the buffer ({ (float2*)d_raw,
// (float2*)d_raw + n }). Both views are the buffer, so the allocation before the loop is reused.
#include <cuda_runtime.h>

struct Pair { float a, b; };
struct Halves { float2* lo; float2* hi; };

__global__ void mix(Pair* q, int n, int t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i].a = q[i].b * 0.5f + t;
}

__global__ void fold(float2* lo, float2* hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) lo[i].x += hi[i].y;
}

extern "C" void solution_compute(int n, int steps) {
    char* d_raw;
    cudaMalloc(&d_raw, n * sizeof(Pair));  // expect: HST-01
    Pair* d_pairs = (Pair*)d_raw;
    for (int t = 0; t < steps; ++t)
        mix<<<(n + 255) / 256, 256>>>(d_pairs, n, t);

    float* d_halves;
    cudaMalloc(&d_halves, 4 * n * sizeof(float));  // expect: HST-01
    Halves h = { (float2*)d_halves, ((float2*)d_halves) + n };
    for (int t = 0; t < steps; ++t)
        fold<<<(n + 255) / 256, 256>>>(h.lo, h.hi, n);
    cudaFree(d_raw);
    cudaFree(d_halves);
}
