// N-body leapfrog: one time step is three short kernels; the step is captured once into a
// CUDA graph and replayed, so each step costs one launch call.
#include <cuda_runtime.h>

__global__ void kick(const float4* pos, float4* vel, int n, float dt, float eps2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float ax = 0.f, ay = 0.f, az = 0.f;
    for (int j = 0; j < n; ++j) {
        float4 pj = pos[j];
        float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
        float r2 = dx * dx + dy * dy + dz * dz + eps2;
        float inv = rsqrtf(r2);
        float s = pj.w * inv * inv * inv;
        ax += dx * s; ay += dy * s; az += dz * s;
    }
    vel[i].x += 0.5f * dt * ax; vel[i].y += 0.5f * dt * ay; vel[i].z += 0.5f * dt * az;
}

__global__ void drift(float4* pos, const float4* vel, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    pos[i].x += dt * vel[i].x; pos[i].y += dt * vel[i].y; pos[i].z += dt * vel[i].z;
}

extern "C" void solution_compute(int n, int steps, float dt, const float* xyzm, const float* v3, float* out_xyz) {
    float4 *d_pos, *d_vel;
    cudaMalloc(&d_pos, n * sizeof(float4));
    cudaMalloc(&d_vel, n * sizeof(float4));
    cudaMemcpy(d_pos, xyzm, n * sizeof(float4), cudaMemcpyHostToDevice);
    cudaMemcpy2D(d_vel, sizeof(float4), v3, 3 * sizeof(float), 3 * sizeof(float), n, cudaMemcpyHostToDevice);

    cudaStream_t s;
    cudaStreamCreate(&s);
    int t = 128, b = (n + t - 1) / t;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    kick<<<b, t, 0, s>>>(d_pos, d_vel, n, dt, 1e-4f);
    drift<<<b, t, 0, s>>>(d_pos, d_vel, n, dt);
    kick<<<b, t, 0, s>>>(d_pos, d_vel, n, dt, 1e-4f);
    cudaStreamEndCapture(s, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    for (int step = 0; step < steps; ++step)
        cudaGraphLaunch(exec, s);  // expect: HST-05
    cudaStreamSynchronize(s);

    cudaMemcpy2D(out_xyz, 3 * sizeof(float), d_pos, sizeof(float4), 3 * sizeof(float), n, cudaMemcpyDeviceToHost);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    cudaFree(d_pos);
    cudaFree(d_vel);
}
