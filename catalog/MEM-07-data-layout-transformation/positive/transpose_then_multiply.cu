#include <cuda_runtime.h>

// B is transposed once on the device so that the product kernel reads both operands row-wise.
__global__ void transpose(const float* b, float* bt, int k, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < k && c < n) bt[c * k + r] = b[r * n + c]; // expect: MEM-07
}

__global__ void gemm_bt(const float* a, const float* bt, float* c, int m, int n, int k) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p) acc += a[row * k + p] * bt[col * k + p];
    c[row * n + col] = acc;
}

// Rows of the image are padded to a pitch that keeps every row aligned.
__global__ void row_scale(float* img, size_t pitch, int w, int h, float s) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) ((float*)((char*)img + y * pitch))[x] *= s;
}

extern "C" void solution_compute(const float* a, const float* b, float* c, int m, int n, int k,
                                 float* img, int w, int h) {
    float *da, *db, *dbt, *dc;
    cudaMalloc(&da, sizeof(float) * m * k); cudaMalloc(&db, sizeof(float) * k * n);
    cudaMalloc(&dbt, sizeof(float) * k * n); cudaMalloc(&dc, sizeof(float) * m * n);
    cudaMemcpy(da, a, sizeof(float) * m * k, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof(float) * k * n, cudaMemcpyHostToDevice);
    dim3 blk(16, 16);
    transpose<<<dim3((n + 15) / 16, (k + 15) / 16), blk>>>(db, dbt, k, n);
    gemm_bt<<<dim3((n + 15) / 16, (m + 15) / 16), blk>>>(da, dbt, dc, m, n, k);
    cudaMemcpy(c, dc, sizeof(float) * m * n, cudaMemcpyDeviceToHost);

    float* dimg; size_t pitch;
    cudaMallocPitch(&dimg, &pitch, w * sizeof(float), h); // expect: MEM-07
    cudaMemcpy2D(dimg, pitch, img, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice); // expect: MEM-07
    row_scale<<<dim3((w + 15) / 16, (h + 15) / 16), blk>>>(dimg, pitch, w, h, 0.5f);
    cudaMemcpy2D(img, w * sizeof(float), dimg, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost); // expect: MEM-07
    cudaFree(da); cudaFree(db); cudaFree(dbt); cudaFree(dc); cudaFree(dimg);
}
