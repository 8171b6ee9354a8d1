// PageRank port that follows the reference loop by loop: a kernel for the contributions
// (dangling mass summed with atomics), the dangling share worked out on the host, a kernel for
// the pull over in-edges (L1 change summed with atomics), and the change copied back each
// iteration to decide whether to stop.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e = (call);                                                        \
        if (e != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, \
                    __LINE__);                                                         \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)

__global__ void contributions(int n, const int* out_deg, const float* rank, float* contrib,
                              double* dangling)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < n) {
        if (out_deg[u] == 0) {
            contrib[u] = 0.0f;
            atomicAdd(dangling, (double)rank[u]);
        } else {
            contrib[u] = rank[u] / (float)out_deg[u];
        }
    }
}

__global__ void pull(int n, const int* in_ptr, const int* in_idx, const float* contrib,
                     const float* old_rank, float* rank, float base, float damping,
                     float dang_share, double* diff)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        float sum = 0.0f;
        for (int k = in_ptr[v]; k < in_ptr[v + 1]; k++) sum += contrib[in_idx[k]];
        rank[v] = base + damping * (sum + dang_share);
        atomicAdd(diff, fabs((double)rank[v] - (double)old_rank[v]));
    }
}

extern "C" void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                                 float damping, float tol, int max_iters, float* rank)
{
    int *d_in_ptr = NULL, *d_in_idx = NULL, *d_out_deg = NULL;
    float *d_rank = NULL, *d_old = NULL, *d_contrib = NULL;
    double *d_dangling = NULL, *d_diff = NULL;
    float* h_rank = NULL;
    int m, threads = 256, blocks;
    double dangling, diff;
    float base, dang_share;

    if (n <= 0) return;
    m = in_ptr[n];
    blocks = (n + threads - 1) / threads;

    h_rank = (float*)malloc((size_t)n * sizeof(float));
    if (!h_rank) return;
    for (int v = 0; v < n; v++) h_rank[v] = 1.0f / (float)n;

    CHECK(cudaMalloc((void**)&d_in_ptr, (size_t)(n + 1) * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_in_idx, (size_t)m * sizeof(int) + 4));
    CHECK(cudaMalloc((void**)&d_out_deg, (size_t)n * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_rank, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_old, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_contrib, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_dangling, sizeof(double)));
    CHECK(cudaMalloc((void**)&d_diff, sizeof(double)));

    CHECK(cudaMemcpy(d_in_ptr, in_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_in_idx, in_idx, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_out_deg, out_deg, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_rank, h_rank, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));

    for (int it = 0; it < max_iters; it++) {
        CHECK(cudaMemcpy(d_old, d_rank, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice));

        CHECK(cudaMemset(d_dangling, 0, sizeof(double)));
        contributions<<<blocks, threads>>>(n, d_out_deg, d_rank, d_contrib, d_dangling);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(&dangling, d_dangling, sizeof(double), cudaMemcpyDeviceToHost));

        base = (1.0f - damping) / (float)n;
        dang_share = (float)(dangling / n);

        CHECK(cudaMemset(d_diff, 0, sizeof(double)));
        pull<<<blocks, threads>>>(n, d_in_ptr, d_in_idx, d_contrib, d_old, d_rank, base, damping,
                                  dang_share, d_diff);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(&diff, d_diff, sizeof(double), cudaMemcpyDeviceToHost));
        if (diff < tol) break;
    }

    CHECK(cudaMemcpy(rank, d_rank, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_in_ptr);
    cudaFree(d_in_idx);
    cudaFree(d_out_deg);
    cudaFree(d_rank);
    cudaFree(d_old);
    cudaFree(d_contrib);
    cudaFree(d_dangling);
    cudaFree(d_diff);
    free(h_rank);
}
