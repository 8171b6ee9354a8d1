// Case: coarsening by a runtime chunk per thread but not a thread per row walk.
__global__ void chunks(const float* in, float* out, int n, int chunk) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int start = t * chunk;
    int end = min(start + chunk, n);
    for (int i = start; i < end; ++i) out[i] = in[i] * in[i];  // expect: PAR-02
}
__global__ void rows(const float* a, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    for (int c = 0; c < cols; ++c) out[r * cols + c] = a[r * cols + c] * 2.0f;
}
extern "C" void solution_compute(const float* in, float* out, int n) {
    chunks<<<n / 1024, 256>>>(in, out, n, 4);
    rows<<<n / 256, 256>>>(in, out, n, 8);
}
