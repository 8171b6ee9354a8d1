// Bellman-Ford with early exit: the "changed" flag is copied to the host after every sweep
// (a host round trip per iteration, AP-02), so the iteration is not device-resident.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void relax(const int* src, const int* dst, const float* w, int E, float* dist, int* changed) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= E) return;
    float du = dist[src[e]];
    if (du == FLT_MAX) return;
    float nd = du + w[e];
    if (nd < dist[dst[e]]) {
        atomicMin((int*)&dist[dst[e]], __float_as_int(nd));
        *changed = 1;
    }
}

extern "C" void solution_compute(int V, int E, const int* src, const int* dst, const float* w,
                                 int source, float* dist) {
    int *d_src, *d_dst, *d_changed;
    float *d_w, *d_dist;
    cudaMalloc(&d_src, E * sizeof(int));
    cudaMalloc(&d_dst, E * sizeof(int));
    cudaMalloc(&d_w, E * sizeof(float));
    cudaMalloc(&d_dist, V * sizeof(float));
    cudaMalloc(&d_changed, sizeof(int));
    cudaMemcpy(d_src, src, E * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_dst, dst, E * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, w, E * sizeof(float), cudaMemcpyHostToDevice);
    for (int v = 0; v < V; ++v) dist[v] = (v == source) ? 0.0f : FLT_MAX;
    cudaMemcpy(d_dist, dist, V * sizeof(float), cudaMemcpyHostToDevice);

    for (int it = 0; it < V - 1; ++it) {  // ok: HST-04
        int changed = 0;
        cudaMemset(d_changed, 0, sizeof(int));
        relax<<<(E + 255) / 256, 256>>>(d_src, d_dst, d_w, E, d_dist, d_changed);
        cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost);  // expect: AP-02
        if (!changed) break;
    }
    cudaMemcpy(dist, d_dist, V * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_src); cudaFree(d_dst); cudaFree(d_w); cudaFree(d_dist); cudaFree(d_changed);
}
