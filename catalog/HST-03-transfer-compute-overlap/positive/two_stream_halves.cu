// 1-D convolution of a long signal with a short filter: two halves on two streams.
#include <cuda_runtime.h>

__global__ void conv1d(const float* in, const float* taps, int ntaps, float* out, int n, int halo) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < ntaps; ++k) acc += taps[k] * in[i + halo - k];
    out[i] = acc;
}

extern "C" void solution_compute(int n, int ntaps, const float* signal, const float* taps, float* out) {
    int half = n / 2;
    int halo = ntaps - 1;
    float *d_in, *d_out, *d_taps;
    cudaMalloc(&d_in, (n + halo) * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMalloc(&d_taps, ntaps * sizeof(float));
    cudaMemset(d_in, 0, halo * sizeof(float));
    cudaMemcpy(d_taps, taps, ntaps * sizeof(float), cudaMemcpyHostToDevice);

    cudaStream_t s0, s1;
    cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);

    cudaMemcpyAsync(d_in + halo, signal, half * sizeof(float), cudaMemcpyHostToDevice, s0);  // expect: HST-03
    conv1d<<<(half + 255) / 256, 256, 0, s0>>>(d_in, d_taps, ntaps, d_out, half, halo);
    cudaMemcpyAsync(out, d_out, half * sizeof(float), cudaMemcpyDeviceToHost, s0);  // expect: HST-03

    cudaMemcpyAsync(d_in + halo + half, signal + half, (n - half) * sizeof(float), cudaMemcpyHostToDevice, s1);  // expect: HST-03
    cudaStreamSynchronize(s0);
    conv1d<<<(n - half + 255) / 256, 256, 0, s1>>>(d_in + half, d_taps, ntaps, d_out + half, n - half, halo);
    cudaMemcpyAsync(out + half, d_out + half, (n - half) * sizeof(float), cudaMemcpyDeviceToHost, s1);  // expect: HST-03

    cudaStreamSynchronize(s0);
    cudaStreamSynchronize(s1);
    cudaStreamDestroy(s0);
    cudaStreamDestroy(s1);
    cudaFree(d_in); cudaFree(d_out); cudaFree(d_taps);
}
