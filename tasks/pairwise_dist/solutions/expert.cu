// Pairwise distances for the H200, where the n x m result crossing PCIe costs far more than
// computing it. The result is produced in row chunks; the host page-locks each chunk of the
// caller's output in place (cudaHostRegister, about 25 GB/s) while the previous chunk is
// already copying at pinned speed, so the registration, the copy and the kernels overlap.
// The chunks are unpinned only at the end: on the H200, unpinning inside the loop stalled the
// pipeline (cudaHostUnregister waits for the copies in flight).
// Kernel: 64x64 outputs per 256-thread block, 4x4 per thread in registers, float4 loads of
// 16-coordinate slabs, double-buffered shared tiles with the next slab prefetched into
// registers while the current one is consumed. Differences are summed in k order as in the
// reference, so results match it to a few ulps.
#include <cuda_runtime.h>
#include <cstdint>
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

namespace {

constexpr int BT = 16;            // threads per block side
constexpr int RB = 4;             // outputs per thread per side
constexpr int BM = BT * RB;       // 64 points per tile side
constexpr int TK = 16;            // coordinates per slab
constexpr int NT = BT * BT;
constexpr int MAX_CHUNKS = 64;
constexpr size_t CHUNK_BYTES = size_t(16) << 20;
constexpr size_t PIN_MIN_BYTES = size_t(4) << 20;   // below this a plain copy is as fast
constexpr uintptr_t PAGE = 4096;

template <bool VEC>
struct Slab {
    static constexpr int PER = VEC ? (BM * TK / 4) / NT : (BM * TK) / NT;  // loads per thread
    float4 x[VEC ? PER : 1], y[VEC ? PER : 1];
    float xs[VEC ? 1 : PER], ys[VEC ? 1 : PER];

    __device__ void load(const float* __restrict__ X, const float* __restrict__ Y, int n_end,
                         int m, int d, int row0, int col0, int k0, int tid)
    {
        if constexpr (VEC) {
#pragma unroll
            for (int p = 0; p < PER; p++) {
                const int e = tid + p * NT, r = e / (TK / 4), k = k0 + 4 * (e % (TK / 4));
                const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
                x[p] = (row0 + r < n_end && k < d)
                    ? __ldg(reinterpret_cast<const float4*>(X + (size_t)(row0 + r) * d + k)) : z;
                y[p] = (col0 + r < m && k < d)
                    ? __ldg(reinterpret_cast<const float4*>(Y + (size_t)(col0 + r) * d + k)) : z;
            }
        } else {
#pragma unroll
            for (int p = 0; p < PER; p++) {
                const int e = tid + p * NT, r = e / TK, k = k0 + e % TK;
                xs[p] = (row0 + r < n_end && k < d) ? __ldg(X + (size_t)(row0 + r) * d + k) : 0.f;
                ys[p] = (col0 + r < m && k < d) ? __ldg(Y + (size_t)(col0 + r) * d + k) : 0.f;
            }
        }
    }

