// 1-D convolution with the input window and the filter staged in one dynamic shared buffer,
// reached through pointers carved out of it.
#include <cuda_runtime.h>

__global__ void conv(const float* in, const float* taps, float* out, int n, int k) {
    extern __shared__ float smem[];
    float* w = smem;                  // k filter taps
    float* window = smem + k;         // blockDim.x + k - 1 inputs
    for (int t = threadIdx.x; t < k; t += blockDim.x) w[t] = taps[t];  // expect: MEM-02
    int base = blockIdx.x * blockDim.x;
    for (int t = threadIdx.x; t < blockDim.x + k - 1; t += blockDim.x)
        window[t] = (base + t < n) ? in[base + t] : 0.0f;  // expect: MEM-02
    __syncthreads();
    int i = base + threadIdx.x;
    if (i + k <= n) {
        float acc = 0.0f;
        for (int j = 0; j < k; ++j) acc += w[j] * window[threadIdx.x + j];
        out[i] = acc;
    }
}

extern "C" void solution_compute(int n, int k, const float* x, const float* taps, float* y) {
    float *dx, *dt, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dt, k * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dt, taps, k * sizeof(float), cudaMemcpyHostToDevice);
    size_t smem = (256 + 2 * k) * sizeof(float);
    conv<<<(n + 255) / 256, 256, smem>>>(dx, dt, dy, n, k);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dt); cudaFree(dy);
}
