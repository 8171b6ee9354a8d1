// Case: host passes level plus one.
__global__ void expand(const int* rp, const int* ci, const int* f, int fs, int* lev, int next) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= fs) return;
    int u = f[t];
    for (int e = rp[u]; e < rp[u + 1]; ++e)
        if (lev[ci[e]] < 0) lev[ci[e]] = next;
}
extern "C" void solution_compute(const int* rp, const int* ci, const int* f, int* lev, int* d_fs) {
    int fs = 1, level = 0;
    while (fs > 0) {  // expect: CMP-02
        expand<<<(fs + 255) / 256, 256>>>(rp, ci, f, fs, lev, level + 1);
        cudaMemcpy(&fs, d_fs, sizeof(int), cudaMemcpyDeviceToHost);
        ++level;
    }
}
