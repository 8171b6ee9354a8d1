// Case: the same port tagged without the task's reference: nothing says it is narrower.
// ok: MEM-10
__global__ void sq(const float* x, int n, float* part) {
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i] * x[i];
    part[threadIdx.x] = s;
}
extern "C" void solution_compute(const float* x, int n, float* part) {
    sq<<<1, 256>>>(x, n, part);
}
