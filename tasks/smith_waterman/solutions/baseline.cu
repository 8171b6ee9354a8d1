// Baseline CUDA port of smith_waterman: one thread per pair, each running the row-by-row DP
// with its own row buffer in global memory.
#include <cuda_runtime.h>
#include <cstdio>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

__global__ void sw_kernel(int num_pairs, const char* __restrict__ a_seqs,
                          const int* __restrict__ a_off, const int* __restrict__ a_len,
                          const char* __restrict__ b_seqs, const int* __restrict__ b_off,
                          const int* __restrict__ b_len, int match, int mismatch, int gap,
                          int* rows, int row_stride, int* scores)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= num_pairs) return;
    const char* a = a_seqs + a_off[p];
    const char* b = b_seqs + b_off[p];
    int la = a_len[p], lb = b_len[p], best = 0;
    int* row = rows + (size_t)p * row_stride;
    for (int j = 0; j <= lb; j++) row[j] = 0;
    for (int i = 1; i <= la; i++) {
        int diag = 0, left = 0;
        char ai = a[i - 1];
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int h = diag + (ai == b[j - 1] ? match : mismatch);
            h = max(h, up - gap);
            h = max(h, left - gap);
            h = max(h, 0);
            diag = up;
            row[j] = h;
            left = h;
            best = max(best, h);
        }
    }
    scores[p] = best;
}

extern "C" void solution_compute(int num_pairs, const char* a_seqs, const int* a_off,
                                 const int* a_len, const char* b_seqs, const int* b_off,
                                 const int* b_len, int match, int mismatch, int gap, int* scores)
{
    char *d_a = nullptr, *d_b = nullptr;
    int *d_aoff = nullptr, *d_alen = nullptr, *d_boff = nullptr, *d_blen = nullptr;
    int *d_rows = nullptr, *d_scores = nullptr;
    size_t a_total = 0, b_total = 0, ib = (size_t)num_pairs * sizeof(int);
    int max_b = 0;
    const int threads = 128;
    int blocks = (num_pairs + threads - 1) / threads;
    if (num_pairs <= 0) return;
    for (int p = 0; p < num_pairs; p++) {
        if ((size_t)a_off[p] + a_len[p] > a_total) a_total = (size_t)a_off[p] + a_len[p];
        if ((size_t)b_off[p] + b_len[p] > b_total) b_total = (size_t)b_off[p] + b_len[p];
        if (b_len[p] > max_b) max_b = b_len[p];
    }
    CK(cudaMalloc(&d_a, a_total + 1));
    CK(cudaMalloc(&d_b, b_total + 1));
    CK(cudaMalloc(&d_aoff, ib));
    CK(cudaMalloc(&d_alen, ib));
    CK(cudaMalloc(&d_boff, ib));
    CK(cudaMalloc(&d_blen, ib));
    CK(cudaMalloc(&d_scores, ib));
    CK(cudaMalloc(&d_rows, (size_t)num_pairs * (max_b + 1) * sizeof(int)));
    CK(cudaMemcpy(d_a, a_seqs, a_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, b_seqs, b_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_aoff, a_off, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_alen, a_len, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_boff, b_off, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_blen, b_len, ib, cudaMemcpyHostToDevice));
    sw_kernel<<<blocks, threads>>>(num_pairs, d_a, d_aoff, d_alen, d_b, d_boff, d_blen, match,
                                   mismatch, gap, d_rows, max_b + 1, d_scores);
    CK(cudaGetLastError());
    CK(cudaMemcpy(scores, d_scores, ib, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_aoff);
    cudaFree(d_alen);
    cudaFree(d_boff);
    cudaFree(d_blen);
    cudaFree(d_rows);
    cudaFree(d_scores);
}
