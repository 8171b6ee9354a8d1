// Case: balanced search on thread position not on loaded key or float bisection.
__global__ void balanced(const int* rp, int rows, int nnz, int* first_row) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int start = t * 64;
    int lo = 0, hi = rows;
    while (lo < hi) {  // expect: LBL-05
        int mid = lo + (hi - lo) / 2;
        if (rp[mid + 1] <= start) lo = mid + 1; else hi = mid;
    }
    first_row[t] = lo;
}
__global__ void lookup(const float* table, int m, const float* q, int* pos) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float key = q[i];
    int lo = 0, hi = m;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (table[mid] < key) lo = mid + 1; else hi = mid;
    }
    pos[i] = lo;
}
__global__ void bisect(const float* target, float* root) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float lo = 0.0f, hi = 10.0f;
    for (int it = 0; it < 50; ++it) {
        float mid = 0.5f * (lo + hi);
        if (mid * mid > target[i]) hi = mid; else lo = mid;
    }
    root[i] = lo;
}
extern "C" void solution_compute(const int* rp, int rows, const float* q, int* pos, float* r) {
    balanced<<<4, 256>>>(rp, rows, 100, pos);
    lookup<<<4, 256>>>(q, rows, q, pos);
    bisect<<<4, 256>>>(q, r);
}
