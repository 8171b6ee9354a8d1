// spmv_power, tuned for an H200 end to end. The matrix is ~0.5 GB at the large size and the
// 20 products take a few ms, so the upload decides the time:
//  * Inputs travel through a ring of pinned buffers that several host threads fill in
//    parallel while the copy engines drain them (pageable copies manage 6-9 GB/s).
//  * SpMV is CSR-stream: a block takes 256 consecutive rows, its threads compute all of the
//    rows' products with fully coalesced loads into shared memory, then each thread sums its
//    own row from shared memory in index order.
//  * The normalisation is fused into the next product: iteration k computes
//    y_k = (A y_{k-1}) / ||y_{k-1}||, which equals A (y_{k-1} / ||y_{k-1}||) up to rounding,
//    and accumulates ||y_k||^2 (warp shuffles, then one double atomic per block) into its own
//    slot, so no iteration needs a memset, a separate scaling pass or the host.
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#define CK(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "spmv_power %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            return e_;                                                                   \
        }                                                                                \
    } while (0)

// ---------------------------------------------------------------- pinned parallel staging
namespace staging {

constexpr size_t CHUNK = 4u << 20;
constexpr int MAX_WORKERS = 8;

struct Ring {
    int workers = 0;
    int device = 0;
    char* pinned = nullptr;  // workers x 2 slots of CHUNK bytes
    cudaStream_t stream[MAX_WORKERS] = {};
    cudaEvent_t done[MAX_WORKERS][2] = {};

    cudaError_t open(int want)
    {
        workers = std::max(1, std::min(want, MAX_WORKERS));
        CK(cudaGetDevice(&device));
        CK(cudaHostAlloc((void**)&pinned, (size_t)workers * 2 * CHUNK, cudaHostAllocDefault));
        for (int w = 0; w < workers; ++w) {
            CK(cudaStreamCreateWithFlags(&stream[w], cudaStreamNonBlocking));
            for (int s = 0; s < 2; ++s)
                CK(cudaEventCreateWithFlags(&done[w][s], cudaEventDisableTiming));
        }
        return cudaSuccess;
    }
    void close()
    {
        for (int w = 0; w < workers; ++w) {
            if (stream[w]) cudaStreamDestroy(stream[w]);
            for (int s = 0; s < 2; ++s)
                if (done[w][s]) cudaEventDestroy(done[w][s]);
        }
        if (pinned) cudaFreeHost(pinned);
        pinned = nullptr;
        workers = 0;
    }
    char* slot(int w, int s) const { return pinned + ((size_t)w * 2 + s) * CHUNK; }

    // Worker w moves chunks w, w + W, w + 2W, ... through its two pinned slots.
    cudaError_t up_worker(int w, char* dst, const char* src, size_t bytes)
    {
        CK(cudaSetDevice(device));
        const size_t nchunks = (bytes + CHUNK - 1) / CHUNK;
        size_t j = 0;
        for (size_t k = w; k < nchunks; k += workers, ++j) {
            const int s = (int)(j & 1);
            if (j >= 2) CK(cudaEventSynchronize(done[w][s]));  // slot's previous copy is done
            const size_t off = k * CHUNK, len = std::min(CHUNK, bytes - off);
            memcpy(slot(w, s), src + off, len);
            CK(cudaMemcpyAsync(dst + off, slot(w, s), len, cudaMemcpyHostToDevice, stream[w]));
            CK(cudaEventRecord(done[w][s], stream[w]));
        }
        CK(cudaStreamSynchronize(stream[w]));
        return cudaSuccess;
    }
    cudaError_t down_worker(int w, char* dst, const char* src, size_t bytes)
    {
        CK(cudaSetDevice(device));
        const size_t nchunks = (bytes + CHUNK - 1) / CHUNK;
        if ((size_t)w >= nchunks) return cudaSuccess;
        const size_t mine = (nchunks - w + workers - 1) / workers;
        auto issue = [&](size_t j) -> cudaError_t {
            const size_t off = (w + j * workers) * CHUNK, len = std::min(CHUNK, bytes - off);
            CK(cudaMemcpyAsync(slot(w, (int)(j & 1)), src + off, len, cudaMemcpyDeviceToHost,
                               stream[w]));
            CK(cudaEventRecord(done[w][j & 1], stream[w]));
            return cudaSuccess;
        };
        CK(issue(0));
        for (size_t j = 0; j < mine; ++j) {
            if (j + 1 < mine) CK(issue(j + 1));  // next chunk streams while this one is drained
            CK(cudaEventSynchronize(done[w][j & 1]));
            const size_t off = (w + j * workers) * CHUNK, len = std::min(CHUNK, bytes - off);
            memcpy(dst + off, slot(w, (int)(j & 1)), len);
        }
        return cudaSuccess;
    }
    cudaError_t run(bool up, void* dst, const void* src, size_t bytes)
    {
        std::vector<cudaError_t> err(workers, cudaSuccess);
        std::vector<std::thread> pool;
        for (int w = 0; w < workers; ++w)
            pool.emplace_back([&, w] {
                err[w] = up ? up_worker(w, (char*)dst, (const char*)src, bytes)
                            : down_worker(w, (char*)dst, (const char*)src, bytes);
            });
        for (auto& t : pool) t.join();
        for (cudaError_t e : err)
            if (e != cudaSuccess) return e;
        return cudaSuccess;
    }
};

}  // namespace staging

// ---------------------------------------------------------------- power iteration
constexpr int THREADS = 256;       // rows per block, one per thread in the summing phase
constexpr int STAGE = 24 * THREADS;  // products a block can stage (rows average ~16 entries)

