// PageRank for a PCIe-bound call: the inputs and the output are page-locked in place, the
// device buffers come from the stream-ordered allocator, and the in-edge array (the bulk of
// the upload) is sent in vertex-range chunks on two streams. The first iteration's pull for a
// range starts as soon as that range's in-edges have arrived, so most of the upload overlaps
// computation. The kernels are the plain ones: a thread per vertex.
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

__device__ void block_add(double value, double* target)
{
    __shared__ double part[THREADS];
    part[threadIdx.x] = value;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(target, part[0]);
}

__global__ void init_rank(int n, float* rank)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) rank[v] = 1.0f / (float)n;
}

__global__ void contributions(int n, const int* __restrict__ out_deg,
                              const float* __restrict__ rank, float* __restrict__ contrib,
                              double* sums)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    double dang = 0.0;
    if (u < n) {
        int d = out_deg[u];
        contrib[u] = d == 0 ? 0.0f : rank[u] / (float)d;
        if (d == 0) dang = rank[u];
    }
    block_add(dang, &sums[0]);
}

// Pull for vertices [v0, v1).
__global__ void pull(int v0, int v1, int n, const int* __restrict__ in_ptr,
                     const int* __restrict__ in_idx, const float* __restrict__ contrib,
                     const float* __restrict__ old_rank, float* __restrict__ new_rank,
                     float damping, double* sums)
{
    int v = v0 + blockIdx.x * blockDim.x + threadIdx.x;
    double change = 0.0;
    if (v < v1) {
        float base = (1.0f - damping) / (float)n;
        float dang_share = (float)(sums[0] / n);
        float sum = 0.0f;
        for (int k = in_ptr[v]; k < in_ptr[v + 1]; k++) sum += contrib[in_idx[k]];
        float r = base + damping * (sum + dang_share);
        new_rank[v] = r;
        change = fabs((double)r - (double)old_rank[v]);
    }
    block_add(change, &sums[1]);
}

static bool pin(const void* p, size_t bytes)
{
    if (bytes == 0) return false;
    if (cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterDefault) == cudaSuccess)
        return true;
    cudaGetLastError();  // already pinned or not pinnable: copy as pageable
    return false;
}

