// Case: merge path search in a helper called with the thread diagonal.
__device__ int split(const int* a, int na, const int* b, int nb, int diag) {
    int lo = max(0, diag - nb), hi = min(diag, na);
    while (lo < hi) {  // expect: LBL-05
        int mid = (lo + hi) >> 1;
        if (a[mid] <= b[diag - 1 - mid]) lo = mid + 1; else hi = mid;
    }
    return lo;
}
__global__ void merge(const int* a, int na, const int* b, int nb, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int diag = min(t * 8, na + nb);
    int i = split(a, na, b, nb, diag);
    out[t] = i;
}
__global__ void find(const int* a, int na, const int* q, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = split(a, na, a, na, q[t]);
}
extern "C" void solution_compute(const int* a, int na, const int* b, int nb, int* out) {
    merge<<<4, 128>>>(a, na, b, nb, out);
    find<<<4, 128>>>(a, na, b, out);
}
