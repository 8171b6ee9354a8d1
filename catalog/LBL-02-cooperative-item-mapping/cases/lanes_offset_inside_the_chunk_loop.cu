// Case: lanes offset inside the chunk loop.
__global__ void expand(const int* rp, const int* ci, const int* front, int fs, int* out) {
    int lane = threadIdx.x & 31;
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (w >= fs) return;
    int u = front[w];
    int beg = rp[u], end = rp[u + 1];
    for (int base = beg; base < end; base += 32) {  // expect: LBL-02
        int k = base + lane;
        if (k < end) out[ci[k]] = 1;
    }
}
extern "C" void solution_compute(const int* rp, const int* ci, const int* f, int fs, int* o) {
    expand<<<(fs * 32 + 255) / 256, 256>>>(rp, ci, f, fs, o);
}
