// Case: a whole program whose algorithm loop calls a host helper that launches (a checkerboard
// update: two launches over the two colours). The loop sits between two clock readings, but
// each pass reads what the last one wrote: it is the algorithm's own iteration, with the
// lattices allocated once before it. The CPU check that repeats the sweeps is verification.
// ok: AP-05
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void flip(signed char* lattice, const signed char* other, const float* r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = other[i] + other[(i + 1) % n];
    if (r[i] < 0.5f * (s + 2)) lattice[i] = -lattice[i];
}

void update(signed char* black, signed char* white, const float* r, int n) {
    flip<<<(n + 255) / 256, 256>>>(black, white, r, n);
    flip<<<(n + 255) / 256, 256>>>(white, black, r, n);
}

void update_cpu(signed char* black, signed char* white, const float* r, int n) {
    for (int i = 0; i < n; i++) {
        int s = white[i] + white[(i + 1) % n];
        if (r[i] < 0.5f * (s + 2)) black[i] = -black[i];
    }
}

int main(int argc, char** argv) {
    int n = atoi(argv[1]);
    int niters = atoi(argv[2]);
    signed char *black, *white;
    float* r;
    cudaMalloc(&black, n);  // expect: HST-01
    cudaMalloc(&white, n);  // expect: HST-01
    cudaMalloc(&r, n * sizeof(float));  // expect: HST-01
    cudaMemset(black, 1, n);
    cudaMemset(white, 1, n);
    cudaMemset(r, 0, n * sizeof(float));
    auto t0 = std::chrono::high_resolution_clock::now();
    for (int i = 0; i < niters; i++) {  // expect: HST-04
        update(black, white, r, n);
    }
    cudaDeviceSynchronize();
    auto t1 = std::chrono::high_resolution_clock::now();
    printf("%f s\n", std::chrono::duration<double>(t1 - t0).count());
    signed char* hb = (signed char*)malloc(n);
    signed char* hw = (signed char*)malloc(n);
    float* hr = (float*)calloc(n, sizeof(float));
    for (int i = 0; i < n; i++) hb[i] = hw[i] = 1;
    for (int i = 0; i < niters; i++) update_cpu(hb, hw, hr, n);
    return 0;
}
