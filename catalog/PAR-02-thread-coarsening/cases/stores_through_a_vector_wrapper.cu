// Case: each thread stores a row of eight outputs, two float4 at a time, through a store
// wrapper the file defines (`st_vec(out + off, v)` writes *reinterpret_cast<float4*>(p)):
// the wrapper's own access has no index, so the call is the store.
__device__ float4 ld_vec(const float* address) {
    return *reinterpret_cast<const float4*>(address);
}

__device__ void st_vec(float* address, float4 val) {
    *reinterpret_cast<float4*>(address) = val;
}

__global__ void scale_rows(float* out, const float* in, float s, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 8; j += 4) {  // expect: PAR-02
        float4 v = ld_vec(in + row * cols + j);
        v.x *= s; v.y *= s; v.z *= s; v.w *= s;
        st_vec(out + row * cols + j, v);
    }
}

extern "C" void solution_compute(float* out, const float* in, float s, int rows) {
    scale_rows<<<(rows + 127) / 128, 128>>>(out, in, s, 8);
}
