// histogram, tuned for an H200 end to end. Counting 10^9 keys takes ~10 ms on the device; moving
// them takes ~600 ms through pageable copies, so the design is about the upload:
//  * Host threads copy the keys into a ring of pinned slots; one issuer thread streams each
//    filled slot to the device with the copy engine (pinned DMA runs at ~50 GB/s).
//  * When every key is below 65536 (num_bins <= 65536) the fillers narrow the keys to 16 bits
//    as they copy, which halves the bytes crossing the link. The values are unchanged.
//  * Each 32M-key segment is counted as soon as it is on the device, on a second stream, while
//    later segments are still in flight.
//  * Counting: 128-bit loads, block-private histograms in shared memory when the bins fit
//    (merged once per block), global atomics otherwise; grid sized from the occupancy API.
#include <cuda_runtime.h>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#define CK(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "histogram %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            return e_;                                                                   \
        }                                                                                \
    } while (0)

constexpr int THREADS = 512;
constexpr long long CHUNK_KEYS = 1LL << 20;  // keys per pinned slot
constexpr int SLOTS = 8;
constexpr int FILLERS = 4;
constexpr long long SEG_CHUNKS = 32;          // chunks per counting launch
constexpr long long STAGE_MIN_KEYS = 4LL << 20;

// ---------------------------------------------------------------- counting kernels
template <typename K, bool SHARED>
__global__ void __launch_bounds__(THREADS)
count_keys(const K* __restrict__ keys, long long n, int num_bins, unsigned int* __restrict__ hist)
{
    constexpr int PER = 16 / sizeof(K);  // keys per 128-bit load
    extern __shared__ unsigned int local[];
    unsigned int* h = SHARED ? local : hist;
    if (SHARED) {
        for (int b = threadIdx.x; b < num_bins; b += THREADS) local[b] = 0;
        __syncthreads();
    }
    const long long nv = n / PER;
    const uint4* vec = reinterpret_cast<const uint4*>(keys);
    const long long stride = (long long)gridDim.x * THREADS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < nv; i += stride) {
        union {
            uint4 v;
            K k[PER];
        } u;
        u.v = __ldg(vec + i);
#pragma unroll
        for (int p = 0; p < PER; ++p) atomicAdd(h + u.k[p], 1u);
    }
    if (blockIdx.x == 0 && threadIdx.x < n - nv * PER) atomicAdd(h + keys[nv * PER + threadIdx.x], 1u);
    if (SHARED) {
        __syncthreads();
        for (int b = threadIdx.x; b < num_bins; b += THREADS)
            if (local[b]) atomicAdd(hist + b, local[b]);
    }
}

struct Counter {
    int sms = 0, smem_max = 0;
    bool shared = false;
    size_t smem = 0;
    int blocks_per_sm = 1;

    template <typename K>
    cudaError_t setup(int num_bins)
    {
        int dev = 0;
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        shared = (size_t)num_bins * sizeof(unsigned int) <= (size_t)smem_max;
        smem = shared ? (size_t)num_bins * sizeof(unsigned int) : 0;
        if (shared) {
            CK(cudaFuncSetAttribute(count_keys<K, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, count_keys<K, true>, THREADS, smem));
        } else {
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, count_keys<K, false>, THREADS, 0));
        }
        blocks_per_sm = std::max(1, blocks_per_sm);
        return cudaSuccess;
    }
    template <typename K>
    cudaError_t launch(const K* keys, long long n, int num_bins, unsigned int* hist, cudaStream_t st)
    {
        if (n <= 0) return cudaSuccess;
        const long long need = (n / (16 / (long long)sizeof(K)) + THREADS - 1) / THREADS;
        const int blocks = (int)std::max(1LL, std::min(need, (long long)sms * blocks_per_sm));
        if (shared) count_keys<K, true><<<blocks, THREADS, smem, st>>>(keys, n, num_bins, hist);
        else count_keys<K, false><<<blocks, THREADS, 0, st>>>(keys, n, num_bins, hist);
        return cudaGetLastError();
    }
};

// ---------------------------------------------------------------- pinned pipeline
template <typename K>
struct Pipeline {
    const int* src = nullptr;
    long long n = 0;
    int device = 0;
    char* pinned = nullptr;  // SLOTS x CHUNK_KEYS x 4 bytes
    cudaEvent_t sent[SLOTS] = {};
    std::atomic<long long> filled[SLOTS];
    std::atomic<long long> issued[SLOTS];
    std::atomic<bool> abort{false};
    std::atomic<int> filler_error{0};

