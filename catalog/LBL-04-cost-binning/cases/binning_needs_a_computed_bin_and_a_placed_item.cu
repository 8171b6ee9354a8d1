// Case: binning needs a computed bin and a placed item.
__global__ void bins(const int* rp, int n, int* count, int* lists) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int deg = rp[v + 1] - rp[v];
    int b = deg < 32 ? 0 : 1;
    int slot = atomicAdd(&count[b], 1);  // expect: LBL-04
    lists[b * n + slot] = v;
}
__global__ void hist(const int* keys, int n, int* h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = keys[i] % 16;
    if (i < n) atomicAdd(&h[b], 1);
}
__global__ void scatter(const int* src, const int* dst, int m, int* cursor, int* col) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < m) { int s = atomicAdd(&cursor[src[e]], 1); col[s] = dst[e]; }
}
extern "C" void solution_compute(const int* rp, int n, int* count, int* lists) {
    bins<<<n / 256, 256>>>(rp, n, count, lists);
    hist<<<n / 256, 256>>>(rp, n, count);
    scatter<<<n / 256, 256>>>(rp, rp, n, count, lists);
}
