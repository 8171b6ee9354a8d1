// Case: the task's reference (norm_reference.c) accumulates in double, the port only in float.
// reference: norm_reference.c
__global__ void sq(const float* x, int n, float* part) {
    float s = 0.0f;  // expect: MEM-10
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i] * x[i];
    part[threadIdx.x] = s;
}
extern "C" void solution_compute(const float* x, int n, float* part) {
    sq<<<1, 256>>>(x, n, part);
}
