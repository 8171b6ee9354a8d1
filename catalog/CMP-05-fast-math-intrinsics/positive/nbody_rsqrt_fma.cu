#include <cuda_runtime.h>

__device__ __forceinline__ float inv_dist3(float dx, float dy, float dz, float eps2) {
    float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2))); // expect: CMP-05
    float inv = rsqrtf(r2); // expect: CMP-05
    return inv * inv * inv;
}

__global__ void gravity(const float4* p, float4* a, int n, float eps2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = p[i];
    float ax = 0.f, ay = 0.f, az = 0.f;
    for (int j = 0; j < n; ++j) {
        float4 pj = p[j];
        float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
        float s = pj.w * inv_dist3(dx, dy, dz, eps2);
        ax += dx * s; ay += dy * s; az += dz * s;
    }
    a[i] = make_float4(ax, ay, az, 0.f);
}

extern "C" void solution_compute(const float* pos_mass, float* acc, int n) {
    float4 *dp, *da;
    cudaMalloc(&dp, sizeof(float4) * n);
    cudaMalloc(&da, sizeof(float4) * n);
    cudaMemcpy(dp, pos_mass, sizeof(float4) * n, cudaMemcpyHostToDevice);
    gravity<<<(n + 127) / 128, 128>>>(dp, da, n, 1e-4f);
    cudaMemcpy(acc, da, sizeof(float4) * n, cudaMemcpyDeviceToHost);
    cudaFree(dp); cudaFree(da);
}
