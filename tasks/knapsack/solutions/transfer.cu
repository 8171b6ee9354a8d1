// 0/1 knapsack with the transfers taken off the critical path.
//
// Weights and values are staged in pinned memory and uploaded asynchronously; the DP rows come
// from the stream-ordered allocator. Every item is a simple kernel on the compute stream. The
// only large transfer is the final row, so the output array is page-locked in place and the
// last item's pass is cut into chunks: as soon as a chunk of the final row is written, a copy
// stream starts moving it to the host while the compute stream works on the next chunk.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                         \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

constexpr int THREADS = 256;
constexpr int CHUNKS = 8;

// New row for capacities [lo, hi) after item i.
__global__ void item_kernel(int lo, int hi, const int* __restrict__ items, int n_items, int i,
                            const int* __restrict__ prev, int* __restrict__ next)
{
    const int c = lo + blockIdx.x * THREADS + threadIdx.x;
    if (c >= hi) return;
    const int w = items[i], v = items[n_items + i];
    int keep = prev[c];
    if (c >= w) {
        const int take = prev[c - w] + v;
        if (take > keep) keep = take;
    }
    next[c] = keep;
}

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    cudaStream_t compute = nullptr, copy = nullptr;
    cudaEvent_t chunk_done[CHUNKS] = {};
    int* h_items = nullptr;
    int *d_items = nullptr, *d_a = nullptr, *d_b = nullptr;
    bool registered = false;
    size_t row_bytes = 0, item_bytes = 0;
    int n = 0, chunk = 0;
    if (capacity < 0) return;
    n = capacity + 1;
    row_bytes = (size_t)n * sizeof(int);
    item_bytes = (size_t)2 * (n_items > 0 ? n_items : 1) * sizeof(int);
    chunk = (n + CHUNKS - 1) / CHUNKS;

    CK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    for (int k = 0; k < CHUNKS; k++)
        CK(cudaEventCreateWithFlags(&chunk_done[k], cudaEventDisableTiming));
    // Page-lock the output for direct asynchronous copies; if that is refused, the copies
    // still work from pageable memory, only slower.
    registered = cudaHostRegister(best, row_bytes, cudaHostRegisterDefault) == cudaSuccess;
    if (!registered) cudaGetLastError();
    CK(cudaHostAlloc((void**)&h_items, item_bytes, cudaHostAllocDefault));
    if (n_items > 0) {
        std::memcpy(h_items, weights, (size_t)n_items * sizeof(int));
        std::memcpy(h_items + n_items, values, (size_t)n_items * sizeof(int));
    }
    CK(cudaMallocAsync((void**)&d_items, item_bytes, compute));
    CK(cudaMallocAsync((void**)&d_a, row_bytes, compute));
    CK(cudaMallocAsync((void**)&d_b, row_bytes, compute));
    CK(cudaMemcpyAsync(d_items, h_items, item_bytes, cudaMemcpyHostToDevice, compute));
    CK(cudaMemsetAsync(d_a, 0, row_bytes, compute));

    for (int i = 0; i + 1 < n_items; i++) {
        item_kernel<<<(n + THREADS - 1) / THREADS, THREADS, 0, compute>>>(0, n, d_items, n_items,
                                                                          i, d_a, d_b);
        CK(cudaGetLastError());
        int* t = d_a;
        d_a = d_b;
        d_b = t;
    }
    // The last pass (or the zero row when there are no items) goes out chunk by chunk.
    for (int k = 0; k < CHUNKS; k++) {
        const int lo = k * chunk;
        const int hi = lo + chunk < n ? lo + chunk : n;
        if (lo >= hi) break;
        const int* final_row = d_a;
        if (n_items > 0) {
            item_kernel<<<(hi - lo + THREADS - 1) / THREADS, THREADS, 0, compute>>>(
                lo, hi, d_items, n_items, n_items - 1, d_a, d_b);
            CK(cudaGetLastError());
            final_row = d_b;
        }
        CK(cudaEventRecord(chunk_done[k], compute));
        CK(cudaStreamWaitEvent(copy, chunk_done[k], 0));
        CK(cudaMemcpyAsync(best + lo, final_row + lo, (size_t)(hi - lo) * sizeof(int),
                           cudaMemcpyDeviceToHost, copy));
    }
    CK(cudaStreamSynchronize(copy));
done:
    if (compute) {
        cudaStreamSynchronize(compute);
        if (copy) cudaStreamSynchronize(copy);
        if (d_items) cudaFreeAsync(d_items, compute);
        if (d_a) cudaFreeAsync(d_a, compute);
        if (d_b) cudaFreeAsync(d_b, compute);
        cudaStreamSynchronize(compute);
    }
    for (int k = 0; k < CHUNKS; k++)
        if (chunk_done[k]) cudaEventDestroy(chunk_done[k]);
    if (copy) cudaStreamDestroy(copy);
    if (compute) cudaStreamDestroy(compute);
    if (registered) cudaHostUnregister(best);
    cudaFreeHost(h_items);
}
