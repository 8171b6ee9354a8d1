#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// C (n x n, float) = A (n x n, half) * B (n x n, half); n is a multiple of 16.
__global__ void gemm_wmma(const half* a, const half* b, float* c, int n) {
    int tile_row = blockIdx.y * 16;
    int tile_col = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < n; k += 16) {
        wmma::load_matrix_sync(fa, a + tile_row * n + k, n);
        wmma::load_matrix_sync(fb, b + k * n + tile_col, n);
        wmma::mma_sync(acc, fa, fb, acc);  // expect: CMP-X01
    }
    wmma::store_matrix_sync(c + tile_row * n + tile_col, acc, n, wmma::mem_row_major);
}

extern "C" void solution_compute(const half* a, const half* b, float* c, int n) {
    half *da, *db;
    float* dc;
    size_t in_bytes = (size_t)n * n * sizeof(half);
    cudaMalloc(&da, in_bytes);
    cudaMalloc(&db, in_bytes);
    cudaMalloc(&dc, (size_t)n * n * sizeof(float));
    cudaMemcpy(da, a, in_bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, in_bytes, cudaMemcpyHostToDevice);
    dim3 grid(n / 16, n / 16);
    gemm_wmma<<<grid, 32>>>(da, db, dc, n);
    cudaMemcpy(c, dc, (size_t)n * n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
}
