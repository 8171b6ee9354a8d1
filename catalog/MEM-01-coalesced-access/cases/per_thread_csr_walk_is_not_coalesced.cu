// Case: per thread csr walk is not coalesced.
// the row walk v[k], ci[k] starts at a loaded rp[row] and steps by one per thread
// ok: MEM-01
__global__ void spmv(const int* rp, const int* ci, const float* v, const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float s = 0.0f;
    for (int k = rp[row]; k < rp[row + 1]; ++k) s += v[k] * x[ci[k]];
    y[row] = s;
}
extern "C" void solution_compute(float* a, float* b, int n) {
    spmv<<<1, 32>>>(0, 0, a, a, b, n);
}
