// Smith-Waterman local alignment scores: one thread block per pair, the score matrix swept in
// strips of ROWS rows of a. Inside a strip thread t owns row i0 + t + 1 and the block walks the
// anti-diagonals, so at step s thread t fills column s - t + 1; the last two diagonals live in
// shared memory, as do b and the bottom row of the previous strip. The pair's best score is a
// shared-memory tree reduction at the end.
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

constexpr int ROWS = 128;  // threads per block = rows per strip

__global__ void __launch_bounds__(ROWS)
sw_block_kernel(const char* __restrict__ a_seqs, const int* __restrict__ a_off,
                const int* __restrict__ a_len, const char* __restrict__ b_seqs,
                const int* __restrict__ b_off, const int* __restrict__ b_len, int max_b,
                int match, int mismatch, int gap, int* __restrict__ scores)
{
    extern __shared__ int smem[];
    int* edge = smem;                                  // H[i0][0..lb], bottom row of last strip
    char* bs = reinterpret_cast<char*>(edge + max_b + 1);  // b, lb characters
    __shared__ int wave[2][ROWS];                      // outputs of the two previous steps
    __shared__ int red[ROWS];

    const int p = blockIdx.x;
    const int t = threadIdx.x;
    const int la = a_len[p];
    const int lb = b_len[p];
    const char* a = a_seqs + a_off[p];
    const char* b = b_seqs + b_off[p];

    for (int j = t; j < lb; j += ROWS) bs[j] = b[j];
    for (int j = t; j <= lb; j += ROWS) edge[j] = 0;
    __syncthreads();

    int best = 0;
    for (int i0 = 0; i0 < la; i0 += ROWS) {
        const int i = i0 + t + 1;
        const bool active = i <= la;
        const char ai = active ? a[i - 1] : 0;
        int left = 0;  // H[i][j-1]
        int diag = 0;  // H[i-1][j-1]
        const int steps = lb + ROWS - 1;
        for (int s = 0; s < steps; s++) {
            const int j = s - t + 1;
            int h = 0;
            if (active && j >= 1 && j <= lb) {
                // Thread t-1 filled H[i-1][j] on the previous step; thread 0 reads the strip
                // above from edge[], which thread ROWS-1 overwrites only ROWS-1 steps later.
                const int up = (t == 0) ? edge[j] : wave[(s + 1) & 1][t - 1];
                h = diag + (ai == bs[j - 1] ? match : mismatch);
                h = max(h, up - gap);
                h = max(h, left - gap);
                h = max(h, 0);
                diag = up;
                left = h;
                best = max(best, h);
                if (t == ROWS - 1) edge[j] = h;
            }
            wave[s & 1][t] = h;
            __syncthreads();
        }
    }

    red[t] = best;
    __syncthreads();
    for (int half = ROWS / 2; half > 0; half >>= 1) {
        if (t < half) red[t] = max(red[t], red[t + half]);
        __syncthreads();
    }
    if (t == 0) scores[p] = red[0];
}

extern "C" void solution_compute(int num_pairs, const char* a_seqs, const int* a_off,
                                 const int* a_len, const char* b_seqs, const int* b_off,
                                 const int* b_len, int match, int mismatch, int gap, int* scores)
{
    char *d_a = nullptr, *d_b = nullptr;
    int *d_aoff = nullptr, *d_alen = nullptr, *d_boff = nullptr, *d_blen = nullptr;
    int* d_scores = nullptr;
    size_t a_total = 0, b_total = 0;
    const size_t ib = (size_t)num_pairs * sizeof(int);
    int max_b = 0;
    size_t smem = 0;
    if (num_pairs <= 0) return;
    for (int p = 0; p < num_pairs; p++) {
        if ((size_t)a_off[p] + a_len[p] > a_total) a_total = (size_t)a_off[p] + a_len[p];
        if ((size_t)b_off[p] + b_len[p] > b_total) b_total = (size_t)b_off[p] + b_len[p];
        if (b_len[p] > max_b) max_b = b_len[p];
    }
    smem = (size_t)(max_b + 1) * sizeof(int) + (size_t)max_b;
    if (smem > 48 * 1024)
        CK(cudaFuncSetAttribute(sw_block_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem));

    CK(cudaMalloc(&d_a, a_total + 1));
    CK(cudaMalloc(&d_b, b_total + 1));
    CK(cudaMalloc(&d_aoff, ib));
    CK(cudaMalloc(&d_alen, ib));
    CK(cudaMalloc(&d_boff, ib));
    CK(cudaMalloc(&d_blen, ib));
    CK(cudaMalloc(&d_scores, ib));
    CK(cudaMemcpy(d_a, a_seqs, a_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, b_seqs, b_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_aoff, a_off, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_alen, a_len, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_boff, b_off, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_blen, b_len, ib, cudaMemcpyHostToDevice));

    sw_block_kernel<<<num_pairs, ROWS, smem>>>(d_a, d_aoff, d_alen, d_b, d_boff, d_blen, max_b,
                                               match, mismatch, gap, d_scores);
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
}
