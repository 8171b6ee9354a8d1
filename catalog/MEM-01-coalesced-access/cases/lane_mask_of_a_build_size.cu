// Case: one warp per tile of a tile list; each lane reads the element of its tile at
// tgx = threadIdx.x & (TILE_SIZE - 1), where TILE_SIZE comes from the build (a header the file
// does not bring, or -D). The mask of a power-of-two size is a lane index, so consecutive lanes
// read consecutive elements of the tile.
#include "tile_config.h"  // not present

__global__ void tile_sums(const int* __restrict__ tiles, const float* __restrict__ val,
                          float* __restrict__ out, int num_tiles) {
    const unsigned int warp = (blockIdx.x * blockDim.x + threadIdx.x) / TILE_SIZE;
    const unsigned int tgx = threadIdx.x & (TILE_SIZE - 1);
    if (warp >= num_tiles) return;
    int t = tiles[warp];
    float v = val[t * TILE_SIZE + tgx];  // expect: MEM-01
    for (int offset = TILE_SIZE / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    out[t * TILE_SIZE + tgx] = v;  // expect: MEM-01
}

extern "C" void solution_compute(const int* tiles, const float* val, float* out, int num_tiles) {
    tile_sums<<<(num_tiles * 32 + 255) / 256, 256>>>(tiles, val, out, num_tiles);
}
