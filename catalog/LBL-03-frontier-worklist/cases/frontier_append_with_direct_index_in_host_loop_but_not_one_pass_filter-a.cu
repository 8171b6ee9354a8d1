// Case: frontier append with direct index in host loop but not one pass filter.
__global__ void expand(const int* rp, const int* col, const int* front, int fs, int* dist,
                       int lvl, int* next, int* ns) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= fs) return;
    int v = front[t];
    for (int e = rp[v]; e < rp[v + 1]; ++e)
        if (atomicCAS(&dist[col[e]], -1, lvl + 1) == -1) next[atomicAdd(ns, 1)] = col[e];  // expect: LBL-03
}
extern "C" void solution_compute(const int* rp, const int* col, int* f, int* g, int* d, int* ns) {
    int size = 1;
    for (int lvl = 0; size > 0; ++lvl) {
        expand<<<(size + 255) / 256, 256>>>(rp, col, f, size, d, lvl, g, ns);
        cudaMemcpy(&size, ns, sizeof(int), cudaMemcpyDeviceToHost);
        int* t = f; f = g; g = t;
    }
}
