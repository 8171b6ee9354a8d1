// Black-Scholes over N options in chunks on four streams: the copies of one chunk overlap
// the kernel of another.
#include <cuda_runtime.h>
#include <math.h>

#define NSTREAMS 4

__global__ void bs_chunk(const float* S, const float* K, const float* T, float r, float v,
                         float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sq = v * sqrtf(T[i]);
    float d1 = (logf(S[i] / K[i]) + (r + 0.5f * v * v) * T[i]) / sq;
    float d2 = d1 - sq;
    out[i] = S[i] * normcdff(d1) - K[i] * expf(-r * T[i]) * normcdff(d2);
}

extern "C" void solution_compute(int N, float r, float v, const float* spots, const float* strikes,
                                 const float* ts, float* prices) {
    size_t bytes = (size_t)N * sizeof(float);
    cudaHostRegister((void*)spots, bytes, cudaHostRegisterDefault);
    cudaHostRegister((void*)strikes, bytes, cudaHostRegisterDefault);
    cudaHostRegister((void*)ts, bytes, cudaHostRegisterDefault);
    cudaHostRegister(prices, bytes, cudaHostRegisterDefault);

    float *dS, *dK, *dT, *dP;
    cudaMalloc(&dS, bytes);
    cudaMalloc(&dK, bytes);
    cudaMalloc(&dT, bytes);
    cudaMalloc(&dP, bytes);

    cudaStream_t streams[NSTREAMS];
    for (int s = 0; s < NSTREAMS; ++s) cudaStreamCreate(&streams[s]);

    int chunk = (N + NSTREAMS * 4 - 1) / (NSTREAMS * 4);
    for (int off = 0, c = 0; off < N; off += chunk, ++c) {
        int len = (N - off < chunk) ? N - off : chunk;
        cudaStream_t st = streams[c % NSTREAMS];
        size_t cb = len * sizeof(float);
        cudaMemcpyAsync(dS + off, spots + off, cb, cudaMemcpyHostToDevice, st);  // expect: HST-03
        cudaMemcpyAsync(dK + off, strikes + off, cb, cudaMemcpyHostToDevice, st);  // expect: HST-03
        cudaMemcpyAsync(dT + off, ts + off, cb, cudaMemcpyHostToDevice, st);  // expect: HST-03
        bs_chunk<<<(len + 255) / 256, 256, 0, st>>>(dS + off, dK + off, dT + off, r, v, dP + off, len);
        cudaMemcpyAsync(prices + off, dP + off, cb, cudaMemcpyDeviceToHost, st);  // expect: HST-03
    }
    cudaDeviceSynchronize();

    for (int s = 0; s < NSTREAMS; ++s) cudaStreamDestroy(streams[s]);
    cudaFree(dS); cudaFree(dK); cudaFree(dT); cudaFree(dP);
    cudaHostUnregister((void*)spots);
    cudaHostUnregister((void*)strikes);
    cudaHostUnregister((void*)ts);
    cudaHostUnregister(prices);
}
