// Stream compaction of the points inside a disc: flags from a kernel, an exclusive scan with
// CUB to get output slots, then a scatter kernel.
#include <cuda_runtime.h>
#include <cub/cub.cuh>

__global__ void flag_inside(const float* x, const float* y, int n, float r2, int* flags) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = (x[i] * x[i] + y[i] * y[i] <= r2) ? 1 : 0;
}

__global__ void scatter(const int* flags, const int* slots, int n, int* out_idx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flags[i]) out_idx[slots[i]] = i;
}

extern "C" void solution_compute(int n, const float* x, const float* y, float radius, int* out_idx, int* out_count) {
    float *d_x, *d_y;
    int *d_flags, *d_slots, *d_out;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMalloc(&d_flags, n * sizeof(int));
    cudaMalloc(&d_slots, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, n * sizeof(float), cudaMemcpyHostToDevice);
    flag_inside<<<(n + 255) / 256, 256>>>(d_x, d_y, n, radius * radius, d_flags);

    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_flags, d_slots, n);  // expect: HST-07
    cudaMalloc(&d_temp, temp_bytes);
    cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_flags, d_slots, n);  // expect: HST-07
    scatter<<<(n + 255) / 256, 256>>>(d_flags, d_slots, n, d_out);

    int last_slot, last_flag;
    cudaMemcpy(&last_slot, d_slots + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&last_flag, d_flags + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
    *out_count = last_slot + last_flag;
    cudaMemcpy(out_idx, d_out, *out_count * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_temp); cudaFree(d_x); cudaFree(d_y); cudaFree(d_flags); cudaFree(d_slots); cudaFree(d_out);
}
