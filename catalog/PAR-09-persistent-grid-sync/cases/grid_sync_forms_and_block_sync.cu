// Case: grid sync forms and block sync.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(float* x, int n) {
    cg::grid_group g = cg::this_grid();
    cg::thread_block b = cg::this_thread_block();
    x[g.thread_rank()] = 1.0f;
    b.sync();
    cg::sync(g);  // expect: PAR-09
    cg::this_grid().sync();  // expect: PAR-09
}
extern "C" void solution_compute(float* x, int n) {
    void* args[] = {&x, &n};
    cudaLaunchCooperativeKernel((void*)k, dim3(132), dim3(256), args, 0, 0);
}
