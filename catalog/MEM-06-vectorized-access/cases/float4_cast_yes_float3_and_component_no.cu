// Case: float4 cast yes float3 and component no.
__global__ void k(const float* x, const float3* p, const float4* q, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = reinterpret_cast<const float4*>(x)[i];  // expect: MEM-06
    float3 w = p[i];
    y[i] = v.x + w.x + q[i].y;
}
extern "C" void solution_compute(float* a, float* b, int n) {
k<<<1, 32>>>(a, 0, 0, b, n);
}
