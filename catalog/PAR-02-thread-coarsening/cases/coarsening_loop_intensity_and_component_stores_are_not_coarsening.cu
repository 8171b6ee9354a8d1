// Case: coarsening loop intensity and component stores are not coarsening.
__global__ void four(const float* in, float* out, int n) {
    int base = blockIdx.x * blockDim.x * 4 + threadIdx.x;
#pragma unroll
    for (int k = 0; k < 4; ++k) {  // expect: PAR-02
        int i = base + k * blockDim.x;
        if (i < n) out[i] = 2.0f * in[i];
    }
}
__global__ void xyz(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[3 * i] = in[i];
    out[3 * i + 1] = in[i];
    out[3 * i + 2] = in[i];
}
extern "C" void solution_compute(const float* in, float* out, int n) {
    four<<<n / 1024, 256>>>(in, out, n);
    xyz<<<n / 256, 256>>>(in, out, n);
}
