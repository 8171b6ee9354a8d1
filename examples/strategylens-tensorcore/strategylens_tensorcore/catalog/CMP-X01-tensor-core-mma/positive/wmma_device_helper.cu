#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> Acc;

__device__ void tile_product(Acc& acc, const half* a, const half* b, int lda, int ldb) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::mma_sync(acc, fa, fb, acc);  // expect: CMP-X01
}

// Batched 16x16 products: one warp per batch item.
__global__ void batched_tiles(const half* a, const half* b, float* c, int batch) {
    int item = blockIdx.x;
    if (item >= batch) return;
    Acc acc;
    wmma::fill_fragment(acc, 0.0f);
    tile_product(acc, a + item * 256, b + item * 256, 16, 16);
    wmma::store_matrix_sync(c + item * 256, acc, 16, wmma::mem_row_major);
}

extern "C" void solution_compute(const half* a, const half* b, float* c, int batch) {
    half *da, *db;
    float* dc;
    cudaMalloc(&da, batch * 256 * sizeof(half));
    cudaMalloc(&db, batch * 256 * sizeof(half));
    cudaMalloc(&dc, batch * 256 * sizeof(float));
    cudaMemcpy(da, a, batch * 256 * sizeof(half), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, batch * 256 * sizeof(half), cudaMemcpyHostToDevice);
    batched_tiles<<<batch, 32>>>(da, db, dc, batch);
    cudaMemcpy(c, dc, batch * 256 * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
}
