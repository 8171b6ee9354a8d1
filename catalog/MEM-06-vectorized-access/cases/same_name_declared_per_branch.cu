// Case: each branch declares its own `row` with a different type. The access reads the
// declaration in scope: float4 rows are 128-bit accesses, plain float rows are not, whichever
// branch declares its row first.
#include <cuda_runtime.h>

__global__ void scale_rows(const float* in, float* out, float s, int cols, bool aligned) {
    int r = blockIdx.x;
    int c = threadIdx.x;
    if (!aligned) {
        const float* row = in + (size_t)r * cols;
        for (int j = c; j < cols; j += blockDim.x)
            out[(size_t)r * cols + j] = row[j] * s;  // ok: MEM-06
    } else {
        const float4* row = reinterpret_cast<const float4*>(in + (size_t)r * cols);
        float4* dst = reinterpret_cast<float4*>(out + (size_t)r * cols);
        for (int j = c; j < cols / 4; j += blockDim.x) {
            float4 v = row[j];  // expect: MEM-06
            v.x *= s; v.y *= s; v.z *= s; v.w *= s;
            dst[j] = v;  // expect: MEM-06
        }
    }
}

__global__ void shift_rows(const float* in, float* out, float d, int cols, bool aligned) {
    int r = blockIdx.x;
    int c = threadIdx.x;
    if (aligned) {
        const float2* row = reinterpret_cast<const float2*>(in + (size_t)r * cols);
        float2* dst = reinterpret_cast<float2*>(out + (size_t)r * cols);
        for (int j = c; j < cols / 2; j += blockDim.x) {
            float2 v = row[j];  // expect: MEM-06
            dst[j] = make_float2(v.x + d, v.y + d);  // expect: MEM-06
        }
    } else {
        const float* row = in + (size_t)r * cols;
        for (int j = c; j < cols; j += blockDim.x)
            out[(size_t)r * cols + j] = row[j] + d;  // ok: MEM-06
    }
}

extern "C" void solution_compute(const float* in, float* out, int rows, int cols) {
    bool aligned = cols % 4 == 0;
    scale_rows<<<rows, 256>>>(in, out, 2.0f, cols, aligned);
    shift_rows<<<rows, 256>>>(out, out, 1.0f, cols, aligned);
    cudaDeviceSynchronize();
}
