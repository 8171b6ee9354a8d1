// Case: a thread per row that walks the rest of its row of a triangular matrix
// (for (j = i + 1; j < n; ++j), a bound the same for every thread) is a thread-per-row walk,
// not a chunk of the thread's own; a chunk whose end is set by the thread still counts.
__global__ void upper_products(const float* v, float* m, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int j = i + 1; j < n; ++j)  // ok: PAR-02
        m[i * n + j] = v[i] * v[j];
}
__global__ void chunk_squares(const float* in, float* out, int n, int chunk) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int start = t * chunk;
    const int end = min(start + chunk, n);
    for (int k = start; k < end; ++k)  // expect: PAR-02
        out[k] = in[k] * in[k];
}
extern "C" void solution_compute(const float* v, float* m, float* out, int n) {
    upper_products<<<(n + 255) / 256, 256>>>(v, m, n);
    chunk_squares<<<(n / 4 + 255) / 256, 256>>>(v, out, n, 4);
}
