// Case: a whole program keeps command-line flags in globals that main sets once and the
// solution tests. main runs once, so nothing survives between calls of the solution: not the
// cross-call state anti-pattern. A flag the solution itself sets and tests still is one.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

bool g_verbose = false;
int g_calls = 0;  // expect: AP-04

__global__ void scale(float* a, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= s;
}

void run(float* d_a, int n) {
    if (g_calls == 0 && g_verbose) printf("first call\n");
    g_calls++;
    scale<<<(n + 255) / 256, 256>>>(d_a, 2.0f, n);
}

void parse_args(int argc, char** argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-v")) g_verbose = true;
}

int main(int argc, char** argv) {
    parse_args(argc, argv);
    if (argc > 2) g_verbose = true;
    float* d_a;
    cudaMalloc(&d_a, 1024 * sizeof(float));
    run(d_a, 1024);
    cudaFree(d_a);
    return 0;
}
