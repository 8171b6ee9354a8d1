#include <cuda_runtime.h>
#include <float.h>

// k-means assignment step: nearest centroid per point, per-cluster counts and
// coordinate sums combined with atomics, and the largest distance kept with atomicMax.
__global__ void assign_kernel(const float* px, const float* py, const float* cx, const float* cy,
                              int n, int k, int* label, int* counts, float* sx, float* sy,
                              unsigned int* max_dist_bits) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float best = FLT_MAX;
    int arg = 0;
    for (int c = 0; c < k; ++c) {
        float dx = px[i] - cx[c], dy = py[i] - cy[c];
        float d = dx * dx + dy * dy;
        if (d < best) { best = d; arg = c; }
    }
    label[i] = arg;
    atomicAdd(&counts[arg], 1);  // expect: PAR-06
    atomicAdd(&sx[arg], px[i]);  // expect: PAR-06
    atomicAdd(&sy[arg], py[i]);  // expect: PAR-06
    atomicMax(max_dist_bits, __float_as_uint(best));  // expect: PAR-06
}

extern "C" void solution_compute(int n, int k, const float* px, const float* py, const float* cx,
                                 const float* cy, int* label, int* counts, float* sx, float* sy,
                                 float* max_dist) {
    float *dpx, *dpy, *dcx, *dcy, *dsx, *dsy;
    int *dl, *dc;
    unsigned int* dm;
    cudaMalloc(&dpx, n * sizeof(float));
    cudaMalloc(&dpy, n * sizeof(float));
    cudaMalloc(&dcx, k * sizeof(float));
    cudaMalloc(&dcy, k * sizeof(float));
    cudaMalloc(&dsx, k * sizeof(float));
    cudaMalloc(&dsy, k * sizeof(float));
    cudaMalloc(&dl, n * sizeof(int));
    cudaMalloc(&dc, k * sizeof(int));
    cudaMalloc(&dm, sizeof(unsigned int));
    cudaMemcpy(dpx, px, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dpy, py, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dcx, cx, k * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dcy, cy, k * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dsx, 0, k * sizeof(float));
    cudaMemset(dsy, 0, k * sizeof(float));
    cudaMemset(dc, 0, k * sizeof(int));
    cudaMemset(dm, 0, sizeof(unsigned int));
    assign_kernel<<<(n + 255) / 256, 256>>>(dpx, dpy, dcx, dcy, n, k, dl, dc, dsx, dsy, dm);
    unsigned int bits = 0;
    cudaMemcpy(label, dl, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(counts, dc, k * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(sx, dsx, k * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(sy, dsy, k * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(&bits, dm, sizeof(unsigned int), cudaMemcpyDeviceToHost);
    *max_dist = sqrtf(*reinterpret_cast<float*>(&bits));
    cudaFree(dpx); cudaFree(dpy); cudaFree(dcx); cudaFree(dcy);
    cudaFree(dsx); cudaFree(dsy); cudaFree(dl); cudaFree(dc); cudaFree(dm);
}
