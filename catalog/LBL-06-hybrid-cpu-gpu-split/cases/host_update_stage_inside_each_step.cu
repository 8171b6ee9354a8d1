// Case: every step copies the particles back, advances them on the host, and copies them to the
// device for the next step's kernel: the update is a host stage of the pipeline. A second loop
// that only prints the copied-back values after the steps is no stage.
// ok: AP-05
#include <cstdio>
#include <cuda_runtime.h>

struct Particle { float x, v, f; };

__global__ void forces(Particle* q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int j = 0; j < n; ++j) acc += q[j].x - q[i].x;
    q[i].f = acc;
}

int main() {
    const int n = 4096, steps = 8;
    const float dt = 0.01f;
    size_t bytes = n * sizeof(Particle);
    char* raw = new char[bytes];
    Particle* ps = (Particle*)raw;
    for (int i = 0; i < n; ++i) ps[i] = Particle{float(i), 0.0f, 0.0f};
    Particle* d_ps;
    cudaMalloc(&d_ps, bytes);
    for (int s = 0; s < steps; ++s) {
        cudaMemcpy(d_ps, raw, bytes, cudaMemcpyHostToDevice);
        forces<<<(n + 127) / 128, 128>>>(d_ps, n);
        cudaMemcpy(raw, d_ps, bytes, cudaMemcpyDeviceToHost);
        // expect: LBL-06
        for (int i = 0; i < n; ++i) {
            ps[i].v += ps[i].f * dt;
            ps[i].x += ps[i].v * dt;
        }
    }
    // ok: LBL-06
    for (int i = 0; i < 4; ++i) printf("%f\n", ps[i].x);
    cudaFree(d_ps);
    delete[] raw;
    return 0;
}
