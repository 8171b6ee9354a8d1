#include <cuda_runtime.h>

#define TILE 128

// Manual double buffering: the tile for the next step is loaded into the other stage before the
// current stage is used, so one __syncthreads per tile suffices and loads overlap the math.
__global__ void nbody_potential(const float4* body, float* phi, int n) {
    __shared__ float4 stage[2][TILE]; // expect: MEM-09
    int i = blockIdx.x * TILE + threadIdx.x;
    float4 bi = (i < n) ? body[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float acc = 0.0f;
    int ntiles = (n + TILE - 1) / TILE;
    int cur = 0;
    stage[0][threadIdx.x] = (threadIdx.x < n) ? body[threadIdx.x] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
    for (int t = 0; t < ntiles; ++t) {
        int nxt = cur ^ 1;
        int j = (t + 1) * TILE + threadIdx.x;
        if (t + 1 < ntiles) stage[nxt][threadIdx.x] = (j < n) ? body[j] : make_float4(0.f, 0.f, 0.f, 0.f);
        for (int k = 0; k < TILE; ++k) {
            float4 bj = stage[cur][k];
            float dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
            float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 > 0.0f) acc -= bj.w * rsqrtf(r2);
        }
        __syncthreads();
        cur = nxt;
    }
    if (i < n) phi[i] = acc;
}

extern "C" void solution_compute(const float* body, float* phi, int n) {
    float4* db; float* dp;
    cudaMalloc(&db, sizeof(float4) * n);
    cudaMalloc(&dp, sizeof(float) * n);
    cudaMemcpy(db, body, sizeof(float4) * n, cudaMemcpyHostToDevice);
    nbody_potential<<<(n + TILE - 1) / TILE, TILE>>>(db, dp, n);
    cudaMemcpy(phi, dp, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(db); cudaFree(dp);
}
