// Case: a header (no launch, no instantiation) with a register-tiled matrix product whose tile
// sizes are template parameters: ROWS, COLS and DEPTH are compile-time constants of unknown value,
// so sum[ROWS][COLS] is a register tile, the loops over ROWS and COLS write several outputs per
// thread, and the template is specialised by its callers.
#pragma once

template <int TILE_M, int TILE_N, int DEPTH, int ROWS, int COLS>  // expect: CMP-07
__global__ void tile_product(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float sa[DEPTH][TILE_M];
    __shared__ float sb[DEPTH][TILE_N];
    const int ty = threadIdx.x / (TILE_N / COLS);
    const int tx = threadIdx.x % (TILE_N / COLS);
    const int row0 = blockIdx.y * TILE_M;
    const int col0 = blockIdx.x * TILE_N;
    float sum[ROWS][COLS] = {};  // expect: MEM-03
    float ra[ROWS];
    float rb[COLS];
    for (int t = 0; t < k; t += DEPTH) {
        for (int e = threadIdx.x; e < DEPTH * TILE_M; e += blockDim.x)
            sa[e % DEPTH][e / DEPTH] = a[(row0 + e / DEPTH) * k + t + e % DEPTH];
        for (int e = threadIdx.x; e < DEPTH * TILE_N; e += blockDim.x)
            sb[e / TILE_N][e % TILE_N] = b[(t + e / TILE_N) * n + col0 + e % TILE_N];
        __syncthreads();
        for (int d = 0; d < DEPTH; ++d) {
            for (int i = 0; i < ROWS; ++i) ra[i] = sa[d][ty * ROWS + i];
            for (int j = 0; j < COLS; ++j) rb[j] = sb[d][tx * COLS + j];
            for (int i = 0; i < ROWS; ++i)
                for (int j = 0; j < COLS; ++j)
                    sum[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < ROWS; ++i)  // expect: PAR-02
        for (int j = 0; j < COLS; ++j)
            c[(row0 + ty * ROWS + i) * n + col0 + tx * COLS + j] = sum[i][j];
}
