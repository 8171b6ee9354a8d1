// Case: one thread per block computes a value into shared memory (a log and a product, from a
// parameter and global data), a barrier follows and every thread uses it: computed once per block
// instead of by every thread. Broadcasting a plain load, a row length (a difference of two loads)
// and a mean made from the block's own reduction compute nothing to reuse beyond the block's work.
#include <math.h>

__global__ void scale_rows(const float *w, const int *row_start, float *x, float temp, int cols)
{
    __shared__ float factor;
    __shared__ int first, len;
    int row = blockIdx.x;
    if (threadIdx.x == 0) {
        factor = logf(w[row]) * temp;  // expect: CMP-03
        first = row_start[row];  // ok: CMP-03
        len = row_start[row + 1] - row_start[row];  // ok: CMP-03
    }
    __syncthreads();
    for (int c = threadIdx.x; c < len && c < cols; c += blockDim.x)
        x[first + c] *= factor;
}

__global__ void center_rows(float *x, int cols)
{
    __shared__ float partial[256];
    __shared__ float mean;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += x[blockIdx.x * cols + c];
    partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int t = 0; t < blockDim.x; ++t)
            total += partial[t];
        mean = total / cols;  // ok: CMP-03
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        x[blockIdx.x * cols + c] -= mean;
}

extern "C" void solution_compute(const float *w, const int *row_start, float *x, float temp,
                                 int rows, int cols)
{
    scale_rows<<<rows, 256>>>(w, row_start, x, temp, cols);
    center_rows<<<rows, 256>>>(x, cols);
}
