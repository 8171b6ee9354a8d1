// Dot products of many short vector pairs: one stream for everything (ordered, no overlap).
#include <cuda_runtime.h>

__global__ void pair_dot(const float* a, const float* b, int len, int pairs, float* out) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    float s = 0.0f;
    for (int k = 0; k < len; ++k) s += a[k * pairs + p] * b[k * pairs + p];
    out[p] = s;
}

extern "C" void solution_compute(int pairs, int len, const float* a, const float* b, float* out) {
    size_t nb = (size_t)pairs * len * sizeof(float);
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    float *d_a, *d_b, *d_out;
    cudaMallocAsync(&d_a, nb, stream);
    cudaMallocAsync(&d_b, nb, stream);
    cudaMallocAsync(&d_out, pairs * sizeof(float), stream);
    cudaMemcpyAsync(d_a, a, nb, cudaMemcpyHostToDevice, stream);  // ok: HST-03
    cudaMemcpyAsync(d_b, b, nb, cudaMemcpyHostToDevice, stream);  // ok: HST-03
    pair_dot<<<(pairs + 127) / 128, 128, 0, stream>>>(d_a, d_b, len, pairs, d_out);
    cudaMemcpyAsync(out, d_out, pairs * sizeof(float), cudaMemcpyDeviceToHost, stream);  // ok: HST-03
    cudaFreeAsync(d_a, stream);
    cudaFreeAsync(d_b, stream);
    cudaFreeAsync(d_out, stream);
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
}
