// BFS levels split between host and device. The first levels of a BFS touch a handful of
// vertices, where a GPU launch per level costs more than the work, so the host runs them
// (a plain queue over the caller's CSR arrays) until a level holds HOST_FRONTIER_MAX vertices,
// while the device allocates and clears its buffers. The labelled vertices and the last host
// frontier then go to the device, which continues level by level over frontier queues.
#include <cuda_runtime.h>
#include <cstdio>
#include <unordered_map>
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

constexpr int THREADS = 256;
constexpr size_t HOST_FRONTIER_MAX = 4096;

__global__ void scatter_levels(int count, const int* __restrict__ vertex,
                               const int* __restrict__ level, int* __restrict__ levels)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) levels[vertex[i]] = level[i];
}

__global__ void expand(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                       const int* __restrict__ frontier, int size, int* __restrict__ next,
                       int* __restrict__ next_size, int* levels, int depth)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    const int u = frontier[i];
    const int end = row_ptr[u + 1];
    for (int k = row_ptr[u]; k < end; k++) {
        const int v = col_idx[k];
        if (levels[v] == -1 && atomicCAS(&levels[v], -1, depth + 1) == -1)
            next[atomicAdd(next_size, 1)] = v;
    }
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, int source,
                                 int* levels)
{
    int *d_ptr = nullptr, *d_col = nullptr, *d_lev = nullptr, *d_q = nullptr, *d_cnt = nullptr;
    int *d_vert = nullptr, *d_vlev = nullptr;
    int m = 0, depth = 0, size = 0;
    int *cur = nullptr, *nxt = nullptr;
    std::vector<int> seen_vertex, seen_level, frontier, next;
    std::unordered_map<int, int> level_of;
    cudaStream_t s = nullptr;

    if (n <= 0) return;
    m = row_ptr[n];
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMallocAsync(&d_ptr, (size_t)(n + 1) * sizeof(int), s));
    CK(cudaMallocAsync(&d_col, (size_t)m * sizeof(int) + sizeof(int), s));
    CK(cudaMallocAsync(&d_lev, (size_t)n * sizeof(int), s));
    CK(cudaMallocAsync(&d_q, 2 * (size_t)n * sizeof(int), s));
    CK(cudaMallocAsync(&d_cnt, sizeof(int), s));
    CK(cudaMemsetAsync(d_lev, 0xff, (size_t)n * sizeof(int), s));  // -1 everywhere

    // Host: the first levels.
    if (source >= 0 && source < n) {
        level_of.emplace(source, 0);
        seen_vertex.push_back(source);
        seen_level.push_back(0);
        frontier.push_back(source);
        while (!frontier.empty() && frontier.size() < HOST_FRONTIER_MAX) {
            next.clear();
            for (int u : frontier)
                for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++) {
                    const int v = col_idx[k];
                    if (level_of.emplace(v, depth + 1).second) {
                        next.push_back(v);
                        seen_vertex.push_back(v);
                        seen_level.push_back(depth + 1);
                    }
                }
            frontier.swap(next);
            depth++;
        }
    }

    // Device: the graph, the host's labels and its last frontier, then the remaining levels.
    CK(cudaMemcpyAsync(d_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(d_col, col_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice, s));
    if (!seen_vertex.empty()) {
        const int count = (int)seen_vertex.size();
        CK(cudaMallocAsync(&d_vert, seen_vertex.size() * sizeof(int), s));
        CK(cudaMallocAsync(&d_vlev, seen_level.size() * sizeof(int), s));
        CK(cudaMemcpyAsync(d_vert, seen_vertex.data(), count * sizeof(int), cudaMemcpyHostToDevice, s));
        CK(cudaMemcpyAsync(d_vlev, seen_level.data(), count * sizeof(int), cudaMemcpyHostToDevice, s));
        scatter_levels<<<(count + THREADS - 1) / THREADS, THREADS, 0, s>>>(count, d_vert, d_vlev, d_lev);
        CK(cudaGetLastError());
    }
    cur = d_q;
    nxt = d_q + n;
    size = (int)frontier.size();
    if (size > 0)
        CK(cudaMemcpyAsync(cur, frontier.data(), (size_t)size * sizeof(int), cudaMemcpyHostToDevice, s));
    while (size > 0) {
        CK(cudaMemsetAsync(d_cnt, 0, sizeof(int), s));
        expand<<<(size + THREADS - 1) / THREADS, THREADS, 0, s>>>(d_ptr, d_col, cur, size, nxt,
                                                                 d_cnt, d_lev, depth);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(&size, d_cnt, sizeof(int), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        int* t = cur;
        cur = nxt;
        nxt = t;
        depth++;
    }
    CK(cudaMemcpyAsync(levels, d_lev, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));

done:
    if (s) {
        cudaStreamSynchronize(s);
        if (d_ptr) cudaFreeAsync(d_ptr, s);
        if (d_col) cudaFreeAsync(d_col, s);
        if (d_lev) cudaFreeAsync(d_lev, s);
        if (d_q) cudaFreeAsync(d_q, s);
        if (d_cnt) cudaFreeAsync(d_cnt, s);
        if (d_vert) cudaFreeAsync(d_vert, s);
        if (d_vlev) cudaFreeAsync(d_vlev, s);
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    }
}
