// Case: a block per token whose row of a table is found through a loaded id (tok = ids[b])
// and whose lanes copy that row: a block per gathered item, even without a reduction. A block
// per row of a dense array that only copies its own row is a 2-D decomposition instead.
__global__ void gather_rows(const float* table, const int* ids, float* out, int dim) {
    const int b = blockIdx.x;
    const int tok = ids[b];
    const float* src = table + (size_t)tok * dim;
    float* dst = out + (size_t)b * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x)  // expect: LBL-02
        dst[d] = src[d];
}
__global__ void copy_rows(const float* in, float* out, int dim) {
    const float* src = in + (size_t)blockIdx.x * dim;
    float* dst = out + (size_t)blockIdx.x * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x)  // ok: LBL-02
        dst[d] = src[d];
}
extern "C" void solution_compute(const float* table, const int* ids, float* out, float* copy,
                                 int tokens, int dim) {
    gather_rows<<<tokens, 256>>>(table, ids, out, dim);
    copy_rows<<<tokens, 256>>>(out, copy, dim);
}