    K* slot(int s) const { return reinterpret_cast<K*>(pinned + (size_t)s * CHUNK_KEYS * sizeof(int)); }

    template <typename Flag>
    bool wait_for(Flag& flag, long long value)
    {
        while (flag.load(std::memory_order_acquire) != value) {
            if (abort.load(std::memory_order_relaxed)) return false;
            std::this_thread::yield();
        }
        return true;
    }

    void fill(int f, long long nchunks)
    {
        cudaSetDevice(device);
        for (long long c = f; c < nchunks; c += FILLERS) {
            const int s = (int)(c % SLOTS);
            if (c >= SLOTS) {  // the slot's previous chunk must have left the host
                if (!wait_for(issued[s], c - SLOTS)) return;
                cudaError_t e = cudaEventSynchronize(sent[s]);
                if (e != cudaSuccess) {
                    filler_error.store((int)e);
                    abort.store(true);
                    return;
                }
            }
            const long long off = c * CHUNK_KEYS, len = std::min(CHUNK_KEYS, n - off);
            if (sizeof(K) == sizeof(int)) {
                memcpy(slot(s), src + off, (size_t)len * sizeof(int));
            } else {
                K* d = slot(s);
                const int* p = src + off;
                for (long long i = 0; i < len; ++i) d[i] = (K)p[i];
            }
            filled[s].store(c, std::memory_order_release);
        }
    }

    cudaError_t issue(K* d_keys, int num_bins, unsigned int* d_hist, Counter& counter,
                      cudaStream_t copy_st, cudaStream_t count_st, cudaEvent_t seg_done)
    {
        const long long nchunks = (n + CHUNK_KEYS - 1) / CHUNK_KEYS;
        long long seg_start = 0;
        for (long long c = 0; c < nchunks; ++c) {
            const int s = (int)(c % SLOTS);
            if (!wait_for(filled[s], c)) return (cudaError_t)filler_error.load();
            const long long off = c * CHUNK_KEYS, len = std::min(CHUNK_KEYS, n - off);
            CK(cudaMemcpyAsync(d_keys + off, slot(s), (size_t)len * sizeof(K), cudaMemcpyHostToDevice, copy_st));
            CK(cudaEventRecord(sent[s], copy_st));
            issued[s].store(c, std::memory_order_release);
            if ((c + 1) % SEG_CHUNKS == 0 || c + 1 == nchunks) {
                const long long seg_end = off + len;
                CK(cudaEventRecord(seg_done, copy_st));
                CK(cudaStreamWaitEvent(count_st, seg_done, 0));
                CK(counter.launch(d_keys + seg_start, seg_end - seg_start, num_bins, d_hist, count_st));
                seg_start = seg_end;
            }
        }
        return cudaSuccess;
    }

    cudaError_t run(K* d_keys, int num_bins, unsigned int* d_hist, Counter& counter,
                    cudaStream_t copy_st, cudaStream_t count_st, cudaEvent_t seg_done)
    {
        for (int s = 0; s < SLOTS; ++s) {
            filled[s].store(-1);
            issued[s].store(-1);
            CK(cudaEventCreateWithFlags(&sent[s], cudaEventDisableTiming));
        }
        const long long nchunks = (n + CHUNK_KEYS - 1) / CHUNK_KEYS;
        std::vector<std::thread> fillers;
        for (int f = 0; f < FILLERS; ++f) fillers.emplace_back([this, f, nchunks] { fill(f, nchunks); });
        cudaError_t e = issue(d_keys, num_bins, d_hist, counter, copy_st, count_st, seg_done);
        if (e != cudaSuccess) abort.store(true);
        for (auto& t : fillers) t.join();
        if (e == cudaSuccess && filler_error.load()) e = (cudaError_t)filler_error.load();
        cudaError_t sync = cudaStreamSynchronize(copy_st);
        for (int s = 0; s < SLOTS; ++s) cudaEventDestroy(sent[s]);
        return e != cudaSuccess ? e : sync;
    }
};

