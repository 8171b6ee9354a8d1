// Case: CUB's collectives named through a namespace alias, a using-alias and a typedef. A
// BlockScan that gives each kept element its output slot is a scan (not a block tree reduction
// and not a warp shuffle of the kernel's own); a WarpReduce is a warp shuffle collective; a
// BlockReduce is a block tree reduction whose shuffles are the library's.
#include <cuda_runtime.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

namespace prim = cub;

template <int THREADS>
__global__ void keep_positive(const float* in, float* out, int* count, int n) {
    using scan_t = prim::BlockScan<int, THREADS>;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ int base;
    int i = blockIdx.x * THREADS + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    int keep = v > 0.0f ? 1 : 0;
    int slot, total;
    scan_t(tmp).ExclusiveSum(keep, slot, total);  // expect: PAR-07 // ok: PAR-03, PAR-04
    if (threadIdx.x == 0) base = atomicAdd(count, total);
    __syncthreads();
    if (keep) out[base + slot] = v;
}

__global__ void sum_rows(const float* in, float* out, int cols) {
    typedef cub::WarpReduce<float> warp_sum_t;
    __shared__ typename warp_sum_t::TempStorage tmp;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 32) s += in[(size_t)blockIdx.x * cols + c];
    float total = warp_sum_t(tmp).Sum(s);  // expect: PAR-03
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

__global__ void block_sum(const float* in, float* out, int n) {
    using sum_t = prim::BlockReduce<float, 256>;
    __shared__ typename sum_t::TempStorage tmp;
    int i = blockIdx.x * 256 + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    float m = sum_t(tmp).Sum(v);  // expect: PAR-04 // ok: PAR-03
    if (threadIdx.x == 0) out[blockIdx.x] = m;
}

extern "C" void solution_compute(const float* in, float* out, float* sums, int* count, int rows,
                                 int cols) {
    int n = rows * cols;
    cudaMemset(count, 0, sizeof(int));
    keep_positive<128><<<(n + 127) / 128, 128>>>(in, out, count, n);
    sum_rows<<<rows, 32>>>(in, sums, cols);
    block_sum<<<(n + 255) / 256, 256>>>(in, sums + rows, n);
    cudaDeviceSynchronize();
}
