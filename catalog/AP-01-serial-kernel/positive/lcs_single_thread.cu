// Longest common subsequence length: the whole DP table is filled by one GPU thread.
#include <cuda_runtime.h>

__global__ void lcs_kernel(const char* a, int n, const char* b, int m, int* prev, int* cur, int* result) {
    for (int i = 1; i <= n; ++i) {
        for (int j = 1; j <= m; ++j) {
            if (a[i - 1] == b[j - 1]) cur[j] = prev[j - 1] + 1;
            else cur[j] = max(prev[j], cur[j - 1]);
        }
        for (int j = 0; j <= m; ++j) prev[j] = cur[j];
    }
    *result = prev[m];
}

extern "C" void solution_compute(int n, const char* a, int m, const char* b, int* length) {
    char *d_a, *d_b;
    int *d_prev, *d_cur, *d_res;
    cudaMalloc(&d_a, n);
    cudaMalloc(&d_b, m);
    cudaMalloc(&d_prev, (m + 1) * sizeof(int));
    cudaMalloc(&d_cur, (m + 1) * sizeof(int));
    cudaMalloc(&d_res, sizeof(int));
    cudaMemcpy(d_a, a, n, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, m, cudaMemcpyHostToDevice);
    cudaMemset(d_prev, 0, (m + 1) * sizeof(int));
    cudaMemset(d_cur, 0, (m + 1) * sizeof(int));
    lcs_kernel<<<1, 1>>>(d_a, n, d_b, m, d_prev, d_cur, d_res);  // expect: AP-01
    cudaMemcpy(length, d_res, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_a); cudaFree(d_b); cudaFree(d_prev); cudaFree(d_cur); cudaFree(d_res);
}
