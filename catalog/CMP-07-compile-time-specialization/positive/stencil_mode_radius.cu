#include <cuda_runtime.h>

// The radius and the boundary mode are compile-time parameters; a device helper is specialised
// on the radius too.
template <int R> // expect: CMP-07
__device__ float weight(int k) { return 1.0f / (2 * R + 1) * (k <= R ? 1.0f : 0.0f); }

template <int R, bool PERIODIC> // expect: CMP-07
__global__ void box_filter(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = -R; k <= R; ++k) {
        int j = i + k;
        if (PERIODIC) j = (j + n) % n;
        else j = min(max(j, 0), n - 1);
        acc += weight<R>(k < 0 ? -k : k) * in[j];
    }
    out[i] = acc;
}

extern "C" void solution_compute(const float* in, float* out, int n, int radius, int periodic) {
    float *din, *dout;
    cudaMalloc(&din, sizeof(float) * n);
    cudaMalloc(&dout, sizeof(float) * n);
    cudaMemcpy(din, in, sizeof(float) * n, cudaMemcpyHostToDevice);
    int g = (n + 255) / 256;
    if (radius == 1) {
        if (periodic) box_filter<1, true><<<g, 256>>>(din, dout, n);
        else box_filter<1, false><<<g, 256>>>(din, dout, n);
    } else {
        if (periodic) box_filter<3, true><<<g, 256>>>(din, dout, n);
        else box_filter<3, false><<<g, 256>>>(din, dout, n);
    }
    cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(din); cudaFree(dout);
}