    __device__ void store(float (*sx)[BM + 1], float (*sy)[BM + 1], int tid) const
    {
        if constexpr (VEC) {
#pragma unroll
            for (int p = 0; p < PER; p++) {
                const int e = tid + p * NT, r = e / (TK / 4), kk = 4 * (e % (TK / 4));
                sx[kk][r] = x[p].x; sx[kk + 1][r] = x[p].y; sx[kk + 2][r] = x[p].z; sx[kk + 3][r] = x[p].w;
                sy[kk][r] = y[p].x; sy[kk + 1][r] = y[p].y; sy[kk + 2][r] = y[p].z; sy[kk + 3][r] = y[p].w;
            }
        } else {
#pragma unroll
            for (int p = 0; p < PER; p++) {
                const int e = tid + p * NT, r = e / TK, kk = e % TK;
                sx[kk][r] = xs[p];
                sy[kk][r] = ys[p];
            }
        }
    }
};

// Rows [row_begin, row_end) of the result; blockIdx.y counts 64-row tiles from row_begin.
template <bool VEC>
__global__ void __launch_bounds__(NT)
dist_tiles(const float* __restrict__ X, const float* __restrict__ Y, float* __restrict__ dist,
           int row_begin, int row_end, int m, int d)
{
    __shared__ float sx[2][TK][BM + 1];
    __shared__ float sy[2][TK][BM + 1];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BT + tx;
    const int row0 = row_begin + blockIdx.y * BM, col0 = blockIdx.x * BM;

    float acc[RB][RB];
#pragma unroll
    for (int r = 0; r < RB; r++)
#pragma unroll
        for (int c = 0; c < RB; c++) acc[r][c] = 0.f;

    Slab<VEC> slab;
    slab.load(X, Y, row_end, m, d, row0, col0, 0, tid);
    slab.store(sx[0], sy[0], tid);
    __syncthreads();

    int buf = 0;
    for (int k0 = 0; k0 < d; k0 += TK, buf ^= 1) {
        const bool more = k0 + TK < d;
        if (more) slab.load(X, Y, row_end, m, d, row0, col0, k0 + TK, tid);
#pragma unroll
        for (int kk = 0; kk < TK; kk++) {
            float xv[RB], yv[RB];
#pragma unroll
            for (int r = 0; r < RB; r++) xv[r] = sx[buf][kk][ty + r * BT];
#pragma unroll
            for (int c = 0; c < RB; c++) yv[c] = sy[buf][kk][tx + c * BT];
#pragma unroll
            for (int r = 0; r < RB; r++)
#pragma unroll
                for (int c = 0; c < RB; c++) {
                    const float diff = xv[r] - yv[c];
                    acc[r][c] = fmaf(diff, diff, acc[r][c]);
                }
        }
        // the other buffer was last read before the previous barrier, so it is free to fill
        if (more) slab.store(sx[buf ^ 1], sy[buf ^ 1], tid);
        __syncthreads();
    }

#pragma unroll
    for (int r = 0; r < RB; r++) {
        const int i = row0 + ty + r * BT;
        if (i >= row_end) break;
        float* out = dist + (size_t)i * m;
#pragma unroll
        for (int c = 0; c < RB; c++) {
            const int j = col0 + tx + c * BT;
            if (j < m) out[j] = sqrtf(acc[r][c]);
        }
    }
}

cudaError_t launch_rows(const float* dX, const float* dY, float* dD, int r0, int r1, int m, int d,
                        bool vec, cudaStream_t s)
{
    const dim3 block(BT, BT);
    // grid.y is limited to 65535 tiles; chunks are far smaller, but split anyway
    for (int a = r0; a < r1; a += 65535 * BM) {
        const int b = (r1 - a > 65535 * BM) ? a + 65535 * BM : r1;
        const dim3 grid((m + BM - 1) / BM, (b - a + BM - 1) / BM);
        if (vec) dist_tiles<true><<<grid, block, 0, s>>>(dX, dY, dD, a, b, m, d);
        else dist_tiles<false><<<grid, block, 0, s>>>(dX, dY, dD, a, b, m, d);
    }
    return cudaGetLastError();
}

}  // namespace

