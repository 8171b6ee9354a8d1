// Case: each block sorts its tile with CUB's block-wide radix sort, named through a using-alias
// in the kernel: a parallel radix sort in place of a serial comparison sort; the alias, its temp
// storage and the sort call name it. The block load beside it is no sort.
#include <cuda_runtime.h>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>

using cub::BlockRadixSort;

__global__ void sort_tiles(const unsigned* in, unsigned* out) {
    using load_t = cub::BlockLoad<unsigned, 128, 4, cub::BLOCK_LOAD_TRANSPOSE>;
    using sort_t = BlockRadixSort<unsigned, 128, 4>;  // expect: CMP-02
    __shared__ union {
        typename load_t::TempStorage load;
        typename sort_t::TempStorage sort;  // expect: CMP-02
    } tmp;
    unsigned keys[4];
    int base = blockIdx.x * 512;
    load_t(tmp.load).Load(in + base, keys);  // ok: CMP-02
    __syncthreads();
    sort_t(tmp.sort).SortBlockedToStriped(keys);  // expect: CMP-02
    for (int k = 0; k < 4; ++k) out[base + k * 128 + threadIdx.x] = keys[k];
}

extern "C" void solution_compute(const unsigned* in, unsigned* out, int tiles) {
    sort_tiles<<<tiles, 128>>>(in, out);
    cudaDeviceSynchronize();
}
