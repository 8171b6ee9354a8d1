// Case: dereference of vector cast.
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = *reinterpret_cast<const float4*>(&x[4 * i]);  // expect: MEM-06
    float2 w = *(const float2*)(&x[2 * i]);  // expect: MEM-06
    y[i] = v.x + w.y;
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 32>>>(a, b, n);
}
