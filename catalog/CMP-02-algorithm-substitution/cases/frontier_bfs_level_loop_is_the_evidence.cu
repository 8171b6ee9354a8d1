// Case: frontier bfs level loop is the evidence.
__global__ void expand(const int* rp, const int* ci, int* level, const int* fr, int fs,
                       int* next, int* ns, int depth) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= fs) return;
    int u = fr[t];
    for (int e = rp[u]; e < rp[u + 1]; ++e)
        if (atomicCAS(&level[ci[e]], -1, depth + 1) == -1) next[atomicAdd(ns, 1)] = ci[e];
}
__global__ void scale(float* x, int n, int k) { x[threadIdx.x] = k + 1; }
extern "C" void solution_compute(float* a, float* b, int n) {
int fs = 1, depth = 0;
while (fs > 0) {  // expect: CMP-02
    expand<<<1, 32>>>(0, 0, 0, 0, fs, 0, 0, depth);
    ++depth;
}
for (int k = 0; k < 3; k += 2) scale<<<1, 32>>>(a, n, k);
}
