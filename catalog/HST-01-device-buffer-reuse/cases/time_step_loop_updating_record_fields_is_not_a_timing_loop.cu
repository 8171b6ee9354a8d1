// Case: a clocked loop of time steps is the algorithm, not a timing repetition, when its kernel
// updates fields of the records it reads in place (cell[i].m += ...): each step starts from the
// last one's result, so the buffer allocated before the loop is reused by every step.
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>

struct Cell { float u, m; };

__global__ void relax(Cell* cell, float k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) {
        float lap = cell[i - 1].u + cell[i + 1].u - 2.0f * cell[i].u;
        cell[i].m += k * lap;
    }
}

int main() {
    const int n = 1 << 16;
    const int steps = 20;
    Cell* host = new Cell[n];
    for (int i = 0; i < n; ++i) host[i] = Cell{float(i % 7), 0.0f};
    Cell* d_cell;
    cudaMalloc(&d_cell, n * sizeof(Cell));  // expect: HST-01
    cudaMemcpy(d_cell, host, n * sizeof(Cell), cudaMemcpyHostToDevice);
    for (int s = 0; s < steps; ++s) {
        auto t0 = std::chrono::steady_clock::now();
        relax<<<(n + 255) / 256, 256>>>(d_cell, 0.1f, n);
        cudaDeviceSynchronize();
        auto t1 = std::chrono::steady_clock::now();
        printf("%d %f\n", s, std::chrono::duration<double>(t1 - t0).count());
    }
    cudaMemcpy(host, d_cell, n * sizeof(Cell), cudaMemcpyDeviceToHost);
    cudaFree(d_cell);
    delete[] host;
    return 0;
}
