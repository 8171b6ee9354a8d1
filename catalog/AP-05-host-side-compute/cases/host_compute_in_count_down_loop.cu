// Case: host compute in count down loop.
// A 0/1-knapsack DP on the host: the inner loop's range comes from its start, not its test.
#include <cuda_runtime.h>
#include <vector>
__global__ void fill_zero(int* dp, int len) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) dp[i] = 0;
}
extern "C" void solution_compute(int n_items, const int* w, const int* v, int capacity, int* best) {
    int* d_dp;
    cudaMalloc(&d_dp, (capacity + 1) * sizeof(int));
    fill_zero<<<(capacity + 256) / 256, 256>>>(d_dp, capacity + 1);
    std::vector<int> dp(capacity + 1);
    cudaMemcpy(dp.data(), d_dp, (capacity + 1) * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n_items; ++i)  // expect: AP-05
        for (int c = capacity; c >= w[i]; --c)
            dp[c] = dp[c] > dp[c - w[i]] + v[i] ? dp[c] : dp[c - w[i]] + v[i];
    *best = dp[capacity];
    cudaFree(d_dp);
}
