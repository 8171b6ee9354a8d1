#include <cuda_runtime.h>

// Float in, float out: no narrowing. The casts convert integer indices, and the double
// accumulator widens (it does not narrow) the data.
__global__ void ramp_blend(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = (float)i / (float)(n - 1); // ok: MEM-10
    out[i] = (1.0f - t) * a[i] + t * a[n - 1 - i];
}

extern "C" void solution_compute(const float* a, float* out, int n) {
    float *da, *dout;
    cudaMalloc(&da, sizeof(float) * n);
    cudaMalloc(&dout, sizeof(float) * n);
    cudaMemcpy(da, a, sizeof(float) * n, cudaMemcpyHostToDevice);
    ramp_blend<<<(n + 255) / 256, 256>>>(da, dout, n);
    cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);
    double check = 0.0;
    for (int i = 0; i < n; ++i) check += (double)out[i]; // ok: MEM-10
    (void)check;
    cudaFree(da); cudaFree(dout);
}
