// BFS levels for a call bound by PCIe: the caller's arrays are page-locked in place
// (cudaHostRegister) so the upload and the copy back run at pinned speed, the buffers come from
// the stream-ordered allocator, the edge array goes up in chunks on two streams while the first
// stream uploads the row offsets and initialises the levels, and the per-level flag comes back
// into a small pinned buffer. The traversal kernel is the simple one: a thread per vertex per
// level.
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_OK(call)                                                                  \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(e_));                                           \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

static const int THREADS = 256;
static const int NCHUNKS = 8;

__global__ void init_levels(int n, int source, int* levels)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) levels[v] = v == source ? 0 : -1;
}

__global__ void expand(int n, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                       int* levels, int depth, int* changed)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n || levels[u] != depth) return;
    for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++) {
        int v = col_idx[k];
        if (levels[v] < 0 && atomicCAS(&levels[v], -1, depth + 1) == -1) *changed = 1;
    }
}

static bool pin(const void* p, size_t bytes)
{
    if (bytes == 0) return false;
    if (cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterDefault) == cudaSuccess)
        return true;
    cudaGetLastError();  // already pinned or not pinnable: copy as pageable
    return false;
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, int source,
                                 int* levels)
{
    int *d_ptr = NULL, *d_col = NULL, *d_lev = NULL, *d_changed = NULL;
    int* h_changed = NULL;
    cudaStream_t s[3] = {NULL, NULL, NULL};
    cudaEvent_t allocated = NULL, chunk_done[NCHUNKS] = {};
    bool pin_ptr = false, pin_col = false, pin_lev = false;
    int m = 0, depth = 0, blocks = (n + THREADS - 1) / THREADS;
    bool valid = source >= 0 && source < n;

    if (n <= 0) return;
    m = row_ptr[n];
    for (int i = 0; i < 3; i++) CUDA_OK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming));
    for (int c = 0; c < NCHUNKS; c++)
        CUDA_OK(cudaEventCreateWithFlags(&chunk_done[c], cudaEventDisableTiming));
    CUDA_OK(cudaHostAlloc((void**)&h_changed, sizeof(int), cudaHostAllocDefault));
    pin_ptr = pin(row_ptr, (size_t)(n + 1) * sizeof(int));
    pin_col = pin(col_idx, (size_t)m * sizeof(int));
    pin_lev = pin(levels, (size_t)n * sizeof(int));

    CUDA_OK(cudaMallocAsync((void**)&d_ptr, (size_t)(n + 1) * sizeof(int), s[0]));
    CUDA_OK(cudaMallocAsync((void**)&d_col, (size_t)m * sizeof(int) + sizeof(int), s[0]));
    CUDA_OK(cudaMallocAsync((void**)&d_lev, (size_t)n * sizeof(int), s[0]));
    CUDA_OK(cudaMallocAsync((void**)&d_changed, sizeof(int), s[0]));
    CUDA_OK(cudaEventRecord(allocated, s[0]));
    for (int c = 0; c < NCHUNKS; c++) {
        cudaStream_t t = s[1 + (c & 1)];
        size_t e0 = (size_t)m * c / NCHUNKS, e1 = (size_t)m * (c + 1) / NCHUNKS;
        CUDA_OK(cudaStreamWaitEvent(t, allocated, 0));
        if (e1 > e0)
            CUDA_OK(cudaMemcpyAsync(d_col + e0, col_idx + e0, (e1 - e0) * sizeof(int),
                                    cudaMemcpyHostToDevice, t));
        CUDA_OK(cudaEventRecord(chunk_done[c], t));
    }
    CUDA_OK(cudaMemcpyAsync(d_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice, s[0]));
    init_levels<<<blocks, THREADS, 0, s[0]>>>(n, valid ? source : -1, d_lev);
    CUDA_OK(cudaGetLastError());
    for (int c = 0; c < NCHUNKS; c++) CUDA_OK(cudaStreamWaitEvent(s[0], chunk_done[c], 0));

    while (valid) {
        CUDA_OK(cudaMemsetAsync(d_changed, 0, sizeof(int), s[0]));
        expand<<<blocks, THREADS, 0, s[0]>>>(n, d_ptr, d_col, d_lev, depth, d_changed);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaMemcpyAsync(h_changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost, s[0]));
        CUDA_OK(cudaStreamSynchronize(s[0]));
        depth++;
        if (!*h_changed) break;
    }
    CUDA_OK(cudaMemcpyAsync(levels, d_lev, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost, s[0]));
    CUDA_OK(cudaStreamSynchronize(s[0]));

cleanup:
    for (int i = 0; i < 3; i++)
        if (s[i]) cudaStreamSynchronize(s[i]);
    if (s[0]) {
        if (d_ptr) cudaFreeAsync(d_ptr, s[0]);
        if (d_col) cudaFreeAsync(d_col, s[0]);
        if (d_lev) cudaFreeAsync(d_lev, s[0]);
        if (d_changed) cudaFreeAsync(d_changed, s[0]);
        cudaStreamSynchronize(s[0]);
    }
    for (int i = 0; i < 3; i++)
        if (s[i]) cudaStreamDestroy(s[i]);
    if (allocated) cudaEventDestroy(allocated);
    for (int c = 0; c < NCHUNKS; c++)
        if (chunk_done[c]) cudaEventDestroy(chunk_done[c]);
    if (h_changed) cudaFreeHost(h_changed);
    if (pin_ptr) cudaHostUnregister((void*)row_ptr);
    if (pin_col) cudaHostUnregister((void*)col_idx);
    if (pin_lev) cudaHostUnregister(levels);
}
