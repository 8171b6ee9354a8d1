// Case: host scan of device counts is a host share.
__global__ void count(const float* x, int n, int* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = x[i] > 0 ? 2 : 1;
}
extern "C" void solution_compute(const float* x, int n, int* offsets) {
    int* d_c;
    int h[1024];
    count<<<(n + 255) / 256, 256>>>(x, n, d_c);
    cudaMemcpy(h, d_c, n * sizeof(int), cudaMemcpyDeviceToHost);
    offsets[0] = 0;
    for (int i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + h[i];  // expect: LBL-06
    for (int i = 0; i < n; ++i) offsets[i] = h[i];
}
