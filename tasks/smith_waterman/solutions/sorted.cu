// Smith-Waterman local alignment scores, one thread per pair after sorting the pairs by work.
//
// Threads of a warp run their DP loops in lockstep only as long as their pairs have the same
// size, so the pairs are first sorted by cell count (la * lb, largest first) with a CUB radix
// sort; thread t then aligns the t-th largest pair. Each thread keeps one score row in global
// memory, stored column-interleaved (cell j of thread t at j * num_pairs + t) so that a warp's
// row accesses fall on consecutive words while the threads stay in step. Scores are scattered
// back to the original pair order.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <climits>
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

constexpr int THREADS = 128;

__global__ void work_keys(int n, const int* __restrict__ a_len, const int* __restrict__ b_len,
                          unsigned* __restrict__ keys, int* __restrict__ ids)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    unsigned long long cells = (unsigned long long)a_len[p] * (unsigned long long)b_len[p];
    keys[p] = cells > UINT_MAX ? UINT_MAX : (unsigned)cells;
    ids[p] = p;
}

__global__ void __launch_bounds__(THREADS)
sw_sorted_kernel(int n, const int* __restrict__ order, const char* __restrict__ a_seqs,
                 const int* __restrict__ a_off, const int* __restrict__ a_len,
                 const char* __restrict__ b_seqs, const int* __restrict__ b_off,
                 const int* __restrict__ b_len, int match, int mismatch, int gap,
                 int* __restrict__ rows, int* __restrict__ scores)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const int p = order[t];
    const char* a = a_seqs + a_off[p];
    const char* b = b_seqs + b_off[p];
    const int la = a_len[p], lb = b_len[p];
    int* row = rows + t;  // cell j at row[j * n]
    const size_t stride = (size_t)n;

    for (int j = 0; j <= lb; j++) row[j * stride] = 0;
    int best = 0;
    for (int i = 1; i <= la; i++) {
        const char ai = a[i - 1];
        int diag = 0, left = 0;
        for (int j = 1; j <= lb; j++) {
            const int up = row[j * stride];
            int h = diag + (ai == b[j - 1] ? match : mismatch);
            h = max(h, up - gap);
            h = max(h, left - gap);
            h = max(h, 0);
            row[j * stride] = h;
            diag = up;
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
    int *d_scores = nullptr, *d_ids = nullptr, *d_order = nullptr, *d_rows = nullptr;
    unsigned *d_keys = nullptr, *d_keys_sorted = nullptr;
    void* d_temp = nullptr;
    size_t temp_bytes = 0, a_total = 0, b_total = 0;
    const size_t ib = (size_t)num_pairs * sizeof(int);
    int max_b = 0, blocks = 0;
    if (num_pairs <= 0) return;
    for (int p = 0; p < num_pairs; p++) {
        if ((size_t)a_off[p] + a_len[p] > a_total) a_total = (size_t)a_off[p] + a_len[p];
        if ((size_t)b_off[p] + b_len[p] > b_total) b_total = (size_t)b_off[p] + b_len[p];
        if (b_len[p] > max_b) max_b = b_len[p];
    }
    blocks = (num_pairs + THREADS - 1) / THREADS;

    CK(cudaMalloc(&d_a, a_total + 1));
    CK(cudaMalloc(&d_b, b_total + 1));
    CK(cudaMalloc(&d_aoff, ib));
    CK(cudaMalloc(&d_alen, ib));
    CK(cudaMalloc(&d_boff, ib));
    CK(cudaMalloc(&d_blen, ib));
    CK(cudaMalloc(&d_scores, ib));
    CK(cudaMalloc(&d_ids, ib));
    CK(cudaMalloc(&d_order, ib));
    CK(cudaMalloc(&d_keys, ib));
    CK(cudaMalloc(&d_keys_sorted, ib));
    CK(cudaMalloc(&d_rows, (size_t)(max_b + 1) * num_pairs * sizeof(int)));
    CK(cudaMemcpy(d_a, a_seqs, a_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, b_seqs, b_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_aoff, a_off, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_alen, a_len, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_boff, b_off, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_blen, b_len, ib, cudaMemcpyHostToDevice));

    work_keys<<<blocks, THREADS>>>(num_pairs, d_alen, d_blen, d_keys, d_ids);
    CK(cudaGetLastError());
    CK(cub::DeviceRadixSort::SortPairsDescending(nullptr, temp_bytes, d_keys, d_keys_sorted,
                                                 d_ids, d_order, num_pairs));
    CK(cudaMalloc(&d_temp, temp_bytes));
    CK(cub::DeviceRadixSort::SortPairsDescending(d_temp, temp_bytes, d_keys, d_keys_sorted,
                                                 d_ids, d_order, num_pairs));
    sw_sorted_kernel<<<blocks, THREADS>>>(num_pairs, d_order, d_a, d_aoff, d_alen, d_b, d_boff,
                                          d_blen, match, mismatch, gap, d_rows, d_scores);
    CK(cudaGetLastError());
    CK(cudaMemcpy(scores, d_scores, ib, cudaMemcpyDeviceToHost));
done:
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_aoff);
    cudaFree(d_alen);
    cudaFree(d_boff);
    cudaFree(d_blen);
    cudaFree(d_scores);
    cudaFree(d_ids);
    cudaFree(d_order);
    cudaFree(d_keys);
    cudaFree(d_keys_sorted);
    cudaFree(d_rows);
    cudaFree(d_temp);
}
