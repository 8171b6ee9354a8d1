// Case: the host transposes a square matrix in place (each pair swapped through a temporary) so
// that the kernel reads its columns as rows. Filling the lower triangle of a symmetric matrix
// from the upper one (w[j*n + i] = w[i*n + j]) mirrors values; it re-lays nothing out.
#include <cuda_runtime.h>

__global__ void row_dots(const float *a, const float *w, float *out, int n)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
        s += a[r * n + k] * w[r * n + k];
    out[r] = s;
}

extern "C" void solution_compute(float *a, float *w, float *out, int n)
{
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            float t = a[i * n + j];
            a[i * n + j] = a[j * n + i];  // expect: MEM-07
            a[j * n + i] = t;
        }
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            w[j * n + i] = w[i * n + j];  // ok: MEM-07
    float *da, *dw, *dout;
    cudaMalloc(&da, sizeof(float) * n * n);
    cudaMalloc(&dw, sizeof(float) * n * n);
    cudaMalloc(&dout, sizeof(float) * n);
    cudaMemcpy(da, a, sizeof(float) * n * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w, sizeof(float) * n * n, cudaMemcpyHostToDevice);
    row_dots<<<(n + 255) / 256, 256>>>(da, dw, dout, n);
    cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(dw);
    cudaFree(dout);
}
