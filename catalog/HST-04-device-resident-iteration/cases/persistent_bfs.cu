// Case: persistent bfs labels.
// iterations inside one kernel with grid barriers
// level-synchronous BFS: the device level loop
// grid.sync
// grid-stride through `stride`
// a grid-stride loop is not coarsening
// u comes from the frontier bitmap: data-driven walk
// ok: PAR-02, AP-03
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void bfs(int n, const int* rp, const int* ci, int* lev, const unsigned* front, int* changed) {
    cg::grid_group grid = cg::this_grid();
    int words = (n + 31) / 32;
    int stride = gridDim.x * blockDim.x;
    for (int depth = 0;; ++depth) {  // expect: HST-04, CMP-02
        grid.sync();  // expect: PAR-09
        for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride) {  // expect: PAR-01
            unsigned bits = front[w];
            while (bits) {
                int b = __ffs(bits) - 1;
                bits &= bits - 1;
                int u = w * 32 + b;
                for (int e = rp[u]; e < rp[u + 1]; ++e)
                    if (atomicCAS(&lev[ci[e]], -1, depth + 1) == -1) *changed = 1;
            }
        }
        grid.sync();  // expect: PAR-09
        if (!*changed) break;
    }
}
extern "C" void solution_compute(int n, int* rp, int* ci, int* lev, unsigned* front, int* changed) {
    void* args[] = {&n, &rp, &ci, &lev, &front, &changed};
    cudaLaunchCooperativeKernel((void*)bfs, 132, 256, args, 0, 0);
}
