// k-means (Lloyd): assignments and centroid sums on the device, but the number of points that
// changed cluster is copied back and tested after every iteration.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void assign(const float* x, const float* y, int n, const float* cx, const float* cy, int k,
                       int* label, int* moved, float* sx, float* sy, int* cnt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int best = 0;
    float bd = FLT_MAX;
    for (int c = 0; c < k; ++c) {
        float dx = x[i] - cx[c], dy = y[i] - cy[c];
        float d = dx * dx + dy * dy;
        if (d < bd) { bd = d; best = c; }
    }
    if (label[i] != best) { label[i] = best; atomicAdd(moved, 1); }
    atomicAdd(&sx[best], x[i]);
    atomicAdd(&sy[best], y[i]);
    atomicAdd(&cnt[best], 1);
}

__global__ void update(float* cx, float* cy, const float* sx, const float* sy, const int* cnt, int k) {
    int c = threadIdx.x;
    if (c < k && cnt[c] > 0) { cx[c] = sx[c] / cnt[c]; cy[c] = sy[c] / cnt[c]; }
}

extern "C" void solution_compute(int n, int k, int max_iter, const float* x, const float* y,
                                 const float* init_cx, const float* init_cy, int* labels) {
    float *d_x, *d_y, *d_cx, *d_cy, *d_sx, *d_sy;
    int *d_label, *d_moved, *d_cnt;
    cudaMalloc(&d_x, n * sizeof(float)); cudaMalloc(&d_y, n * sizeof(float));
    cudaMalloc(&d_cx, k * sizeof(float)); cudaMalloc(&d_cy, k * sizeof(float));
    cudaMalloc(&d_sx, k * sizeof(float)); cudaMalloc(&d_sy, k * sizeof(float));
    cudaMalloc(&d_label, n * sizeof(int)); cudaMalloc(&d_moved, sizeof(int)); cudaMalloc(&d_cnt, k * sizeof(int));
    cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_cx, init_cx, k * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_cy, init_cy, k * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_label, 0xff, n * sizeof(int));
    for (int it = 0; it < max_iter; ++it) {
        cudaMemset(d_moved, 0, sizeof(int));
        cudaMemset(d_sx, 0, k * sizeof(float)); cudaMemset(d_sy, 0, k * sizeof(float));
        cudaMemset(d_cnt, 0, k * sizeof(int));
        assign<<<(n + 255) / 256, 256>>>(d_x, d_y, n, d_cx, d_cy, k, d_label, d_moved, d_sx, d_sy, d_cnt);
        update<<<1, 1024>>>(d_cx, d_cy, d_sx, d_sy, d_cnt, k);
        int moved = 0;
        cudaMemcpy(&moved, d_moved, sizeof(int), cudaMemcpyDeviceToHost);  // ok: HST-05
        if (moved == 0) break;
    }
    cudaMemcpy(labels, d_label, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_x); cudaFree(d_y); cudaFree(d_cx); cudaFree(d_cy); cudaFree(d_sx); cudaFree(d_sy);
    cudaFree(d_label); cudaFree(d_moved); cudaFree(d_cnt);
}
