// 2-D heat diffusion, explicit Euler, ping-pong buffers allocated once per call.
#include <cuda_runtime.h>
#include <utility>

__global__ void heat_step(const float* __restrict__ cur, float* __restrict__ next,
                          int nx, int ny, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        next[i] = cur[i];
        return;
    }
    float lap = cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx] - 4.0f * cur[i];
    next[i] = cur[i] + alpha * lap;
}

extern "C" void solution_compute(int nx, int ny, int steps, float alpha,
                                 const float* init, float* out) {
    size_t bytes = (size_t)nx * ny * sizeof(float);
    float *d_a = nullptr, *d_b = nullptr;
    cudaMalloc(&d_a, bytes);  // expect: HST-01
    cudaMalloc(&d_b, bytes);  // expect: HST-01
    cudaMemcpy(d_a, init, bytes, cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((nx + 15) / 16, (ny + 15) / 16);
    for (int t = 0; t < steps; ++t) {
        heat_step<<<grid, block>>>(d_a, d_b, nx, ny, alpha);
        std::swap(d_a, d_b);
    }
    cudaMemcpy(out, d_a, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_a);
    cudaFree(d_b);
}
