// Case: a kernel file without a launch (its launcher passes the grid and block in as dim3
// parameters) that maps a 2-D image through cooperative groups: block.group_index().y and
// block.thread_index().y are blockIdx.y and threadIdx.y.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void shade(const float* in, float* out, int W, int H) {
  auto block = cg::this_thread_block();
  unsigned x = block.group_index().x * 16 + block.thread_index().x;
  unsigned y = block.group_index().y * 16 + block.thread_index().y;  // expect: PAR-10
  if (x < W && y < H) out[y * W + x] = 0.5f * in[y * W + x];
}
