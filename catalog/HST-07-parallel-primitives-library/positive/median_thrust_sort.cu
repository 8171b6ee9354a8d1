// Median and mean of per-sample scores: scores computed by a kernel, then sorted and summed
// on the device with Thrust.
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

__global__ void score(const float* a, const float* b, int n, float* s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) s[i] = a[i] * a[i] + b[i] * b[i];
}

extern "C" void solution_compute(int n, const float* a, const float* b, float* median, float* mean) {
    float *d_a, *d_b, *d_s;
    cudaMalloc(&d_a, n * sizeof(float));
    cudaMalloc(&d_b, n * sizeof(float));
    cudaMalloc(&d_s, n * sizeof(float));
    cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, n * sizeof(float), cudaMemcpyHostToDevice);
    score<<<(n + 255) / 256, 256>>>(d_a, d_b, n, d_s);

    thrust::device_ptr<float> s(d_s);
    thrust::sort(thrust::device, s, s + n);  // expect: HST-07
    float total = thrust::reduce(s, s + n, 0.0f);  // expect: HST-07
    float mid;
    cudaMemcpy(&mid, d_s + n / 2, sizeof(float), cudaMemcpyDeviceToHost);
    *median = mid;
    *mean = total / n;
    cudaFree(d_a); cudaFree(d_b); cudaFree(d_s);
}
