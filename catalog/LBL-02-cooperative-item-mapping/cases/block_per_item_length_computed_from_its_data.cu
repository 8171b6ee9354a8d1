// Case: a block per particle whose lanes cover a count computed from the particle's own loaded
// data (its radius gives the cells it touches): the item's own length. Near miss: a count
// loaded from a global setting, the same for every block, is not the item's length.
__device__ int wrap(int c, int n) { return (c % n + n) % n; }
__global__ void mark_cells(const float* radius, int* cell_flag, float cell_size, int ncells) {
    const int p = blockIdx.x;
    const float r = radius[p];
    const int reach = (int)(r / cell_size) + 1;
    const int count = 2 * reach + 1;
    for (int i = threadIdx.x; i < count; i += blockDim.x) {  // expect: LBL-02
        const int off = i - reach;
        const int c = wrap(p + off, ncells);
        cell_flag[c] = 1;
    }
}
__global__ void clear_cells(const int* settings, int* cell_flag) {
    const int count = settings[0];
    for (int i = threadIdx.x; i < count; i += blockDim.x)  // ok: LBL-02
        cell_flag[blockIdx.x * count + i] = 0;
}
extern "C" void solution_compute(const float* radius, const int* settings, int* cell_flag,
                                 float cell_size, int particles, int ncells) {
    mark_cells<<<particles, 32>>>(radius, cell_flag, cell_size, ncells);
    clear_cells<<<particles, 32>>>(settings, cell_flag);
}
