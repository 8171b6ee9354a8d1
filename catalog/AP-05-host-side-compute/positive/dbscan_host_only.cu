// DBSCAN core-point labelling. The input is copied to the device and a kernel is defined,
// but the neighbour counting that produces the answer runs in a host helper.
#include <cuda_runtime.h>

__global__ void count_neighbors(const float* xs, const float* ys, int n, float eps2, int* cnt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = 0;
    for (int j = 0; j < n; ++j) {
        float dx = xs[i] - xs[j], dy = ys[i] - ys[j];
        if (dx * dx + dy * dy <= eps2) ++c;
    }
    cnt[i] = c;
}

static void label_core_points(int N, const float* xs, const float* ys, float eps, int minPts, int* labels) {
    float eps2 = eps * eps;
    for (int i = 0; i < N; ++i) {  // expect: AP-05
        int c = 0;
        for (int j = 0; j < N; ++j) {
            float dx = xs[i] - xs[j], dy = ys[i] - ys[j];
            if (dx * dx + dy * dy <= eps2) ++c;
        }
        labels[i] = (c >= minPts) ? 1 : 0;
    }
}

extern "C" void solution_compute(int N, const float* xs, const float* ys, float eps, int minPts, int* labels) {
    float *d_x, *d_y;
    cudaMalloc(&d_x, N * sizeof(float));
    cudaMalloc(&d_y, N * sizeof(float));
    cudaMemcpy(d_x, xs, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, ys, N * sizeof(float), cudaMemcpyHostToDevice);
    label_core_points(N, xs, ys, eps, minPts, labels);
    cudaFree(d_x);
    cudaFree(d_y);
}
