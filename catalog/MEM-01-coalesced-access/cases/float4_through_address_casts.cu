// Case: float4 loads and stores written as casts of an element's address: through a macro
// (FLOAT4(a[idx]) expands to reinterpret_cast<float4*>(&(a[idx]))[0]) and as a dereference
// (*reinterpret_cast<const float4*>(&a[4 * i])). Lane k moves floats 4k..4k+3: contiguous.
#define FLOAT4(value) (reinterpret_cast<float4*>(&(value))[0])

__global__ void add4(float* a, float* b, float* c, int n) {
    int idx = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (idx < n) {
        float4 ra = FLOAT4(a[idx]);  // expect: MEM-01
        float4 rb = FLOAT4(b[idx]);  // expect: MEM-01
        float4 rc = make_float4(ra.x + rb.x, ra.y + rb.y, ra.z + rb.z, ra.w + rb.w);
        FLOAT4(c[idx]) = rc;  // expect: MEM-01
    }
}

__global__ void copy4(const float* a, float* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = *reinterpret_cast<const float4*>(&a[4 * i]);  // expect: MEM-01
    *reinterpret_cast<float4*>(&c[4 * i]) = v;  // expect: MEM-01
}

extern "C" void solution_compute(float* a, float* b, float* c, int n) {
    add4<<<n / 1024, 256>>>(a, b, c, n);
    copy4<<<n / 1024, 256>>>(a, c);
}
