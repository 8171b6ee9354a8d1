#include <cuda_runtime.h>
#include <algorithm>

// Levenshtein distance: cells on one anti-diagonal (i + j == d) are
// independent, so the host launches one kernel per diagonal.
__global__ void edit_diag(const char* a, const char* b, int n, int m, int* dp, int d) {
    int i_lo = max(1, d - m);
    int i = i_lo + blockIdx.x * blockDim.x + threadIdx.x;
    int j = d - i;
    if (i > n || j < 1) return;
    int w = m + 1;
    int cost = a[i - 1] == b[j - 1] ? 0 : 1;
    int best = dp[(i - 1) * w + (j - 1)] + cost;
    best = min(best, dp[(i - 1) * w + j] + 1);
    best = min(best, dp[i * w + (j - 1)] + 1);
    dp[i * w + j] = best;
}

__global__ void init_borders(int* dp, int n, int m) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t <= n) dp[t * (m + 1)] = t;
    if (t <= m) dp[t] = t;
}

extern "C" void solution_compute(int n, int m, const char* a, const char* b, int* result) {
    char *da, *db;
    int* ddp;
    size_t cells = (size_t)(n + 1) * (m + 1);
    cudaMalloc(&da, n);
    cudaMalloc(&db, m);
    cudaMalloc(&ddp, cells * sizeof(int));
    cudaMemcpy(da, a, n, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, m, cudaMemcpyHostToDevice);
    init_borders<<<(std::max(n, m) + 256) / 256, 256>>>(ddp, n, m);
    for (int d = 2; d <= n + m; ++d) {
        int len = std::min(d - 1, n) - std::max(1, d - m) + 1;
        if (len <= 0) continue;
        edit_diag<<<(len + 127) / 128, 128>>>(da, db, n, m, ddp, d);  // expect: PAR-08
    }
    cudaMemcpy(result, ddp + cells - 1, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(ddp);
}
