// Case: graph launch in dead branch is not reported.
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(int n, float* d_a, float* d_b, cudaStream_t s) {
    cudaGraph_t g;
    cudaGraphExec_t e;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    step<<<(n + 255) / 256, 256, 0, s>>>(d_a, d_b, n);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&e, g, 0);
    if (0) cudaGraphLaunch(e, s);
    for (int k = 0; k < 10; ++k) cudaGraphLaunch(e, s);  // expect: HST-05
}