extern "C" void solution_compute(const float* X, int n, const float* Y, int m, int d, float* dist)
{
    float *dX = nullptr, *dY = nullptr, *dD = nullptr;
    cudaStream_t sk = nullptr, sc = nullptr;
    cudaEvent_t kev[MAX_CHUNKS] = {}, cev[MAX_CHUNKS] = {};
    bool pinned[MAX_CHUNKS] = {};
    char* lo[MAX_CHUNKS + 1];
    int rows_end[MAX_CHUNKS];
    int chunks = 1, rows_per = 0;
    const size_t xb = (size_t)n * d * sizeof(float), yb = (size_t)m * d * sizeof(float);
    const size_t row_bytes = (size_t)m * sizeof(float);
    const size_t db = (size_t)n * row_bytes;
    const bool vec = (d % 4) == 0;

    if (n <= 0 || m <= 0) return;
    CK(cudaStreamCreateWithFlags(&sk, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&sc, cudaStreamNonBlocking));
    CK(cudaMallocAsync(&dX, xb + 16, sk));
    CK(cudaMallocAsync(&dY, yb + 16, sk));
    CK(cudaMallocAsync(&dD, db, sk));
    CK(cudaMemcpyAsync(dX, X, xb, cudaMemcpyHostToDevice, sk));
    CK(cudaMemcpyAsync(dY, Y, yb, cudaMemcpyHostToDevice, sk));

    if (db < PIN_MIN_BYTES) {  // small result: one launch, one plain copy
        CK(launch_rows(dX, dY, dD, 0, n, m, d, vec, sk));
        CK(cudaMemcpyAsync(dist, dD, db, cudaMemcpyDeviceToHost, sk));
        CK(cudaStreamSynchronize(sk));
        goto done;
    }

    // Row chunks of about CHUNK_BYTES, whole 64-row tiles each.
    rows_per = (int)((CHUNK_BYTES / row_bytes + BM - 1) / BM * BM);
    if (rows_per < BM) rows_per = BM;
    chunks = (n + rows_per - 1) / rows_per;
    if (chunks > MAX_CHUNKS) {
        rows_per = ((n + MAX_CHUNKS - 1) / MAX_CHUNKS + BM - 1) / BM * BM;
        chunks = (n + rows_per - 1) / rows_per;
    }
    // Copy ranges start on page boundaries (except the first), so registered ranges never
    // share a page; range c ends before the first row of chunk c+1, so it only holds rows
    // that kernels 0..c have written.
    lo[0] = reinterpret_cast<char*>(dist);
    for (int c = 0; c < chunks; c++) {
        rows_end[c] = (c + 1) * rows_per < n ? (c + 1) * rows_per : n;
        uintptr_t a = reinterpret_cast<uintptr_t>(dist) + (size_t)rows_end[c] * row_bytes;
        if (c + 1 < chunks) a &= ~(PAGE - 1);
        lo[c + 1] = reinterpret_cast<char*>(a);
        if (lo[c + 1] < lo[c]) lo[c + 1] = lo[c];
    }
    for (int c = 0; c < chunks; c++) {
        CK(cudaEventCreateWithFlags(&kev[c], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&cev[c], cudaEventDisableTiming));
    }
    // All kernels first: they take well under a millisecond together.
    for (int c = 0; c < chunks; c++) {
        CK(launch_rows(dX, dY, dD, c * rows_per, rows_end[c], m, d, vec, sk));
        CK(cudaEventRecord(kev[c], sk));
    }
    for (int c = 0; c < chunks; c++) {
        const size_t len = (size_t)(lo[c + 1] - lo[c]);
        const size_t off = (size_t)(lo[c] - lo[0]);
        if (len > 0) {
            cudaError_t r = cudaHostRegister(lo[c], len, cudaHostRegisterDefault);
            if (r == cudaSuccess) pinned[c] = true;
            else cudaGetLastError();  // not pinnable here: the copy below still works, staged
            CK(cudaStreamWaitEvent(sc, kev[c], 0));
            CK(cudaMemcpyAsync(lo[c], reinterpret_cast<char*>(dD) + off, len,
                               cudaMemcpyDeviceToHost, sc));
        }
        CK(cudaEventRecord(cev[c], sc));
    }
    CK(cudaStreamSynchronize(sc));

done:
    if (sc) cudaStreamSynchronize(sc);
    if (sk) cudaStreamSynchronize(sk);
    for (int c = 0; c < chunks && c < MAX_CHUNKS; c++) {
        if (pinned[c]) cudaHostUnregister(lo[c]);
        if (kev[c]) cudaEventDestroy(kev[c]);
        if (cev[c]) cudaEventDestroy(cev[c]);
    }
    if (sk) {
        cudaFreeAsync(dX, sk);
        cudaFreeAsync(dY, sk);
        cudaFreeAsync(dD, sk);
        cudaStreamSynchronize(sk);
        cudaStreamDestroy(sk);
    }
    if (sc) cudaStreamDestroy(sc);
}
