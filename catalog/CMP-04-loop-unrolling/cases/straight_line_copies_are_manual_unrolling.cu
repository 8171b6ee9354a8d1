// Case: loops unrolled by hand into straight-line code: a warp scan written out step by step
// (offsets 1, 2, 4, 8, 16) and eight numbered accumulators updated by copies of one statement.
// Component-wise code (x, y, z, w), repeated barriers and three copies of one statement are
// not counted.
// ok: PAR-02
#include <cuda_runtime.h>

__device__ int warp_scan(volatile int* s, int idx, int val) {
    s[idx] = val;
    s[idx] += s[idx - 1];  // expect: CMP-04
    s[idx] += s[idx - 2];
    s[idx] += s[idx - 4];
    s[idx] += s[idx - 8];
    s[idx] += s[idx - 16];
    return s[idx];
}

__global__ void potential(const float4* atoms, int natoms, float spacing, float* out, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i + 3 >= n) return;
    float x1 = i * spacing;
    float x2 = x1 + spacing;  // ok: CMP-04 (three copies of one statement are too few)
    float x3 = x2 + spacing;
    float x4 = x3 + spacing;
    float e1 = 0.0f, e2 = 0.0f, e3 = 0.0f, e4 = 0.0f;
    for (int a = 0; a < natoms; a++) {
        float4 p = atoms[a];
        e1 += p.w * rsqrtf((x1 - p.x) * (x1 - p.x) + p.y);  // expect: CMP-04
        e2 += p.w * rsqrtf((x2 - p.x) * (x2 - p.x) + p.y);
        e3 += p.w * rsqrtf((x3 - p.x) * (x3 - p.x) + p.y);
        e4 += p.w * rsqrtf((x4 - p.x) * (x4 - p.x) + p.y);
    }
    float4 r;
    r.x = e1;
    r.y = e2;
    r.z = e3;
    r.w = e4;
    __syncthreads();
    __syncthreads();
    __syncthreads();
    __syncthreads();
    reinterpret_cast<float4*>(out)[i / 4] = r;
}

__global__ void scan_kernel(const int* in, int* out, int n) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = 0;
    int v = warp_scan(s, t + 32, t < n ? in[t] : 0);
    if (t < n) out[t] = v;
}

void solution_compute(const float4* d_atoms, int natoms, float* d_out, int n, const int* d_in,
                      int* d_scan) {
    potential<<<(n / 4 + 127) / 128, 128>>>(d_atoms, natoms, 0.5f, d_out, n);
    scan_kernel<<<1, 32>>>(d_in, d_scan, 32);
}
