#include <cuda_runtime.h>

#define RADIUS 3
#define BLOCK 256

// 1-D 7-point stencil: each input element is read by 2*RADIUS+1 threads of the block.
__global__ void stencil_1d(const float* in, float* out, const float* w, int n) {
    __shared__ float s[BLOCK + 2 * RADIUS]; // expect: MEM-02
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    s[l] = (g < n) ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        s[l - RADIUS] = (g >= RADIUS) ? in[g - RADIUS] : 0.0f;
        s[l + BLOCK] = (g + BLOCK < n) ? in[g + BLOCK] : 0.0f;
    }
    __syncthreads();
    if (g >= n) return;
    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) acc += w[k + RADIUS] * s[l + k];
    out[g] = acc;
}

// n-body: the block stages a tile of body positions in dynamic shared memory.
__global__ void nbody_accel(const float4* pos, float3* acc, int n, float eps2) {
    extern __shared__ float4 sh_pos[]; // expect: MEM-02
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 pi = (i < n) ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int tile = 0; tile < n; tile += blockDim.x) {
        int j = tile + threadIdx.x;
        sh_pos[threadIdx.x] = (j < n) ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncthreads();
        for (int k = 0; k < blockDim.x; ++k) {
            float4 pj = sh_pos[k];
            float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
            float inv = rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
            float s = pj.w * inv * inv * inv;
            a.x += dx * s; a.y += dy * s; a.z += dz * s;
        }
        __syncthreads();
    }
    if (i < n) acc[i] = a;
}

extern "C" void solution_compute(const float* in, float* out, const float* w, int n,
                                 const float4* pos, float3* acc, int nb) {
    float *din, *dout, *dw;
    cudaMalloc(&din, sizeof(float) * n);
    cudaMalloc(&dout, sizeof(float) * n);
    cudaMalloc(&dw, sizeof(float) * (2 * RADIUS + 1));
    cudaMemcpy(din, in, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w, sizeof(float) * (2 * RADIUS + 1), cudaMemcpyHostToDevice);
    stencil_1d<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(din, dout, dw, n);
    cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);

    float4* dpos; float3* dacc;
    cudaMalloc(&dpos, sizeof(float4) * nb);
    cudaMalloc(&dacc, sizeof(float3) * nb);
    cudaMemcpy(dpos, pos, sizeof(float4) * nb, cudaMemcpyHostToDevice);
    int threads = 128;
    nbody_accel<<<(nb + threads - 1) / threads, threads, threads * sizeof(float4)>>>(dpos, dacc, nb, 1e-3f);
    cudaMemcpy(acc, dacc, sizeof(float3) * nb, cudaMemcpyDeviceToHost);
    cudaFree(din); cudaFree(dout); cudaFree(dw); cudaFree(dpos); cudaFree(dacc);
}