__device__ __forceinline__ float divisor(const double* sq)
{
    if (sq == nullptr) return 1.0f;
    const double s = *sq;
    return s > 0.0 ? (float)sqrt(s) : 1.0f;  // x = y unchanged when the norm is zero
}

__global__ void __launch_bounds__(THREADS)
spmv_stream(int n, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
            const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y,
            const double* __restrict__ sq_prev, double* __restrict__ sq_out)
{
    __shared__ float prod[STAGE];
    __shared__ int ptr[THREADS + 1];
    __shared__ double warp_sq[THREADS / 32];
    const int t = threadIdx.x;
    const int r0 = blockIdx.x * THREADS;
    const int rows_here = min(THREADS, n - r0);

    for (int i = t; i <= rows_here; i += THREADS) ptr[i] = __ldg(row_ptr + r0 + i);
    __syncthreads();
    const int base = ptr[0];
    const int count = ptr[rows_here] - base;
    const float div = divisor(sq_prev);

    float acc = 0.0f;
    if (count <= STAGE) {  // block-uniform
        for (int k = t; k < count; k += THREADS)
            prod[k] = __ldg(vals + base + k) * __ldg(x + __ldg(col_idx + base + k));
        __syncthreads();
        if (t < rows_here)
            for (int k = ptr[t] - base, e = ptr[t + 1] - base; k < e; ++k) acc += prod[k];
    } else if (t < rows_here) {  // unusually dense block: read the row directly
        for (int k = ptr[t], e = ptr[t + 1]; k < e; ++k)
            acc += __ldg(vals + k) * __ldg(x + __ldg(col_idx + k));
    }

    const float yv = acc / div;
    double sq = 0.0;
    if (t < rows_here) {
        y[r0 + t] = yv;
        sq = (double)yv * (double)yv;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) sq += __shfl_down_sync(0xffffffffu, sq, off);
    if ((t & 31) == 0) warp_sq[t >> 5] = sq;
    __syncthreads();
    if (t < 32) {
        sq = t < THREADS / 32 ? warp_sq[t] : 0.0;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) sq += __shfl_down_sync(0xffffffffu, sq, off);
        if (t == 0) atomicAdd(sq_out, sq);
    }
}

__global__ void normalise(int n, const float* __restrict__ y, const double* __restrict__ sq,
                          float* __restrict__ x)
{
    const float div = divisor(sq);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = y[i] / div;
}

static cudaError_t copy(staging::Ring& ring, bool up, void* dst, const void* src, size_t bytes)
{
    if (ring.workers && bytes >= 4 * staging::CHUNK) return ring.run(up, dst, src, bytes);
    return cudaMemcpy(dst, src, bytes, up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
}

struct Device {
    int *ptr = nullptr, *col = nullptr;
    float *val = nullptr, *x = nullptr, *y[2] = {nullptr, nullptr};
    double* sq = nullptr;
    ~Device()
    {
        cudaFree(ptr);
        cudaFree(col);
        cudaFree(val);
        cudaFree(x);
        cudaFree(y[0]);
        cudaFree(y[1]);
        cudaFree(sq);
    }
};

static cudaError_t solve(int n, const int* row_ptr, const int* col_idx, const float* vals,
                         const float* x0, int iters, float* x_out, staging::Ring& ring)
{
    const size_t nnz = (size_t)row_ptr[n];
    const size_t vec = (size_t)n * sizeof(float);
    if (nnz * sizeof(float) >= 4 * staging::CHUNK) {
        unsigned hw = std::thread::hardware_concurrency();
        if (ring.open(hw >= 8 ? 4 : 2) != cudaSuccess) {  // no pinned memory: plain copies
            ring.close();
            cudaGetLastError();
        }
    }
    Device d;
    CK(cudaMalloc(&d.ptr, (size_t)(n + 1) * sizeof(int)));
    CK(cudaMalloc(&d.col, std::max<size_t>(nnz, 1) * sizeof(int)));
    CK(cudaMalloc(&d.val, std::max<size_t>(nnz, 1) * sizeof(float)));
    CK(cudaMalloc(&d.x, vec));
    CK(cudaMalloc(&d.y[0], vec));
    CK(cudaMalloc(&d.y[1], vec));
    CK(cudaMalloc(&d.sq, (size_t)std::max(iters, 1) * sizeof(double)));
    CK(cudaMemsetAsync(d.sq, 0, (size_t)std::max(iters, 1) * sizeof(double)));

    CK(copy(ring, true, d.ptr, row_ptr, (size_t)(n + 1) * sizeof(int)));
    CK(copy(ring, true, d.col, col_idx, nnz * sizeof(int)));
    CK(copy(ring, true, d.val, vals, nnz * sizeof(float)));
    CK(copy(ring, true, d.x, x0, vec));

    const int blocks = (n + THREADS - 1) / THREADS;
    const float* src = d.x;
    const double* sq_prev = nullptr;
    for (int it = 0; it < iters; ++it) {
        float* dst = d.y[it & 1];
        spmv_stream<<<blocks, THREADS>>>(n, d.ptr, d.col, d.val, src, dst, sq_prev, d.sq + it);
        CK(cudaGetLastError());
        src = dst;
        sq_prev = d.sq + it;
    }
    if (iters > 0) {
        normalise<<<blocks, THREADS>>>(n, src, sq_prev, d.x);  // x0 is no longer needed
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
    CK(copy(ring, false, x_out, d.x, vec));
    return cudaSuccess;
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, const float* vals,
                                 const float* x0, int iters, float* x_out)
{
    if (n <= 0) return;
    staging::Ring ring;
    cudaError_t e = solve(n, row_ptr, col_idx, vals, x0, iters, x_out, ring);
    if (e != cudaSuccess) fprintf(stderr, "spmv_power: %s\n", cudaGetErrorString(e));
    ring.close();
}
