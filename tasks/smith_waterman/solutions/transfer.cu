// Smith-Waterman local alignment scores with the host link kept busy.
//
// The pairs are cut into chunks. For each chunk the host packs the chunk's sequences and its
// offsets (rebased to the chunk) into one region of a pinned staging buffer, and a stream
// copies that region up, runs the chunk's kernel and copies the chunk's scores back into
// pinned memory, so packing, uploads, kernels and downloads of different chunks overlap.
// Device memory comes from the stream-ordered allocator. The kernel is a plain warp-per-pair
// anti-diagonal sweep, one row of a per lane.
#include <cuda_runtime.h>
#include <cstdio>
#include <algorithm>
#include <cstring>
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

constexpr int NSTREAMS = 4;
constexpr int WARPS = 4;  // pairs per block

struct Chunk {
    int first, count;
    size_t a_lo, a_bytes, b_lo, b_bytes;
    size_t offset, bytes;  // region in staging and device buffers
};

__global__ void sw_chunk_kernel(int count, const char* __restrict__ seq, size_t a_bytes,
                                const int* __restrict__ meta, int max_b, int match,
                                int mismatch, int gap, int* __restrict__ scores)
{
    extern __shared__ int smem[];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int p = blockIdx.x * WARPS + warp;
    if (p >= count) return;
    const char* a = seq + meta[p];
    const int la = meta[count + p];
    const char* b = seq + a_bytes + meta[2 * count + p];
    const int lb = meta[3 * count + p];
    int* edge = smem + (size_t)warp * (max_b + 1);

    for (int j = lane; j <= lb; j += 32) edge[j] = 0;
    __syncwarp();
    int best = 0;
    for (int i0 = 0; i0 < la; i0 += 32) {
        const bool has_row = i0 + lane < la;
        const char ai = has_row ? a[i0 + lane] : 0;
        int left = 0, diag = 0, h = 0;
        for (int s = 0; s < lb + 31; s++) {
            const int above = __shfl_up_sync(0xffffffffu, h, 1);
            const int j = s - lane + 1;
            if (j >= 1 && j <= lb) {
                const int up = lane == 0 ? edge[j] : above;
                h = diag + (ai == b[j - 1] ? match : mismatch);
                h = max(h, up - gap);
                h = max(h, left - gap);
                h = max(h, 0);
                diag = up;
                left = h;
                if (has_row) best = max(best, h);
                if (lane == 31) edge[j] = h;
            }
        }
        __syncwarp();
    }
    for (int off = 16; off > 0; off >>= 1) best = max(best, __shfl_down_sync(0xffffffffu, best, off));
    if (lane == 0) scores[p] = best;
}

