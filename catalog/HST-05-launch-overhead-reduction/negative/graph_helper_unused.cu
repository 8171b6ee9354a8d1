// Explicit time stepping of a 1-D advection equation with one launch per step. A graph-based
// variant was written but the entry point never calls it.
#include <cuda_runtime.h>
#include <utility>

__global__ void upwind(const float* c, float* c_new, int n, float courant) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int im = (i == 0) ? n - 1 : i - 1;
    c_new[i] = c[i] - courant * (c[i] - c[im]);
}

static void run_with_graph(float* d_c, float* d_n, int n, int steps, float courant) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    upwind<<<(n + 255) / 256, 256, 0, s>>>(d_c, d_n, n, courant);
    upwind<<<(n + 255) / 256, 256, 0, s>>>(d_n, d_c, n, courant);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&ge, g, 0);
    for (int k = 0; k < steps / 2; ++k) cudaGraphLaunch(ge, s);  // ok: HST-05
    cudaStreamSynchronize(s);
}

extern "C" void solution_compute(int n, int steps, float courant, const float* c0, float* c) {
    float *d_c, *d_n;
    cudaMalloc(&d_c, n * sizeof(float));
    cudaMalloc(&d_n, n * sizeof(float));
    cudaMemcpy(d_c, c0, n * sizeof(float), cudaMemcpyHostToDevice);
    for (int k = 0; k < steps; ++k) {
        upwind<<<(n + 255) / 256, 256>>>(d_c, d_n, n, courant);
        std::swap(d_c, d_n);
    }
    cudaMemcpy(c, d_c, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_c);
    cudaFree(d_n);
}
