// Case: a loop that launches the same kernel over consecutive chunks of the grid, passing the
// chunk's first element as an integer (i * threads * blocks), covers the data once: it is no
// iteration over device-resident state. A time loop that passes the time (t * dt, a float) to
// the kernel is one.
#include <cuda_runtime.h>

__global__ void scale(float* out, const float* in, int n, int first) {
    int i = first + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

__global__ void advance(float* u, int n, float time) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) u[i] += 0.01f * __sinf(time + u[i]);
}

extern "C" void solution_compute(float* d_out, const float* d_in, float* d_u, int n) {
    const int threads = 256, max_blocks = 65535;
    int blocks = (n + threads - 1) / threads;
    int passes = (blocks - 1) / max_blocks + 1;
    blocks = blocks < max_blocks ? blocks : max_blocks;
    // ok: HST-04
    for (int c = 0; c < passes; ++c)
        scale<<<blocks, threads>>>(d_out, d_in, n, c * threads * blocks);

    const float dt = 0.1f;
    // expect: HST-04
    for (int t = 0; t < 100; ++t)
        advance<<<(n + threads - 1) / threads, threads>>>(d_u, n, t * dt);
    cudaDeviceSynchronize();
}
