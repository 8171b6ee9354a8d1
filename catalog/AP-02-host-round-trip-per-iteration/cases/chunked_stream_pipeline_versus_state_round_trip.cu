// Case: a chunk loop over streams copies a different slice to the device and back each
// iteration (&a[offset], offset from the loop counter): a pipeline, not a round trip. The
// second loop moves the whole state to the host and back every step.
__global__ void step(float* a, int offset, int n) {
    int i = offset + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = 0.5f * a[i] + 1.0f;
}

extern "C" void solution_compute(float* a, int n, int steps) {
    const int chunks = 4, chunk = n / chunks;
    const size_t bytes = chunk * sizeof(float);
    float* d_a;
    cudaMalloc(&d_a, n * sizeof(float));
    cudaStream_t s[chunks];
    for (int i = 0; i < chunks; ++i) cudaStreamCreate(&s[i]);
    for (int i = 0; i < chunks; ++i) {
        int offset = i * chunk;
        cudaMemcpyAsync(&d_a[offset], &a[offset], bytes, cudaMemcpyHostToDevice,
                        s[i]);
        step<<<chunk / 256, 256, 0, s[i]>>>(d_a, offset, n);
        cudaMemcpyAsync(&a[offset], &d_a[offset], bytes, cudaMemcpyDeviceToHost,  // ok: AP-02
                        s[i]);
    }
    cudaDeviceSynchronize();
    for (int t = 0; t < steps; ++t) {
        cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice);
        step<<<n / 256, 256>>>(d_a, 0, n);
        cudaMemcpy(a, d_a, n * sizeof(float), cudaMemcpyDeviceToHost);  // expect: AP-02
    }
    for (int i = 0; i < chunks; ++i) cudaStreamDestroy(s[i]);
    cudaFree(d_a);
}
