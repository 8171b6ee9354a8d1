// Case: one allocation laid out as separate arrays through a struct of pointers at different
// offsets ({ (float2*)buf, (float2*)buf + n }): a structure-of-arrays layout. A struct holding
// two different buffers, or one pointer and a count, carves nothing.
#include <cuda_runtime.h>

struct Fields { float2* where; float2* speed; };
struct Span { float* data; int count; };

__global__ void drift(float2* where, const float2* speed, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        where[i].x += speed[i].x * dt;
        where[i].y += speed[i].y * dt;
    }
}

extern "C" void solution_compute(float* d_buf, float2* d_a, float2* d_b, float* d_s, int n) {
    Fields f = { (float2*)d_buf, ((float2*)d_buf) + n };  // expect: MEM-07
    drift<<<(n + 255) / 256, 256>>>(f.where, f.speed, n, 0.1f);
    Fields g = { d_a, d_b };  // ok: MEM-07
    drift<<<(n + 255) / 256, 256>>>(g.where, g.speed, n, 0.1f);
    Span s = { d_s, n };  // ok: MEM-07
    drift<<<(s.count + 255) / 256, 256>>>((float2*)s.data, g.speed, s.count / 2, 0.1f);
}
