// BFS levels tuned end to end for the H200. The call is dominated by the upload of the edge
// array (about 0.5 GB at the large size), so:
// - the caller's arrays are page-locked in place chunk by chunk (cudaHostRegister runs at
//   about 25 GB/s, a pageable upload at about 8) and each chunk's copy starts as soon as it is
//   pinned; the levels come back the same way;
// - the traversal is top-down over compact frontier queues; a visited bitmap (n bits, which
//   stays in L2) is tested before the atomicOr that claims a vertex, and the claimed vertices
//   are appended with one atomic per group of converged lanes (warp-aggregated);
// - the level kernels run on a fixed, occupancy-sized grid that reads the frontier size from
//   device memory, so several levels are queued back to back and the host looks at the size
//   only every LEVELS_PER_CHECK levels (kernels past the last level find an empty frontier).
// Bottom-up steps would need the reverse edges, which cost a device-wide sort of the edge list
// to build, more than they save on graphs of this depth.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

namespace cg = cooperative_groups;

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

constexpr int THREADS = 256;
constexpr int LEVELS_PER_CHECK = 4;
constexpr size_t PIN_MIN = size_t(4) << 20;
constexpr size_t PIN_CHUNK = size_t(32) << 20;
constexpr uintptr_t PAGE = 4096;
constexpr int MAX_PIECES = 48;

// counts[d % 3] is the size of frontier d. Level d reads it, appends to counts[(d+1) % 3] and
// clears counts[(d+2) % 3], which the level before it read and the level after it fills.
__global__ void start(int source, int* levels, unsigned* visited, int* queue, int* counts)
{
    levels[source] = 0;
    visited[source >> 5] = 1u << (source & 31);
    queue[0] = source;
    counts[0] = 1;
    counts[1] = 0;
    counts[2] = 0;
}

__global__ void __launch_bounds__(THREADS)
level(const int* __restrict__ row_ptr, const int* __restrict__ col_idx, unsigned* visited,
      int* __restrict__ levels, const int* __restrict__ frontier, int* __restrict__ next,
      int* counts, int depth)
{
    const int size = counts[depth % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0) counts[(depth + 2) % 3] = 0;
    int* next_count = counts + (depth + 1) % 3;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < size; i += gridDim.x * THREADS) {
        const int u = frontier[i];
        const int end = row_ptr[u + 1];
        for (int k = row_ptr[u]; k < end; k++) {
            const int v = col_idx[k];
            const unsigned bit = 1u << (v & 31);
            unsigned* word = visited + (v >> 5);
            if (*word & bit) continue;  // a stale read only costs an extra atomic
            if (atomicOr(word, bit) & bit) continue;
            levels[v] = depth + 1;
            cg::coalesced_group g = cg::coalesced_threads();
            int base = 0;
            if (g.thread_rank() == 0) base = atomicAdd(next_count, (int)g.size());
            base = g.shfl(base, 0);
            next[base + g.thread_rank()] = v;
        }
    }
}

// A caller's host buffer split at page boundaries into pieces of about PIN_CHUNK bytes, each
// page-locked in place (pieces never share a page, so each registers on its own).
struct Pieces {
    char* host[MAX_PIECES];
    size_t len[MAX_PIECES];
    bool pinned[MAX_PIECES];
    char* base = nullptr;
    int count = 0;

