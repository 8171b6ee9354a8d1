// Count of points inside the unit circle: <<<1,1>>> only resets the counter, and a one-block
// pass adds the per-block partial counts (a few hundred values, not the problem).
#include <cuda_runtime.h>

__global__ void reset(int* counter) {
    *counter = 0;
}

__global__ void count_inside(const float* x, const float* y, int n, int* partial) {
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (i < n && x[i] * x[i] + y[i] * y[i] <= 1.0f) ? 1 : 0;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];  // ok: AP-01
}

__global__ void finish(const int* partial, int nparts, int* total) {
    __shared__ int s[256];
    int acc = 0;
    for (int p = threadIdx.x; p < nparts; p += blockDim.x) acc += partial[p];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) *total = s[0];
}

extern "C" void solution_compute(int n, const float* x, const float* y, int* inside) {
    float *d_x, *d_y;
    int *d_partial, *d_total;
    int threads = 256, blocks = (n + threads - 1) / threads;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMalloc(&d_partial, blocks * sizeof(int));
    cudaMalloc(&d_total, sizeof(int));
    cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, n * sizeof(float), cudaMemcpyHostToDevice);
    reset<<<1, 1>>>(d_total);  // ok: AP-01
    count_inside<<<blocks, threads>>>(d_x, d_y, n, d_partial);
    finish<<<1, 256>>>(d_partial, blocks, d_total);  // ok: AP-01
    cudaMemcpy(inside, d_total, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_x); cudaFree(d_y); cudaFree(d_partial); cudaFree(d_total);
}
