// Case: flag array filled from an input is not pruning (variant 1).
// ok: CMP-09
__global__ void relax(const int* active, int* next, const unsigned char* mask, const int* done,
                      float* d, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    if (*done) return;
    if (!mask[v]) return;
    if (!active[v]) return;
    next[v] = 1;
    d[v] += 1.0f;
}
__global__ void nearest(const float* p, const float* c, int* lab, int k, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float best = 3e38f;
    for (int q = 0; q < k; ++q) {
        float acc = 0.0f;
        for (int j = 0; j < dim; ++j) {
            acc += p[i * dim + j] - c[q * dim + j];
            if (acc > best) break;
            if (acc > 4.0f) break;
        }
        if (acc < best) { best = acc; lab[i] = q; }
    }
}
extern "C" void solution_compute(const int* flags, const unsigned char* mask, int n) {
    int *act, *nxt, *done; unsigned char* dm; float* dd;
    cudaMemcpy(dm, mask, n, cudaMemcpyHostToDevice);
    cudaMemcpy(act, flags, n * sizeof(int), cudaMemcpyHostToDevice);
    relax<<<1, 32>>>(act, nxt, dm, done, dd, n);
}
