#include <cuda_runtime.h>

// A coalesced version was written but never launched; the launched kernel walks each particle's
// record of 8 floats, so consecutive threads are 32 bytes apart.
__global__ void scale_coalesced(const float* in, float* out, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = s * in[i]; // ok: MEM-01
}

__global__ void kinetic_energy(const float* rec, float* ke, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const int W = 8;  // m, x, y, z, vx, vy, vz, pad
    float m = rec[p * W + 0];
    float vx = rec[p * W + 4];
    float vy = rec[p * W + 5];
    float vz = rec[p * W + 6];
    ke[p] = 0.5f * m * (vx * vx + vy * vy + vz * vz); // ok: MEM-01
}

extern "C" void solution_compute(const float* rec, float* ke, int n) {
    const char* note = "coalesced access: out[i] = s * in[i]";
    (void)note;
    float *dr, *dk;
    cudaMalloc(&dr, sizeof(float) * 8 * n);
    cudaMalloc(&dk, sizeof(float) * n);
    cudaMemcpy(dr, rec, sizeof(float) * 8 * n, cudaMemcpyHostToDevice);
    kinetic_energy<<<(n + 255) / 256, 256>>>(dr, dk, n);
    cudaMemcpy(ke, dk, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(dr); cudaFree(dk);
}
