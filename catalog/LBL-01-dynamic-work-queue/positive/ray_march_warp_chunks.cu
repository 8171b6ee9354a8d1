#include <cuda_runtime.h>

#define CHUNK 32

// Sphere-traced rays with data-dependent step counts: each warp grabs chunks of
// 32 rays from a global counter, one ray per lane.
__device__ float scene_sdf(float x, float y, float z) {
    float d1 = sqrtf(x * x + y * y + z * z) - 1.0f;
    float d2 = y + 1.0f;
    return fminf(d1, d2);
}

__global__ void trace_rays(const float* dirs, int n_rays, int max_steps, unsigned int* next_ray,
                           float* depth) {
    int lane = threadIdx.x & 31;
    while (true) {
        unsigned int base = 0;
        if (lane == 0) base = atomicAdd(next_ray, CHUNK);  // expect: LBL-01
        base = __shfl_sync(0xffffffff, base, 0);
        if (base >= (unsigned int)n_rays) return;
        unsigned int r = base + lane;
        if (r < (unsigned int)n_rays) {
            float dx = dirs[3 * r], dy = dirs[3 * r + 1], dz = dirs[3 * r + 2];
            float t = 0.0f;
            for (int s = 0; s < max_steps; ++s) {
                float d = scene_sdf(dx * t, dy * t, dz * t - 4.0f);
                if (d < 1e-4f || t > 100.0f) break;
                t += d;
            }
            depth[r] = t;
        }
    }
}

extern "C" void solution_compute(int n_rays, int max_steps, const float* dirs, float* depth) {
    float *dd, *ddepth;
    unsigned int* dnext;
    cudaMalloc(&dd, 3 * (size_t)n_rays * sizeof(float));
    cudaMalloc(&ddepth, n_rays * sizeof(float));
    cudaMalloc(&dnext, sizeof(unsigned int));
    cudaMemcpy(dd, dirs, 3 * (size_t)n_rays * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dnext, 0, sizeof(unsigned int));
    trace_rays<<<264, 256>>>(dd, n_rays, max_steps, dnext, ddepth);
    cudaMemcpy(depth, ddepth, n_rays * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dd);
    cudaFree(ddepth);
    cudaFree(dnext);
}