    // With a stream, each piece's upload to dev is queued as soon as that piece is pinned.
    cudaError_t pin(const void* buf, size_t bytes, char* dev = nullptr, cudaStream_t up = nullptr)
    {
        base = const_cast<char*>(static_cast<const char*>(buf));
        char* const end = base + bytes;
        size_t piece = bytes / (MAX_PIECES - 1) + PAGE;
        if (piece < PIN_CHUNK) piece = PIN_CHUNK;
        for (char* a = base; a < end && count < MAX_PIECES;) {
            char* b = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(a) + piece) & ~(PAGE - 1));
            if (bytes < PIN_MIN || b > end || (size_t)(end - b) < PAGE || count == MAX_PIECES - 1)
                b = end;
            host[count] = a;
            len[count] = (size_t)(b - a);
            pinned[count] = bytes >= PIN_MIN &&
                            cudaHostRegister(a, len[count], cudaHostRegisterDefault) == cudaSuccess;
            if (!pinned[count]) cudaGetLastError();  // stays pageable: its copy is staged
            count++;
            if (up) {
                cudaError_t e = cudaMemcpyAsync(dev + (a - base), a, (size_t)(b - a),
                                                cudaMemcpyHostToDevice, up);
                if (e != cudaSuccess) return e;
            }
            a = b;
        }
        return cudaSuccess;
    }

    cudaError_t download(const char* dev, cudaStream_t s) const
    {
        for (int i = 0; i < count; i++) {
            cudaError_t e = cudaMemcpyAsync(host[i], dev + (host[i] - base), len[i],
                                            cudaMemcpyDeviceToHost, s);
            if (e != cudaSuccess) return e;
        }
        return cudaSuccess;
    }

    void release()
    {
        for (int i = 0; i < count; i++)
            if (pinned[i]) cudaHostUnregister(host[i]);
        count = 0;
    }
};

}  // namespace

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, int source,
                                 int* levels)
{
    int *d_ptr = nullptr, *d_col = nullptr, *d_lev = nullptr, *d_q = nullptr, *d_cnt = nullptr;
    unsigned* d_vis = nullptr;
    cudaStream_t s = nullptr;
    cudaEvent_t uploaded = nullptr;
    Pieces ptr_in, col_in, lev_out;
    int m = 0, dev = 0, sms = 0, per_sm = 0, grid = 0, depth = 0, pending = 1, batch = 0;
    const size_t words = ((size_t)n + 31) / 32;
    const bool valid = source >= 0 && source < n;

    if (n <= 0) return;
    m = row_ptr[n];
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, level, THREADS, 0));
    grid = sms * (per_sm > 0 ? per_sm : 1);
    if ((long long)grid * THREADS > n) grid = (n + THREADS - 1) / THREADS;

    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    CK(cudaMallocAsync(&d_ptr, (size_t)(n + 1) * sizeof(int), s));
    CK(cudaMallocAsync(&d_col, (size_t)m * sizeof(int) + sizeof(int), s));
    CK(cudaMallocAsync(&d_lev, (size_t)n * sizeof(int), s));
    CK(cudaMallocAsync(&d_q, 2 * (size_t)n * sizeof(int), s));
    CK(cudaMallocAsync(&d_vis, words * sizeof(unsigned), s));
    CK(cudaMallocAsync(&d_cnt, 3 * sizeof(int), s));
    CK(cudaMemsetAsync(d_lev, 0xff, (size_t)n * sizeof(int), s));  // every level -1
    CK(cudaMemsetAsync(d_vis, 0, words * sizeof(unsigned), s));
    CK(ptr_in.pin(row_ptr, (size_t)(n + 1) * sizeof(int), reinterpret_cast<char*>(d_ptr), s));
    CK(col_in.pin(col_idx, (size_t)m * sizeof(int), reinterpret_cast<char*>(d_col), s));
    CK(cudaEventRecord(uploaded, s));

    if (valid) {
        start<<<1, 1, 0, s>>>(source, d_lev, d_vis, d_q, d_cnt);
        CK(cudaGetLastError());
    }
    // The first batch covers the depth of typical random graphs; while it runs, the host
    // pins the output and unpins the inputs.
    for (batch = 4 * LEVELS_PER_CHECK; valid && pending > 0; batch = LEVELS_PER_CHECK) {
        for (int j = 0; j < batch; j++, depth++)
            level<<<grid, THREADS, 0, s>>>(d_ptr, d_col, d_vis, d_lev, d_q + (size_t)(depth & 1) * n,
                                           d_q + (size_t)((depth + 1) & 1) * n, d_cnt, depth);
        CK(cudaGetLastError());
        if (ptr_in.count + col_in.count > 0) {
            // pin first: unpinning waits for the device, pinning does not
            CK(lev_out.pin(levels, (size_t)n * sizeof(int)));
            CK(cudaEventSynchronize(uploaded));
            ptr_in.release();
            col_in.release();
        }
        // a copy into pageable memory returns only when done, so it comes after the host work
        CK(cudaMemcpyAsync(&pending, d_cnt + depth % 3, sizeof(int), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
    }
    if (lev_out.count == 0) CK(lev_out.pin(levels, (size_t)n * sizeof(int)));
    CK(lev_out.download(reinterpret_cast<const char*>(d_lev), s));
    CK(cudaStreamSynchronize(s));

done:
    if (s) cudaStreamSynchronize(s);
    ptr_in.release();
    col_in.release();
    lev_out.release();
    if (s) {
        if (d_ptr) cudaFreeAsync(d_ptr, s);
        if (d_col) cudaFreeAsync(d_col, s);
        if (d_lev) cudaFreeAsync(d_lev, s);
        if (d_q) cudaFreeAsync(d_q, s);
        if (d_vis) cudaFreeAsync(d_vis, s);
        if (d_cnt) cudaFreeAsync(d_cnt, s);
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    }
    if (uploaded) cudaEventDestroy(uploaded);
}
