// spmv_power: one thread per row computes y = A x and adds its y^2 to the norm; the norm comes
// back to the host every iteration, which then launches the scaling kernel.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e = (call);                                                      \
        if (e != cudaSuccess) {                                                      \
            fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e),     \
                    __LINE__);                                                       \
            goto cleanup;                                                            \
        }                                                                            \
    } while (0)

__global__ void spmv(int n, const int* row_ptr, const int* col_idx, const float* vals,
                     const float* x, float* y, double* sumsq)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++)
        acc += vals[k] * x[col_idx[k]];
    y[i] = acc;
    atomicAdd(sumsq, (double)acc * (double)acc);
}

__global__ void scale(int n, const float* y, float* x, float norm)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = y[i] / norm;
}

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, const float* vals,
                                 const float* x0, int iters, float* x_out)
{
    int *d_row_ptr = NULL, *d_col_idx = NULL;
    float *d_vals = NULL, *d_x = NULL, *d_y = NULL;
    double* d_sumsq = NULL;
    double sumsq = 0.0;
    int nnz, threads = 256, blocks;

    if (n <= 0) return;
    nnz = row_ptr[n];
    blocks = (n + threads - 1) / threads;

    CHECK(cudaMalloc((void**)&d_row_ptr, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_col_idx, nnz * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_vals, nnz * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_x, n * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_y, n * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_sumsq, sizeof(double)));

    CHECK(cudaMemcpy(d_row_ptr, row_ptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col_idx, col_idx, nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_vals, vals, nnz * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_x, x0, n * sizeof(float), cudaMemcpyHostToDevice));

    for (int it = 0; it < iters; it++) {
        CHECK(cudaMemset(d_sumsq, 0, sizeof(double)));
        spmv<<<blocks, threads>>>(n, d_row_ptr, d_col_idx, d_vals, d_x, d_y, d_sumsq);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&sumsq, d_sumsq, sizeof(double), cudaMemcpyDeviceToHost));
        if (sumsq > 0.0) {
            float norm = (float)sqrt(sumsq);
            scale<<<blocks, threads>>>(n, d_y, d_x, norm);
            CHECK(cudaGetLastError());
        } else {
            CHECK(cudaMemcpy(d_x, d_y, n * sizeof(float), cudaMemcpyDeviceToDevice));
        }
    }

    CHECK(cudaMemcpy(x_out, d_x, n * sizeof(float), cudaMemcpyDeviceToHost));

cleanup:
    cudaFree(d_row_ptr);
    cudaFree(d_col_idx);
    cudaFree(d_vals);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_sumsq);
}
