// Smith-Waterman local alignment scores: one thread per pair, previous and current rows in
// global memory (same layout and copies as the plain port), with the inner loop tightened:
// read-only loads, the row character and the diagonal/left cells kept in registers,
// branch-free max, an unrolled column loop and launch bounds for the 256-thread blocks.
#include <cuda_runtime.h>
#include <cstdio>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e = (call);                                                        \
        if (e != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e),         \
                    __FILE__, __LINE__);                                               \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

#define THREADS 256

__global__ void __launch_bounds__(THREADS)
sw_kernel(int num_pairs, const char* __restrict__ a_seqs, const int* __restrict__ a_off,
          const int* __restrict__ a_len, const char* __restrict__ b_seqs,
          const int* __restrict__ b_off, const int* __restrict__ b_len, int match, int mismatch,
          int gap, int* prev_rows, int* cur_rows, int row_len,
          int* __restrict__ scores)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= num_pairs) return;

    const char* __restrict__ a = a_seqs + __ldg(a_off + p);
    const char* __restrict__ b = b_seqs + __ldg(b_off + p);
    const int la = __ldg(a_len + p);
    const int lb = __ldg(b_len + p);
    int* prev = prev_rows + (size_t)p * row_len;
    int* cur = cur_rows + (size_t)p * row_len;

    for (int j = 0; j <= lb; j++) {
        prev[j] = 0;
        cur[j] = 0;
    }
    int best = 0;
    for (int i = 1; i <= la; i++) {
        const char ai = __ldg(a + i - 1);
        int diag = 0;   // H[i-1][j-1]
        int left = 0;   // H[i][j-1]
#pragma unroll 4
        for (int j = 1; j <= lb; j++) {
            const int up = prev[j];
            const int s = (ai == __ldg(b + j - 1)) ? match : mismatch;
            int h = max(diag + s, max(up, left) - gap);
            h = max(h, 0);
            cur[j] = h;
            best = max(best, h);
            diag = up;
            left = h;
        }
        int* tmp = prev;
        prev = cur;
        cur = tmp;
    }
    scores[p] = best;
}

extern "C" void solution_compute(int num_pairs, const char* a_seqs, const int* a_off,
                                 const int* a_len, const char* b_seqs, const int* b_off,
                                 const int* b_len, int match, int mismatch, int gap, int* scores)
{
    char* d_a = NULL;
    char* d_b = NULL;
    int* d_a_off = NULL;
    int* d_a_len = NULL;
    int* d_b_off = NULL;
    int* d_b_len = NULL;
    int* d_prev = NULL;
    int* d_cur = NULL;
    int* d_scores = NULL;
    size_t a_bytes = 0, b_bytes = 0;
    size_t int_bytes = (size_t)num_pairs * sizeof(int);
    size_t rows_bytes;
    int max_b = 0;
    int blocks;

    if (num_pairs <= 0) return;

    for (int p = 0; p < num_pairs; p++) {
        size_t a_end = (size_t)a_off[p] + a_len[p];
        size_t b_end = (size_t)b_off[p] + b_len[p];
        if (a_end > a_bytes) a_bytes = a_end;
        if (b_end > b_bytes) b_bytes = b_end;
        if (b_len[p] > max_b) max_b = b_len[p];
    }
    rows_bytes = (size_t)num_pairs * (max_b + 1) * sizeof(int);

    CHECK(cudaMalloc((void**)&d_a, a_bytes + 1));
    CHECK(cudaMalloc((void**)&d_b, b_bytes + 1));
    CHECK(cudaMalloc((void**)&d_a_off, int_bytes));
    CHECK(cudaMalloc((void**)&d_a_len, int_bytes));
    CHECK(cudaMalloc((void**)&d_b_off, int_bytes));
    CHECK(cudaMalloc((void**)&d_b_len, int_bytes));
    CHECK(cudaMalloc((void**)&d_prev, rows_bytes));
    CHECK(cudaMalloc((void**)&d_cur, rows_bytes));
    CHECK(cudaMalloc((void**)&d_scores, int_bytes));

    CHECK(cudaMemcpy(d_a, a_seqs, a_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b_seqs, b_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_a_off, a_off, int_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_a_len, a_len, int_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b_off, b_off, int_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b_len, b_len, int_bytes, cudaMemcpyHostToDevice));

    blocks = (num_pairs + THREADS - 1) / THREADS;
    sw_kernel<<<blocks, THREADS>>>(num_pairs, d_a, d_a_off, d_a_len, d_b, d_b_off, d_b_len, match,
                                   mismatch, gap, d_prev, d_cur, max_b + 1, d_scores);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(scores, d_scores, int_bytes, cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_a_off);
    cudaFree(d_a_len);
    cudaFree(d_b_off);
    cudaFree(d_b_len);
    cudaFree(d_prev);
    cudaFree(d_cur);
    cudaFree(d_scores);
}
