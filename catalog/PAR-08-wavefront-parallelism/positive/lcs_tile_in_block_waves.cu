#include <cuda_runtime.h>

#define T 64

// Longest common subsequence of many short string pairs (length <= T), one
// block per pair. Inside the block, thread r owns row r of the DP table and the
// rows advance together along anti-diagonals.
__global__ void lcs_pairs(const char* a, const char* b, int* out) {
    __shared__ int dp[T + 1][T + 1];
    const char* sa = a + blockIdx.x * T;
    const char* sb = b + blockIdx.x * T;
    int r = threadIdx.x + 1;
    for (int c = 0; c <= T; ++c) dp[r][c] = 0;
    if (threadIdx.x == 0)
        for (int c = 0; c <= T; ++c) dp[0][c] = 0;
    __syncthreads();
    for (int d = 0; d < 2 * T - 1; ++d) {  // expect: PAR-08
        int c = d - threadIdx.x + 1;
        if (c >= 1 && c <= T) {
            dp[r][c] = sa[r - 1] == sb[c - 1] ? dp[r - 1][c - 1] + 1
                                               : max(dp[r - 1][c], dp[r][c - 1]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = dp[T][T];
}

extern "C" void solution_compute(int pairs, const char* a, const char* b, int* out) {
    char *da, *db;
    int* dout;
    cudaMalloc(&da, (size_t)pairs * T);
    cudaMalloc(&db, (size_t)pairs * T);
    cudaMalloc(&dout, pairs * sizeof(int));
    cudaMemcpy(da, a, (size_t)pairs * T, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, (size_t)pairs * T, cudaMemcpyHostToDevice);
    lcs_pairs<<<pairs, T>>>(da, db, dout);
    cudaMemcpy(out, dout, pairs * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
}
