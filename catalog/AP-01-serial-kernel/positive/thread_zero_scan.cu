// Running balance of a ledger: the deltas are clamped in parallel, but the prefix sum over
// all N entries is done by thread 0 of block 0 while every other thread idles.
#include <cuda_runtime.h>

__global__ void clamp_deltas(const float* delta, float* clamped, int n, float limit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) clamped[i] = fmaxf(-limit, fminf(limit, delta[i]));
}

__global__ void running_balance(const float* clamped, float* balance, int n, float opening) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float acc = opening;
        for (int i = 0; i < n; ++i) {  // expect: AP-01
            acc += clamped[i];
            balance[i] = acc;
        }
    }
}

extern "C" void solution_compute(int N, const float* delta, float limit, float opening, float* balance) {
    float *d_delta, *d_clamped, *d_bal;
    cudaMalloc(&d_delta, N * sizeof(float));
    cudaMalloc(&d_clamped, N * sizeof(float));
    cudaMalloc(&d_bal, N * sizeof(float));
    cudaMemcpy(d_delta, delta, N * sizeof(float), cudaMemcpyHostToDevice);
    int threads = 256, blocks = (N + threads - 1) / threads;
    clamp_deltas<<<blocks, threads>>>(d_delta, d_clamped, N, limit);
    running_balance<<<blocks, threads>>>(d_clamped, d_bal, N, opening);
    cudaMemcpy(balance, d_bal, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_delta); cudaFree(d_clamped); cudaFree(d_bal);
}