extern "C" void solution_compute(int num_pairs, const char* a_seqs, const int* a_off,
                                 const int* a_len, const char* b_seqs, const int* b_off,
                                 const int* b_len, int match, int mismatch, int gap, int* scores)
{
    cudaStream_t streams[NSTREAMS] = {};
    cudaEvent_t ready = nullptr;
    char* h_stage = nullptr;
    int* h_scores = nullptr;
    char* d_buf = nullptr;
    int* d_scores = nullptr;
    std::vector<Chunk> chunks;
    size_t total = 0, smem = 0;
    int max_b = 0, chunk_pairs = 0;
    if (num_pairs <= 0) return;

    chunk_pairs = (num_pairs + 7) / 8;
    if (chunk_pairs < 256) chunk_pairs = 256;
    for (int first = 0; first < num_pairs; first += chunk_pairs) {
        Chunk c{};
        c.first = first;
        c.count = num_pairs - first < chunk_pairs ? num_pairs - first : chunk_pairs;
        c.a_lo = c.b_lo = (size_t)-1;
        size_t a_hi = 0, b_hi = 0;
        for (int p = first; p < first + c.count; p++) {
            c.a_lo = std::min(c.a_lo, (size_t)a_off[p]);
            c.b_lo = std::min(c.b_lo, (size_t)b_off[p]);
            a_hi = std::max(a_hi, (size_t)a_off[p] + a_len[p]);
            b_hi = std::max(b_hi, (size_t)b_off[p] + b_len[p]);
            max_b = std::max(max_b, b_len[p]);
        }
        c.a_bytes = a_hi > c.a_lo ? a_hi - c.a_lo : 0;
        c.b_bytes = b_hi > c.b_lo ? b_hi - c.b_lo : 0;
        size_t seq = (c.a_bytes + c.b_bytes + 15) & ~(size_t)15;
        c.offset = total;
        c.bytes = seq + (size_t)4 * c.count * sizeof(int);
        total += (c.bytes + 255) & ~(size_t)255;
        chunks.push_back(c);
    }
    smem = (size_t)WARPS * (max_b + 1) * sizeof(int);
    if (smem > 48 * 1024)
        CK(cudaFuncSetAttribute(sw_chunk_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem));

    for (int s = 0; s < NSTREAMS; s++) CK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CK(cudaHostAlloc((void**)&h_stage, total, cudaHostAllocDefault));
    CK(cudaHostAlloc((void**)&h_scores, (size_t)num_pairs * sizeof(int), cudaHostAllocDefault));
    CK(cudaMallocAsync((void**)&d_buf, total, streams[0]));
    CK(cudaMallocAsync((void**)&d_scores, (size_t)num_pairs * sizeof(int), streams[0]));
    CK(cudaEventRecord(ready, streams[0]));
    for (int s = 1; s < NSTREAMS; s++) CK(cudaStreamWaitEvent(streams[s], ready, 0));

    for (size_t k = 0; k < chunks.size(); k++) {
        const Chunk& c = chunks[k];
        cudaStream_t st = streams[k % NSTREAMS];
        char* region = h_stage + c.offset;
        size_t seq = (c.a_bytes + c.b_bytes + 15) & ~(size_t)15;
        int* meta = reinterpret_cast<int*>(region + seq);
        if (c.a_bytes) std::memcpy(region, a_seqs + c.a_lo, c.a_bytes);
        if (c.b_bytes) std::memcpy(region + c.a_bytes, b_seqs + c.b_lo, c.b_bytes);
        for (int q = 0; q < c.count; q++) {
            const int p = c.first + q;
            meta[q] = (int)(a_off[p] - c.a_lo);
            meta[c.count + q] = a_len[p];
            meta[2 * c.count + q] = (int)(b_off[p] - c.b_lo);
            meta[3 * c.count + q] = b_len[p];
        }
        CK(cudaMemcpyAsync(d_buf + c.offset, region, c.bytes, cudaMemcpyHostToDevice, st));
        sw_chunk_kernel<<<(c.count + WARPS - 1) / WARPS, WARPS * 32, smem, st>>>(
            c.count, d_buf + c.offset, c.a_bytes, reinterpret_cast<const int*>(d_buf + c.offset + seq),
            max_b, match, mismatch, gap, d_scores + c.first);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(h_scores + c.first, d_scores + c.first, (size_t)c.count * sizeof(int),
                           cudaMemcpyDeviceToHost, st));
    }
    for (int s = 0; s < NSTREAMS; s++) CK(cudaStreamSynchronize(streams[s]));
    std::memcpy(scores, h_scores, (size_t)num_pairs * sizeof(int));
done:
    if (streams[0]) {
        cudaDeviceSynchronize();  // every stream done before the buffers go
        if (d_buf) cudaFreeAsync(d_buf, streams[0]);
        if (d_scores) cudaFreeAsync(d_scores, streams[0]);
        cudaStreamSynchronize(streams[0]);
    }
    for (int s = 0; s < NSTREAMS; s++)
        if (streams[s]) cudaStreamDestroy(streams[s]);
    if (ready) cudaEventDestroy(ready);
    cudaFreeHost(h_stage);
    cudaFreeHost(h_scores);
}
