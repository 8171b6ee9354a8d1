// Case: a kernel file with no launch; each warp-sized tile takes a CSR row and its lanes step
// over the row by warp_size, a width the file names but does not fix (a template parameter).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <int warp_size>
__global__ void row_sums(const int* row_ptr, const float* vals, float* sums, int rows) {
    auto tile = cg::tiled_partition<warp_size>(cg::this_thread_block());
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / warp_size;
    if (row >= rows) return;
    float s = 0.0f;
    // expect: LBL-02
    for (int k = row_ptr[row] + tile.thread_rank(); k < row_ptr[row + 1]; k += warp_size)
        s += vals[k];
    for (int off = warp_size / 2; off > 0; off /= 2)
        s += tile.shfl_down(s, off);
    if (tile.thread_rank() == 0) sums[row] = s;
}
