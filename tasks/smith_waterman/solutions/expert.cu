// Smith-Waterman local alignment scores, one warp per pair with register blocking.
//
// The matrix is swept in strips of 32*R rows of a. Lane k of the warp owns R consecutive rows
// of a strip and, at step s, fills column j = s - k + 1 for all R of them, so the warp advances
// an anti-diagonal front with no block barriers. The only value a lane needs from its
// neighbour is the H of the neighbour's last row at the same column, which arrives by one
// shuffle per step, packed with the b character so that b is read from memory by lane 0 only.
// Lane 0 takes the row above the strip from a per-warp shared-memory edge row, which lane 31
// rewrites with the strip's bottom row as it goes (lane 31 reaches column j 31 steps after
// lane 0 has read it). Each cell is one Hopper three-way max-with-zero (DPX) instruction.
// Full strips are compiled without the row mask; only the last, partial strip carries it.
#include <cuda_runtime.h>
#include <cstdio>
#include <algorithm>
#include <vector>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

constexpr int WARPS = 8;        // warps (pairs) per block
constexpr int R = 4;            // rows of a per lane
constexpr int STRIP = 32 * R;   // rows of a per strip

template <bool PARTIAL>
__device__ __forceinline__ void strip_pass(const unsigned char* __restrict__ a, int i0, int la,
                                           const unsigned char* __restrict__ b, int lb,
                                           int* edge, int lane, int match, int mismatch,
                                           int gap, int& best)
{
    int ar[R];
    int left[R];  // H[i_r][j-1]
    const int first = i0 + lane * R;
    const int nrows = la - first;  // rows of this lane that exist (PARTIAL only)
#pragma unroll
    for (int r = 0; r < R; r++) {
        ar[r] = (!PARTIAL || first + r < la) ? (int)a[first + r] : -1;
        left[r] = 0;
    }
    int diag0 = 0;          // H[i_0 - 1][j-1]
    unsigned int out = 0;   // (H of this lane's last row << 8) | b_j, for lane + 1
    int next_up = 0, next_b = 0;
    if (lane == 0 && lb > 0) {
        next_up = edge[1];
        next_b = b[0];
    }
    const int steps = lb + 31;
    for (int s = 0; s < steps; s++) {
        const unsigned int in = __shfl_up_sync(0xffffffffu, out, 1);
        const int j = s - lane + 1;
        int up, bj;
        if (lane == 0) {
            up = next_up;
            bj = next_b;
            if (j < lb) {  // prefetch the next column's inputs off the critical path
                next_up = edge[j + 1];
                next_b = b[j];
            }
        } else {
            up = (int)(in >> 8);
            bj = (int)(in & 0xffu);
        }
        if (j >= 1 && j <= lb) {
            int d = diag0, u = up;
#pragma unroll
            for (int r = 0; r < R; r++) {
                const int sc = (ar[r] == bj) ? match : mismatch;
                const int h = __vimax3_s32_relu(d + sc, u - gap, left[r] - gap);
                d = left[r];
                left[r] = h;
                u = h;
                if (!PARTIAL || r < nrows) best = max(best, h);
            }
            diag0 = up;
            out = ((unsigned int)u << 8) | (unsigned int)bj;
            if (lane == 31) edge[j] = u;
        }
    }
}

__global__ void __launch_bounds__(WARPS * 32)
sw_warp_kernel(int num_pairs, const unsigned char* __restrict__ a_seqs,
               const unsigned char* __restrict__ b_seqs, const int* __restrict__ meta,
               int max_b, int match, int mismatch, int gap, int* __restrict__ scores)
{
    extern __shared__ int smem[];
    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const int p = blockIdx.x * WARPS + warp;
    if (p >= num_pairs) return;  // the whole warp leaves together
    const int la = meta[num_pairs + p];
    const int lb = meta[3 * num_pairs + p];
    const unsigned char* a = a_seqs + meta[p];
    const unsigned char* b = b_seqs + meta[2 * num_pairs + p];
    int* edge = smem + (size_t)warp * (max_b + 1);

    for (int j = lane; j <= lb; j += 32) edge[j] = 0;
    __syncwarp();
    int best = 0;
    int i0 = 0;
    for (; i0 + STRIP <= la; i0 += STRIP) {
        strip_pass<false>(a, i0, la, b, lb, edge, lane, match, mismatch, gap, best);
        __syncwarp();
    }
    if (i0 < la) strip_pass<true>(a, i0, la, b, lb, edge, lane, match, mismatch, gap, best);
    best = __reduce_max_sync(0xffffffffu, best);
    if (lane == 0) scores[p] = best;
}

extern "C" void solution_compute(int num_pairs, const char* a_seqs, const int* a_off,
                                 const int* a_len, const char* b_seqs, const int* b_off,
                                 const int* b_len, int match, int mismatch, int gap, int* scores)
{
    unsigned char* d_seq = nullptr;
    int* d_meta = nullptr;
    size_t a_total = 0, b_total = 0, smem = 0;
    int max_b = 0, blocks = 0;
    std::vector<int> meta;
    if (num_pairs <= 0) return;
    // Offsets and lengths go over in one copy: [a_off | a_len | b_off | b_len], then scores.
    meta.resize((size_t)4 * num_pairs);
    for (int p = 0; p < num_pairs; p++) {
        a_total = std::max(a_total, (size_t)a_off[p] + a_len[p]);
        b_total = std::max(b_total, (size_t)b_off[p] + b_len[p]);
        max_b = std::max(max_b, b_len[p]);
    }
    std::copy(a_off, a_off + num_pairs, meta.begin());
    std::copy(a_len, a_len + num_pairs, meta.begin() + num_pairs);
    std::copy(b_off, b_off + num_pairs, meta.begin() + 2 * (size_t)num_pairs);
    std::copy(b_len, b_len + num_pairs, meta.begin() + 3 * (size_t)num_pairs);

    smem = (size_t)WARPS * (max_b + 1) * sizeof(int);
    if (smem > 48 * 1024)
        CK(cudaFuncSetAttribute(sw_warp_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem));
    CK(cudaMalloc(&d_seq, a_total + b_total + 16));
    CK(cudaMalloc(&d_meta, (size_t)5 * num_pairs * sizeof(int)));
    CK(cudaMemcpy(d_seq, a_seqs, a_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_seq + a_total, b_seqs, b_total, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_meta, meta.data(), meta.size() * sizeof(int), cudaMemcpyHostToDevice));

    blocks = (num_pairs + WARPS - 1) / WARPS;
    sw_warp_kernel<<<blocks, WARPS * 32, smem>>>(num_pairs, d_seq, d_seq + a_total, d_meta,
                                                 max_b, match, mismatch, gap,
                                                 d_meta + (size_t)4 * num_pairs);
    CK(cudaGetLastError());
    CK(cudaMemcpy(scores, d_meta + (size_t)4 * num_pairs, (size_t)num_pairs * sizeof(int),
                  cudaMemcpyDeviceToHost));
done:
    cudaFree(d_seq);
    cudaFree(d_meta);
}
