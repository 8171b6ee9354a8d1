// Case: a group of G threads per CSR row, G a template parameter (lane = threadIdx.x % G beside
// the group index threadIdx.x / G): the lanes stride over the row by G, in the loop header or
// by advancing the lane in a while loop's body. Near miss: threadIdx.x % 4 picks a component
// of a thread's own vector, with no group index, and a loop of that thread steps by 4.
template <int G>
__global__ void spmv_group(const int* row_ptr, const int* cols, const float* vals,
                           const float* x, float* y, int rows) {
    const int row = blockIdx.x * (blockDim.x / G) + threadIdx.x / G;
    const int lane = threadIdx.x % G;
    if (row >= rows) return;
    float s = 0.0f;
    for (int k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += G)  // expect: LBL-02
        s += vals[k] * x[cols[k]];
    for (int off = G / 2; off > 0; off /= 2) s += __shfl_down_sync(0xffffffff, s, off, G);
    if (lane == 0) y[row] = s;
}
__global__ void count_group(const int* row_ptr, const int* cols, int* hits, int g, int rows) {
    const int row = blockIdx.x * (blockDim.x / g) + threadIdx.x / g;
    int k = threadIdx.x % g;
    if (row >= rows) return;
    const int beg = row_ptr[row];
    const int len = row_ptr[row + 1] - beg;
    int n = 0;
    while (k < len) {
        n += cols[beg + k] > row;
        k += g;  // expect: LBL-02
    }
    atomicAdd(&hits[row], n);
}
__global__ void strided_components(const float* in, float* out, int n) {
    const int c = threadIdx.x % 4;
    for (int i = blockIdx.x * 4 + c; i < n; i += 4)  // ok: LBL-02
        out[i] = 2.0f * in[i];
}
extern "C" void solution_compute(const int* row_ptr, const int* cols, const float* vals,
                                 const float* x, float* y, int* hits, float* out, int rows, int n) {
    spmv_group<8><<<(rows * 8 + 255) / 256, 256>>>(row_ptr, cols, vals, x, y, rows);
    count_group<<<(rows * 4 + 255) / 256, 256>>>(row_ptr, cols, hits, 4, rows);
    strided_components<<<(n + 3) / 4, 256>>>(x, out, n);
}
