// Case: a kernel file with no launch whose blocks take whole batch items in a block-stride
// loop (b = blockIdx.x; b += gridDim.x) while the block's threads share each item's rows
// through a device helper: a block per item.
__device__ void scale_item(float* vals, const float* factor, int rows, int cols) {
    for (int r = threadIdx.x; r < rows; r += blockDim.x)
        for (int c = 0; c < cols; ++c)
            vals[r * cols + c] *= factor[r];
}

__global__ void scale_batch(float* vals, const float* factors, int items, int rows, int cols) {
    for (int b = blockIdx.x; b < items; b += gridDim.x)  // expect: PAR-10
        scale_item(vals + (size_t)b * rows * cols, factors + (size_t)b * rows, rows, cols);
}
