// Case: interleaved split but not plain copy or unread transpose.
// the transpose kernel's output is read by no other kernel: it is the task, not a re-layout
__global__ void tr(const float* b, float* bt, int k, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    bt[c * k + r] = b[r * n + c];
}
extern "C" void solution_compute(float* a, float* b, int n) {
float hx[64], hy[64], hc[64];
for (int i = 0; i < 32; ++i) {
    hx[i] = a[2 * i];  // expect: MEM-07
    hy[i] = a[2 * i + 1];  // expect: MEM-07
    hc[i] = a[i];
}
tr<<<1, 32>>>(a, b, n, n);
}
