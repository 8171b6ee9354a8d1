#include <cuda_runtime.h>

#define BLOCK 256

// All-pairs gravitational accelerations; __launch_bounds__ caps registers so
// that four blocks of 256 threads fit on one SM.
__global__ void __launch_bounds__(BLOCK, 4) nbody_accel(const float4* pos, float3* acc, int n, float soft2) {  // expect: PAR-11
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int j = 0; j < n; ++j) {
        float4 pj = pos[j];
        float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + soft2);
        float s = pj.w * inv * inv * inv;
        a.x += dx * s;
        a.y += dy * s;
        a.z += dz * s;
    }
    acc[i] = a;
}

extern "C" void solution_compute(int n, const float* xyzm, float* acc_out, float soft2) {
    float4* dpos;
    float3* dacc;
    cudaMalloc(&dpos, n * sizeof(float4));
    cudaMalloc(&dacc, n * sizeof(float3));
    cudaMemcpy(dpos, xyzm, n * sizeof(float4), cudaMemcpyHostToDevice);
    nbody_accel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(dpos, dacc, n, soft2);
    cudaMemcpy(acc_out, dacc, n * sizeof(float3), cudaMemcpyDeviceToHost);
    cudaFree(dpos);
    cudaFree(dacc);
}
