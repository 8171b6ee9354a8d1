// Case: cub::BlockLoad with BLOCK_LOAD_WARP_TRANSPOSE reads the tile coalesced and re-lays it out
// through shared memory into each thread's consecutive items (striped to blocked); the store
// transposes back the same way. A BLOCK_LOAD_DIRECT load keeps the layout as it is.
#include <cub/cub.cuh>

constexpr int THREADS = 128;
constexpr int ITEMS = 4;

struct Traits {
    using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Store = cub::BlockStore<float, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    using Plain = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_DIRECT>;
};

__global__ void running_sums(const float *in, float *out)
{
    __shared__ union {
        typename Traits::Load::TempStorage load;  // expect: MEM-07
        typename Traits::Store::TempStorage store;  // expect: MEM-07
    } scratch;
    float v[ITEMS];
    int base = blockIdx.x * THREADS * ITEMS;
    Traits::Load(scratch.load).Load(in + base, v);  // expect: MEM-07
    for (int i = 1; i < ITEMS; ++i)
        v[i] += v[i - 1];
    __syncthreads();
    Traits::Store(scratch.store).Store(out + base, v);  // expect: MEM-07
}

__global__ void scale(const float *in, float *out, float a)
{
    __shared__ typename Traits::Plain::TempStorage scratch;  // ok: MEM-07
    float v[ITEMS];
    int base = blockIdx.x * THREADS * ITEMS;
    Traits::Plain(scratch).Load(in + base, v);  // ok: MEM-07
    for (int i = 0; i < ITEMS; ++i)
        out[base + threadIdx.x * ITEMS + i] = a * v[i];
}

extern "C" void solution_compute(const float *x, float *y, float *z, int tiles)
{
    running_sums<<<tiles, THREADS>>>(x, y);
    scale<<<tiles, THREADS>>>(x, z, 2.0f);
}
