#include <cuda_runtime.h>

// Piecewise-linear interpolation: each thread binary-searches the table for its
// own input value. The search key is data, not a share of the work.
__global__ void interp(const float* xs, const float* ys, int m, const float* q, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float key = q[i];
    int lo = 0, hi = m - 1;
    while (hi - lo > 1) {  // ok: LBL-05
        int mid = (lo + hi) / 2;
        if (xs[mid] <= key) lo = mid;
        else hi = mid;
    }
    float t = (key - xs[lo]) / (xs[hi] - xs[lo]);
    out[i] = ys[lo] + t * (ys[hi] - ys[lo]);
}

extern "C" void solution_compute(int m, const float* xs, const float* ys, int n, const float* q,
                                 float* out) {
    float *dxs, *dys, *dq, *dout;
    cudaMalloc(&dxs, m * sizeof(float));
    cudaMalloc(&dys, m * sizeof(float));
    cudaMalloc(&dq, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(dxs, xs, m * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dys, ys, m * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dq, q, n * sizeof(float), cudaMemcpyHostToDevice);
    interp<<<(n + 255) / 256, 256>>>(dxs, dys, m, dq, dout, n);
    cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dxs);
    cudaFree(dys);
    cudaFree(dq);
    cudaFree(dout);
}