extern "C" void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                                 float damping, float tol, int max_iters, float* rank)
{
    int *d_ptr = NULL, *d_idx = NULL, *d_deg = NULL;
    float *d_a = NULL, *d_b = NULL, *d_contrib = NULL;
    double* d_sums = NULL;
    double* h_sums = NULL;  // pinned, for the per-iteration check
    cudaStream_t s[3] = {NULL, NULL, NULL};
    cudaEvent_t ready = NULL, chunk_done[NCHUNKS] = {};
    bool pin_ptr = false, pin_idx = false, pin_deg = false, pin_rank = false;
    int m = 0, blocks = (n + THREADS - 1) / THREADS, it = 0;
    size_t nb = (size_t)n * sizeof(float);

    if (n <= 0) return;
    m = in_ptr[n];
    for (int i = 0; i < 3; i++) CUDA_OK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    for (int c = 0; c < NCHUNKS; c++) CUDA_OK(cudaEventCreateWithFlags(&chunk_done[c], cudaEventDisableTiming));
    CUDA_OK(cudaHostAlloc((void**)&h_sums, 2 * sizeof(double), cudaHostAllocDefault));
    pin_ptr = pin(in_ptr, (size_t)(n + 1) * sizeof(int));
    pin_idx = pin(in_idx, (size_t)m * sizeof(int));
    pin_deg = pin(out_deg, (size_t)n * sizeof(int));
    pin_rank = pin(rank, nb);

    CUDA_OK(cudaMallocAsync((void**)&d_ptr, (size_t)(n + 1) * sizeof(int), s[0]));
    CUDA_OK(cudaMallocAsync((void**)&d_idx, (size_t)m * sizeof(int) + sizeof(int), s[0]));
    CUDA_OK(cudaMallocAsync((void**)&d_deg, (size_t)n * sizeof(int), s[0]));
    CUDA_OK(cudaMallocAsync((void**)&d_a, nb, s[0]));
    CUDA_OK(cudaMallocAsync((void**)&d_b, nb, s[0]));
    CUDA_OK(cudaMallocAsync((void**)&d_contrib, nb, s[0]));
    CUDA_OK(cudaMallocAsync((void**)&d_sums, 2 * sizeof(double), s[0]));

    // Stream 0: small arrays, initial ranks and the first contributions.
    CUDA_OK(cudaMemcpyAsync(d_ptr, in_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice, s[0]));
    CUDA_OK(cudaMemcpyAsync(d_deg, out_deg, (size_t)n * sizeof(int), cudaMemcpyHostToDevice, s[0]));
    init_rank<<<blocks, THREADS, 0, s[0]>>>(n, d_a);
    CUDA_OK(cudaMemsetAsync(d_sums, 0, 2 * sizeof(double), s[0]));
    contributions<<<blocks, THREADS, 0, s[0]>>>(n, d_deg, d_a, d_contrib, d_sums);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaEventRecord(ready, s[0]));

    // Streams 1 and 2: in-edges of each vertex range, then that range's first pull.
    if (max_iters > 0) {
        for (int c = 0; c < NCHUNKS; c++) {
            cudaStream_t t = s[1 + (c & 1)];
            int v0 = (int)((long long)n * c / NCHUNKS), v1 = (int)((long long)n * (c + 1) / NCHUNKS);
            size_t e0 = (size_t)in_ptr[v0], e1 = (size_t)in_ptr[v1];
            CUDA_OK(cudaStreamWaitEvent(t, ready, 0));
            if (e1 > e0)
                CUDA_OK(cudaMemcpyAsync(d_idx + e0, in_idx + e0, (e1 - e0) * sizeof(int),
                                        cudaMemcpyHostToDevice, t));
            if (v1 > v0) {
                pull<<<(v1 - v0 + THREADS - 1) / THREADS, THREADS, 0, t>>>(
                    v0, v1, n, d_ptr, d_idx, d_contrib, d_a, d_b, damping, d_sums);
                CUDA_OK(cudaGetLastError());
            }
            CUDA_OK(cudaEventRecord(chunk_done[c], t));
            CUDA_OK(cudaStreamWaitEvent(s[0], chunk_done[c], 0));
        }
        CUDA_OK(cudaMemcpyAsync(h_sums, d_sums, 2 * sizeof(double), cudaMemcpyDeviceToHost, s[0]));
        CUDA_OK(cudaStreamSynchronize(s[0]));
        float* t = d_a;  // d_a holds the newest ranks
        d_a = d_b;
        d_b = t;
        it = 1;
        if (h_sums[1] < tol) it = max_iters;  // converged in the first iteration
    }

    for (; it < max_iters; it++) {
        CUDA_OK(cudaMemsetAsync(d_sums, 0, 2 * sizeof(double), s[0]));
        contributions<<<blocks, THREADS, 0, s[0]>>>(n, d_deg, d_a, d_contrib, d_sums);
        pull<<<blocks, THREADS, 0, s[0]>>>(0, n, n, d_ptr, d_idx, d_contrib, d_a, d_b, damping, d_sums);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaMemcpyAsync(h_sums, d_sums, 2 * sizeof(double), cudaMemcpyDeviceToHost, s[0]));
        CUDA_OK(cudaStreamSynchronize(s[0]));
        float* t = d_a;
        d_a = d_b;
        d_b = t;
        if (h_sums[1] < tol) break;
    }
    CUDA_OK(cudaMemcpyAsync(rank, d_a, nb, cudaMemcpyDeviceToHost, s[0]));
    CUDA_OK(cudaStreamSynchronize(s[0]));

cleanup:
    for (int i = 0; i < 3; i++)
        if (s[i]) cudaStreamSynchronize(s[i]);
    if (s[0]) {
        if (d_ptr) cudaFreeAsync(d_ptr, s[0]);
        if (d_idx) cudaFreeAsync(d_idx, s[0]);
        if (d_deg) cudaFreeAsync(d_deg, s[0]);
        if (d_a) cudaFreeAsync(d_a, s[0]);
        if (d_b) cudaFreeAsync(d_b, s[0]);
        if (d_contrib) cudaFreeAsync(d_contrib, s[0]);
        if (d_sums) cudaFreeAsync(d_sums, s[0]);
        cudaStreamSynchronize(s[0]);
    }
    for (int i = 0; i < 3; i++)
        if (s[i]) cudaStreamDestroy(s[i]);
    if (ready) cudaEventDestroy(ready);
    for (int c = 0; c < NCHUNKS; c++)
        if (chunk_done[c]) cudaEventDestroy(chunk_done[c]);
    if (h_sums) cudaFreeHost(h_sums);
    if (pin_ptr) cudaHostUnregister((void*)in_ptr);
    if (pin_idx) cudaHostUnregister((void*)in_idx);
    if (pin_deg) cudaHostUnregister((void*)out_deg);
    if (pin_rank) cudaHostUnregister(rank);
}
