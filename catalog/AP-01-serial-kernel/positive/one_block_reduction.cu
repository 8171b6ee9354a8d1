// Portfolio value at risk: the loss of every scenario is summed by a single block of 256
// threads striding over all scenarios (one SM does the whole reduction).
#include <cuda_runtime.h>

__device__ float scenario_loss(const float* w, const float* r, int assets, int s) {
    float loss = 0.0f;
    for (int a = 0; a < assets; ++a) loss -= w[a] * r[(size_t)s * assets + a];
    return loss;
}

__global__ void total_loss(const float* w, const float* r, int scenarios, int assets, float* out) {
    __shared__ float part[256];
    float acc = 0.0f;
    for (int s = threadIdx.x; s < scenarios; s += blockDim.x) acc += scenario_loss(w, r, assets, s);
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = part[0] / scenarios;
}

extern "C" void solution_compute(int scenarios, int assets, const float* weights, const float* returns, float* mean_loss) {
    float *d_w, *d_r, *d_out;
    cudaMalloc(&d_w, assets * sizeof(float));
    cudaMalloc(&d_r, (size_t)scenarios * assets * sizeof(float));
    cudaMalloc(&d_out, sizeof(float));
    cudaMemcpy(d_w, weights, assets * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_r, returns, (size_t)scenarios * assets * sizeof(float), cudaMemcpyHostToDevice);
    total_loss<<<1, 256>>>(d_w, d_r, scenarios, assets, d_out);  // expect: AP-01
    cudaMemcpy(mean_loss, d_out, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_w); cudaFree(d_r); cudaFree(d_out);
}
