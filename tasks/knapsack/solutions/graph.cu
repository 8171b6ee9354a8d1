// 0/1 knapsack with the per-item launches recorded once into a CUDA graph.
//
// One kernel per item is the natural decomposition, but thousands of back-to-back launches
// cost more in launch overhead than the passes themselves. The item loop is stream-captured
// into a graph (row clear, then one node per item that fits), the graph is instantiated and
// launched once, and the final row is copied back.
#include <cuda_runtime.h>
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

constexpr int THREADS = 256;

__global__ void __launch_bounds__(THREADS)
item_kernel(int capacity, int w, int v, const int* __restrict__ prev, int* __restrict__ next)
{
    const int c = blockIdx.x * THREADS + threadIdx.x;
    if (c > capacity) return;
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
    cudaStream_t stream = nullptr;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    bool capturing = false;
    int *cur = nullptr, *nxt = nullptr;
    int* bufs[2] = {nullptr, nullptr};
    size_t bytes = 0;
    int blocks = 0;
    if (capacity < 0) return;
    bytes = (size_t)(capacity + 1) * sizeof(int);
    blocks = (capacity + THREADS) / THREADS;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CK(cudaMalloc(&bufs[0], bytes));
    CK(cudaMalloc(&bufs[1], bytes));
    cur = bufs[0];
    nxt = bufs[1];

    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    capturing = true;
    CK(cudaMemsetAsync(cur, 0, bytes, stream));
    for (int i = 0; i < n_items; i++) {
        if (weights[i] > capacity) continue;
        item_kernel<<<blocks, THREADS, 0, stream>>>(capacity, weights[i], values[i], cur, nxt);
        CK(cudaGetLastError());
        int* t = cur;
        cur = nxt;
        nxt = t;
    }
    capturing = false;
    CK(cudaStreamEndCapture(stream, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    CK(cudaGraphLaunch(exec, stream));
    CK(cudaMemcpyAsync(best, cur, bytes, cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamSynchronize(stream));
done:
    if (capturing) {  // an error inside the capture: end it and drop the partial graph
        cudaGraph_t partial = nullptr;
        cudaStreamEndCapture(stream, &partial);
        if (partial) cudaGraphDestroy(partial);
        cudaGetLastError();
    }
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    if (stream) cudaStreamSynchronize(stream);
    cudaFree(bufs[0]);
    cudaFree(bufs[1]);
    if (stream) cudaStreamDestroy(stream);
}
