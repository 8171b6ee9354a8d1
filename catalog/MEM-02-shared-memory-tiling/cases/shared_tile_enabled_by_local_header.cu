// Case: the shared-memory version is chosen by a macro that a local header defines: the header is
// read as the compiler reads it (the file's own folder), so the #ifdef branch is live and RADIUS
// and BLOCK have their values.
#include <cuda_runtime.h>
#include "stencil_config.h"

__global__ void smooth(const float* in, float* out, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
#ifdef USE_SHARED_TILE
    __shared__ float tile[BLOCK + 2 * RADIUS];  // expect: MEM-02
    tile[threadIdx.x + RADIUS] = i < n ? in[i] : 0.0f;
    if (threadIdx.x < RADIUS) {
        tile[threadIdx.x] = i >= RADIUS ? in[i - RADIUS] : 0.0f;
        tile[threadIdx.x + BLOCK + RADIUS] = i + BLOCK < n ? in[i + BLOCK] : 0.0f;
    }
    __syncthreads();
    if (i >= n) return;
    float s = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) s += tile[threadIdx.x + RADIUS + k];
    out[i] = s / (2 * RADIUS + 1);
#else
    if (i >= n) return;
    float s = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) s += (i + k >= 0 && i + k < n) ? in[i + k] : 0.0f;
    out[i] = s / (2 * RADIUS + 1);
#endif
}

extern "C" void solution_compute(const float* in, float* out, int n) {
    smooth<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
    cudaDeviceSynchronize();
}
