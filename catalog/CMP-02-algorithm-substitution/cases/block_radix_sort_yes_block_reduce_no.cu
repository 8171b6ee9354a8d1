// Case: each block sorts its tile with cub::BlockRadixSort, a parallel radix sort in place of a
// comparison sort; the alias, its temp storage and the call name it. A block reduction through
// cub::BlockReduce sorts nothing.
#include <cub/cub.cuh>

constexpr int THREADS = 128;
constexpr int ITEMS = 4;

__global__ void sort_tiles(const unsigned *in, unsigned *out)
{
    using TileSort = cub::BlockRadixSort<unsigned, THREADS, ITEMS>;  // expect: CMP-02
    __shared__ typename TileSort::TempStorage scratch;  // expect: CMP-02
    unsigned keys[ITEMS];
    int base = blockIdx.x * THREADS * ITEMS + threadIdx.x * ITEMS;
    for (int i = 0; i < ITEMS; ++i)
        keys[i] = in[base + i];
    TileSort(scratch).Sort(keys);  // expect: CMP-02
    for (int i = 0; i < ITEMS; ++i)
        out[base + i] = keys[i];
}

__global__ void tile_sums(const float *in, float *sums)
{
    using Sum = cub::BlockReduce<float, THREADS>;  // ok: CMP-02
    __shared__ typename Sum::TempStorage scratch;
    float v = in[blockIdx.x * THREADS + threadIdx.x];
    float total = Sum(scratch).Sum(v);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = total;
}

extern "C" void solution_compute(const unsigned *keys, unsigned *sorted, const float *x,
                                 float *sums, int tiles)
{
    sort_tiles<<<tiles, THREADS>>>(keys, sorted);
    tile_sums<<<tiles, THREADS>>>(x, sums);
}
