// Case: half-precision fused multiply-add intrinsics (__hfma2 on packed pairs, __hfma on the
// odd tail element); a plain half product written with operators is not an intrinsic.
#include <cuda_fp16.h>

__global__ void haxpy(int n, half a, const half* x, half* y) {
    int i = threadIdx.x + blockDim.x * blockIdx.x;
    const half2* x2 = reinterpret_cast<const half2*>(x);
    half2* y2 = reinterpret_cast<half2*>(y);
    if (i < n / 2) y2[i] = __hfma2(__halves2half2(a, a), x2[i], y2[i]);  // expect: CMP-05
    if (i == 0 && (n % 2)) y[n - 1] = __hfma(a, x[n - 1], y[n - 1]);  // expect: CMP-05
}

__global__ void hscale(int n, half a, half* y) {
    int i = threadIdx.x + blockDim.x * blockIdx.x;
    if (i < n) y[i] = a * y[i];
}

extern "C" void solution_compute(int n, half a, const half* x, half* y) {
    haxpy<<<(n / 2 + 255) / 256, 256>>>(n, a, x, y);
    hscale<<<(n + 255) / 256, 256>>>(n, a, y);
}
