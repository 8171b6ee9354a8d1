#include <cuda_runtime.h>

#define NNZ_PER_THREAD 64

// Row sums of a CSR matrix with equal non-zeros per thread: each thread finds
// the row containing its first non-zero by binary search over row_ptr, then
// walks its fixed share, flushing partial sums at row boundaries.
__global__ void csr_row_sums_balanced(const int* row_ptr, const float* val, int rows, int nnz,
                                      float* sums) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int first = t * NNZ_PER_THREAD;
    if (first >= nnz) return;
    int last = min(first + NNZ_PER_THREAD, nnz);
    int lo = 0, hi = rows - 1;
    while (lo < hi) {  // expect: LBL-05
        int mid = (lo + hi + 1) / 2;
        if (row_ptr[mid] <= first) lo = mid;
        else hi = mid - 1;
    }
    int row = lo;
    float acc = 0.0f;
    for (int k = first; k < last; ++k) {
        while (k >= row_ptr[row + 1]) {
            atomicAdd(&sums[row], acc);
            acc = 0.0f;
            ++row;
        }
        acc += val[k];
    }
    atomicAdd(&sums[row], acc);
}

extern "C" void solution_compute(int rows, int nnz, const int* row_ptr, const float* val,
                                 float* sums) {
    int* drp;
    float *dval, *dsums;
    cudaMalloc(&drp, (rows + 1) * sizeof(int));
    cudaMalloc(&dval, nnz * sizeof(float));
    cudaMalloc(&dsums, rows * sizeof(float));
    cudaMemcpy(drp, row_ptr, (rows + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dval, val, nnz * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dsums, 0, rows * sizeof(float));
    int threads = (nnz + NNZ_PER_THREAD - 1) / NNZ_PER_THREAD;
    csr_row_sums_balanced<<<(threads + 127) / 128, 128>>>(drp, dval, rows, nnz, dsums);
    cudaMemcpy(sums, dsums, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(drp);
    cudaFree(dval);
    cudaFree(dsums);
}