struct Resources {
    void* d_keys = nullptr;
    unsigned int* d_hist = nullptr;
    char* pinned = nullptr;
    cudaStream_t copy_st = nullptr, count_st = nullptr;
    cudaEvent_t seg_done = nullptr;
    ~Resources()
    {
        if (copy_st) cudaStreamSynchronize(copy_st);
        if (count_st) cudaStreamSynchronize(count_st);
        cudaFree(d_keys);
        cudaFree(d_hist);
        if (pinned) cudaFreeHost(pinned);
        if (seg_done) cudaEventDestroy(seg_done);
        if (copy_st) cudaStreamDestroy(copy_st);
        if (count_st) cudaStreamDestroy(count_st);
    }
};

template <typename K>
static cudaError_t staged(const int* keys, long long n, int num_bins, unsigned int* hist, Resources& r)
{
    Counter counter;
    CK(counter.setup<K>(num_bins));
    const size_t hist_bytes = (size_t)num_bins * sizeof(unsigned int);
    CK(cudaMalloc(&r.d_keys, (size_t)n * sizeof(K) + 16));
    CK(cudaMemsetAsync(r.d_hist, 0, hist_bytes, r.count_st));
    Pipeline<K> pipe;
    pipe.src = keys;
    pipe.n = n;
    pipe.pinned = r.pinned;
    CK(cudaGetDevice(&pipe.device));
    CK(pipe.run((K*)r.d_keys, num_bins, r.d_hist, counter, r.copy_st, r.count_st, r.seg_done));
    CK(cudaStreamSynchronize(r.count_st));
    // the histogram comes back through the pinned buffer when it fits there
    if (hist_bytes <= (size_t)SLOTS * CHUNK_KEYS * sizeof(int)) {
        CK(cudaMemcpyAsync(r.pinned, r.d_hist, hist_bytes, cudaMemcpyDeviceToHost, r.count_st));
        CK(cudaStreamSynchronize(r.count_st));
        memcpy(hist, r.pinned, hist_bytes);
    } else {
        CK(cudaMemcpy(hist, r.d_hist, hist_bytes, cudaMemcpyDeviceToHost));
    }
    return cudaSuccess;
}

static cudaError_t direct(const int* keys, long long n, int num_bins, unsigned int* hist, Resources& r)
{
    Counter counter;
    CK(counter.setup<int>(num_bins));
    const size_t hist_bytes = (size_t)num_bins * sizeof(unsigned int);
    CK(cudaMalloc(&r.d_keys, (size_t)n * sizeof(int) + 16));
    CK(cudaMemsetAsync(r.d_hist, 0, hist_bytes, r.count_st));
    CK(cudaMemcpyAsync(r.d_keys, keys, (size_t)n * sizeof(int), cudaMemcpyHostToDevice, r.count_st));
    CK(counter.launch((const int*)r.d_keys, n, num_bins, r.d_hist, r.count_st));
    CK(cudaMemcpyAsync(hist, r.d_hist, hist_bytes, cudaMemcpyDeviceToHost, r.count_st));
    CK(cudaStreamSynchronize(r.count_st));
    return cudaSuccess;
}

static cudaError_t solve(const int* keys, long long n, int num_bins, unsigned int* hist, Resources& r)
{
    CK(cudaStreamCreateWithFlags(&r.copy_st, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&r.count_st, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&r.seg_done, cudaEventDisableTiming));
    CK(cudaMalloc(&r.d_hist, (size_t)num_bins * sizeof(unsigned int)));
    if (n >= STAGE_MIN_KEYS) {
        if (cudaHostAlloc((void**)&r.pinned, (size_t)SLOTS * CHUNK_KEYS * sizeof(int), cudaHostAllocDefault) == cudaSuccess)
            return num_bins <= 65536 ? staged<uint16_t>(keys, n, num_bins, hist, r)
                                     : staged<int>(keys, n, num_bins, hist, r);
        r.pinned = nullptr;
        cudaGetLastError();  // no pinned memory: fall back to a plain copy
    }
    return direct(keys, n, num_bins, hist, r);
}

extern "C" void solution_compute(const int* keys, int n, int num_bins, unsigned int* hist)
{
    if (num_bins <= 0) return;
    Resources r;
    cudaError_t e = solve(keys, n > 0 ? n : 0, num_bins, hist, r);
    if (e != cudaSuccess) fprintf(stderr, "histogram: %s\n", cudaGetErrorString(e));
}
