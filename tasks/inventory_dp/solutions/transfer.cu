// Inventory replenishment DP with uploads and downloads overlapped with the recursion.
//
// The recursion walks the periods backwards, so the demand table is uploaded backwards too,
// in chunks of periods through pinned staging on an upload stream; the compute stream waits
// only for the chunk it needs next. Finished rows of the value table are copied back on a
// download stream in batches while later periods are still being computed; the output array
// is page-locked in place for that (plain pageable copies if the page-locking is refused).
// Device memory comes from the stream-ordered allocator; the kernels are the simple ones:
// one thread per level for the expected cost and one per stock level for the order decision.
#include <cuda_runtime.h>
#include <cstdio>
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

constexpr int THREADS = 128;
constexpr int CHUNKS = 8;  // upload chunks and download batches

__global__ void expected_kernel(int states, int max_demand, const float* __restrict__ pmf,
                                const float* __restrict__ next, float holding, float shortage,
                                float* __restrict__ expected)
{
    const int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= states) return;
    double acc = 0.0;
    for (int d = 0; d <= max_demand; d++) {
        const int left = y - d;
        const float cost = left >= 0 ? holding * (float)left + next[left]
                                     : shortage * (float)(-left) + next[0];
        acc += (double)(pmf[d] * cost);
    }
    expected[y] = (float)acc;
}

__global__ void value_kernel(int states, int max_inv, int max_order, float order_cost,
                             float fixed_cost, const float* __restrict__ expected,
                             float* __restrict__ cur)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= states) return;
    const int top = x + max_order < max_inv ? x + max_order : max_inv;
    float best = expected[x];
    for (int y = x + 1; y <= top; y++) {
        const float c = fixed_cost + order_cost * (float)(y - x) + expected[y];
        if (c < best) best = c;
    }
    cur[x] = best;
}

extern "C" void solution_compute(int horizon, int max_inv, int max_order, int max_demand,
                                 const float* demand_pmf, float order_cost, float fixed_cost,
                                 float holding_cost, float shortage_cost, float* value)
{
    cudaStream_t up = nullptr, compute = nullptr, down = nullptr;
    std::vector<cudaEvent_t> uploaded(CHUNKS, nullptr), rows_done(CHUNKS, nullptr);
    float *h_pmf = nullptr, *d_pmf = nullptr, *d_table = nullptr, *d_zero = nullptr;
    float* d_exp = nullptr;
    bool registered = false;
    const int states = max_inv + 1, nd = max_demand + 1;
    const size_t row_bytes = (size_t)states * sizeof(float);
    const size_t pmf_bytes = (size_t)horizon * nd * sizeof(float);
    const size_t table_bytes = (size_t)horizon * row_bytes;
    const int per_chunk = (horizon + CHUNKS - 1) / CHUNKS;
    const int blocks = (states + THREADS - 1) / THREADS;
    if (horizon <= 0 || max_inv < 0) return;

    CK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    for (int k = 0; k < CHUNKS; k++) {
        CK(cudaEventCreateWithFlags(&uploaded[k], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&rows_done[k], cudaEventDisableTiming));
    }
    registered = cudaHostRegister(value, table_bytes, cudaHostRegisterDefault) == cudaSuccess;
    if (!registered) cudaGetLastError();
    CK(cudaHostAlloc((void**)&h_pmf, pmf_bytes, cudaHostAllocWriteCombined));
    CK(cudaMallocAsync((void**)&d_pmf, pmf_bytes, up));
    CK(cudaMallocAsync((void**)&d_table, table_bytes, compute));
    CK(cudaMallocAsync((void**)&d_zero, row_bytes, compute));
    CK(cudaMallocAsync((void**)&d_exp, row_bytes, compute));
    CK(cudaMemsetAsync(d_zero, 0, row_bytes, compute));

    // Chunk k holds periods [hi - per_chunk, hi) counted from the end of the horizon.
    for (int k = 0; k < CHUNKS; k++) {
        const int hi = horizon - k * per_chunk;
        const int lo = hi - per_chunk > 0 ? hi - per_chunk : 0;
        if (hi <= 0) break;
        const size_t off = (size_t)lo * nd, n = (size_t)(hi - lo) * nd;
        std::memcpy(h_pmf + off, demand_pmf + off, n * sizeof(float));
        CK(cudaMemcpyAsync(d_pmf + off, h_pmf + off, n * sizeof(float), cudaMemcpyHostToDevice, up));
        CK(cudaEventRecord(uploaded[k], up));
    }

    for (int t = horizon - 1; t >= 0; t--) {
        const int k = (horizon - 1 - t) / per_chunk;
        if ((horizon - 1 - t) % per_chunk == 0) CK(cudaStreamWaitEvent(compute, uploaded[k], 0));
        const float* next = t == horizon - 1 ? d_zero : d_table + (size_t)(t + 1) * states;
        expected_kernel<<<blocks, THREADS, 0, compute>>>(states, max_demand, d_pmf + (size_t)t * nd,
                                                         next, holding_cost, shortage_cost, d_exp);
        CK(cudaGetLastError());
        value_kernel<<<blocks, THREADS, 0, compute>>>(states, max_inv, max_order, order_cost,
                                                      fixed_cost, d_exp, d_table + (size_t)t * states);
        CK(cudaGetLastError());
        // Rows [t, t + per_chunk) of batch k are final: send them home.
        if ((horizon - 1 - t) % per_chunk == per_chunk - 1 || t == 0) {
            const int first = t;
            const int last = horizon - k * per_chunk;  // one past
            CK(cudaEventRecord(rows_done[k], compute));
            CK(cudaStreamWaitEvent(down, rows_done[k], 0));
            CK(cudaMemcpyAsync(value + (size_t)first * states, d_table + (size_t)first * states,
                               (size_t)(last - first) * row_bytes, cudaMemcpyDeviceToHost, down));
        }
    }
    CK(cudaStreamSynchronize(down));
done:
    if (compute) {
        cudaDeviceSynchronize();
        if (d_pmf) cudaFreeAsync(d_pmf, compute);
        if (d_table) cudaFreeAsync(d_table, compute);
        if (d_zero) cudaFreeAsync(d_zero, compute);
        if (d_exp) cudaFreeAsync(d_exp, compute);
        cudaStreamSynchronize(compute);
    }
    for (int k = 0; k < CHUNKS; k++) {
        if (uploaded[k]) cudaEventDestroy(uploaded[k]);
        if (rows_done[k]) cudaEventDestroy(rows_done[k]);
    }
    if (up) cudaStreamDestroy(up);
    if (compute) cudaStreamDestroy(compute);
    if (down) cudaStreamDestroy(down);
    if (registered) cudaHostUnregister(value);
    cudaFreeHost(h_pmf);
}
