// Pairwise Euclidean distance matrix. Device buffers are kept in static pointers and only
// grown when a larger problem arrives, so later calls skip the allocations.
#include <cuda_runtime.h>

__global__ void pdist(const float* pts, int n, int d, float* out) {
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || j >= n) return;
    float s = 0.0f;
    for (int k = 0; k < d; ++k) {
        float t = pts[i * d + k] - pts[j * d + k];
        s += t * t;
    }
    out[i * n + j] = sqrtf(s);
}

extern "C" void solution_compute(int n, int d, const float* pts, float* dist) {
    static float* d_pts = nullptr;  // expect: AP-04
    static float* d_out = nullptr;  // expect: AP-04
    static size_t cap_n = 0;  // expect: AP-04
    if ((size_t)n > cap_n) {
        if (d_pts) { cudaFree(d_pts); cudaFree(d_out); }
        cudaMalloc(&d_pts, (size_t)n * d * sizeof(float));
        cudaMalloc(&d_out, (size_t)n * n * sizeof(float));
        cap_n = n;
    }
    cudaMemcpy(d_pts, pts, (size_t)n * d * sizeof(float), cudaMemcpyHostToDevice);
    dim3 blk(16, 16), grd((n + 15) / 16, (n + 15) / 16);
    pdist<<<grd, blk>>>(d_pts, n, d, d_out);
    cudaMemcpy(dist, d_out, (size_t)n * n * sizeof(float), cudaMemcpyDeviceToHost);
}
