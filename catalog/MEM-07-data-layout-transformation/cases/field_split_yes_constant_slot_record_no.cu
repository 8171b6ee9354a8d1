// Case: the host splits an array of structures into one array per field (AoS to SoA) before the
// kernel reads the fields as separate streams. The kernel's found record is filled slot by slot
// from a register array (out->hit[k].w[0] = m[0].x): constant subscripts fill one record, they
// re-lay out no array.
#include <cuda_runtime.h>
#include <vector>

struct Body { float m, q; };
struct Hit { unsigned id; unsigned w[4]; };

__global__ void find_first(const float *m, const float *q, Hit *hits, unsigned *count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || m[i] * q[i] < 1.0f)
        return;
    uint2 mix[2];
    mix[0] = make_uint2(i, i + 1);
    mix[1] = make_uint2(i + 2, i + 3);
    unsigned k = atomicAdd(count, 1u);
    hits[k].id = i;
    hits[k].w[0] = mix[0].x;  // ok: MEM-07
    hits[k].w[1] = mix[0].y;  // ok: MEM-07
    hits[k].w[2] = mix[1].x;  // ok: MEM-07
    hits[k].w[3] = mix[1].y;  // ok: MEM-07
}

extern "C" void solution_compute(const Body *bodies, Hit *hits, unsigned *count, int n)
{
    std::vector<float> hm(n), hq(n);
    for (int i = 0; i < n; ++i) {
        hm[i] = bodies[i].m;  // expect: MEM-07
        hq[i] = bodies[i].q;  // expect: MEM-07
    }
    float *dm, *dq;
    cudaMalloc(&dm, sizeof(float) * n);
    cudaMalloc(&dq, sizeof(float) * n);
    cudaMemcpy(dm, hm.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dq, hq.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
    find_first<<<(n + 255) / 256, 256>>>(dm, dq, hits, count, n);
    cudaFree(dm);
    cudaFree(dq);
}
