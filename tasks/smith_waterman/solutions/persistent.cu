// Smith-Waterman local alignment scores in a single persistent launch.
//
// The grid is sized to what the device keeps resident at once. Each warp takes pairs from a
// global atomic counter until none are left, so long and short pairs balance out without a
// second pass, and aligns its pair as an anti-diagonal front: lane k owns two rows of each
// 64-row strip of a and fills column s - k + 1 at step s, taking the neighbour's bottom value
// by a shuffle. The strip boundary row is kept in shared memory per warp.
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

constexpr int BLOCK = 256;
constexpr int WARPS = BLOCK / 32;
constexpr int RPL = 2;  // rows per lane

__device__ int align_pair(const char* a, int la, const char* b, int lb, int* edge, int lane,
                          int match, int mismatch, int gap)
{
    const unsigned full = 0xffffffffu;
    for (int j = lane; j <= lb; j += 32) edge[j] = 0;
    __syncwarp();
    int best = 0;
    for (int i0 = 0; i0 < la; i0 += 32 * RPL) {
        const int r0 = i0 + lane * RPL;  // 0-based index of this lane's first row
        const char a0 = r0 < la ? a[r0] : 0;
        const char a1 = r0 + 1 < la ? a[r0 + 1] : 0;
        const bool has0 = r0 < la, has1 = r0 + 1 < la;
        int left0 = 0, left1 = 0, diag = 0, last = 0;
        for (int s = 0; s < lb + 31; s++) {
            const int from_above = __shfl_up_sync(full, last, 1);
            const int j = s - lane + 1;
            if (j >= 1 && j <= lb) {
                const char bj = b[j - 1];
                const int up = lane == 0 ? edge[j] : from_above;
                int h0 = diag + (a0 == bj ? match : mismatch);
                h0 = max(max(h0, 0), max(up, left0) - gap);
                int h1 = left0 + (a1 == bj ? match : mismatch);
                h1 = max(max(h1, 0), max(h0, left1) - gap);
                if (has0) best = max(best, h0);
                if (has1) best = max(best, h1);
                diag = up;
                left0 = h0;
                left1 = h1;
                last = h1;
                if (lane == 31) edge[j] = h1;
            }
        }
        __syncwarp();
    }
    return best;
}

__global__ void __launch_bounds__(BLOCK)
sw_persistent(int num_pairs, const char* __restrict__ a_seqs, const int* __restrict__ a_off,
              const int* __restrict__ a_len, const char* __restrict__ b_seqs,
              const int* __restrict__ b_off, const int* __restrict__ b_len, int max_b,
              int match, int mismatch, int gap, int* next_pair, int* __restrict__ scores)
{
    extern __shared__ int smem[];
    const int lane = threadIdx.x & 31;
    int* edge = smem + (size_t)(threadIdx.x >> 5) * (max_b + 1);
    for (;;) {
        int p = 0;
        if (lane == 0) p = atomicAdd(next_pair, 1);
        p = __shfl_sync(0xffffffffu, p, 0);
        if (p >= num_pairs) break;
        const int best = align_pair(a_seqs + a_off[p], a_len[p], b_seqs + b_off[p], b_len[p],
                                    edge, lane, match, mismatch, gap);
        const int score = __reduce_max_sync(0xffffffffu, best);
        if (lane == 0) scores[p] = score;
    }
}

extern "C" void solution_compute(int num_pairs, const char* a_seqs, const int* a_off,
                                 const int* a_len, const char* b_seqs, const int* b_off,
                                 const int* b_len, int match, int mismatch, int gap, int* scores)
{
    char *d_a = nullptr, *d_b = nullptr;
    int *d_aoff = nullptr, *d_alen = nullptr, *d_boff = nullptr, *d_blen = nullptr;
    int *d_scores = nullptr, *d_counter = nullptr;
    size_t a_total = 0, b_total = 0, smem = 0;
    const size_t ib = (size_t)num_pairs * sizeof(int);
    int max_b = 0, dev = 0, sms = 0, per_sm = 0, grid = 0;
    if (num_pairs <= 0) return;
    for (int p = 0; p < num_pairs; p++) {
        if ((size_t)a_off[p] + a_len[p] > a_total) a_total = (size_t)a_off[p] + a_len[p];
        if ((size_t)b_off[p] + b_len[p] > b_total) b_total = (size_t)b_off[p] + b_len[p];
        if (b_len[p] > max_b) max_b = b_len[p];
    }
    smem = (size_t)WARPS * (max_b + 1) * sizeof(int);
    if (smem > 48 * 1024)
        CK(cudaFuncSetAttribute(sw_persistent, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem));
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sw_persistent, BLOCK, smem));
    grid = sms * (per_sm > 0 ? per_sm : 1);
    if (grid > (num_pairs + WARPS - 1) / WARPS) grid = (num_pairs + WARPS - 1) / WARPS;

    CK(cudaMalloc(&d_a, a_total + 1));
    CK(cudaMalloc(&d_b, b_total + 1));
    CK(cudaMalloc(&d_aoff, ib));
    CK(cudaMalloc(&d_alen, ib));
    CK(cudaMalloc(&d_boff, ib));
    CK(cudaMalloc(&d_blen, ib));
    CK(cudaMalloc(&d_scores, ib));
    CK(cudaMalloc(&d_counter, sizeof(int)));
    CK(cudaMemcpy(d_a, a_seqs, a_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, b_seqs, b_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_aoff, a_off, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_alen, a_len, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_boff, b_off, ib, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_blen, b_len, ib, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_counter, 0, sizeof(int)));

    sw_persistent<<<grid, BLOCK, smem>>>(num_pairs, d_a, d_aoff, d_alen, d_b, d_boff, d_blen,
                                         max_b, match, mismatch, gap, d_counter, d_scores);
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
    cudaFree(d_counter);
}
