// Case: computed intermediate in shared read by neighbours.
__global__ void blur2(const float* in, float* out, int n) {  // expect: CMP-01
    __shared__ float h[258];
    int i = blockIdx.x * 256 + threadIdx.x;
    h[threadIdx.x + 1] = 0.5f * (in[i] + in[i + 1]);
    __syncthreads();
    out[i] = h[threadIdx.x] + h[threadIdx.x + 2];
}
extern "C" void solution_compute(float* a, float* b, int n) {
blur2<<<1, 256>>>(a, b, n);
}
