// Case: a block per row whose lanes step by a template parameter that is the block size
// because it is the thread count of a CUB block collective (cub::BlockReduce<float, BS>), the
// kernel launched with several sizes through a run-time block: a block-stride loop, not a
// thread's own chunk of outputs.
#include <cub/cub.cuh>

template <int BS>
__global__ void normalize_rows(const float* in, float* out, int cols) {
    typedef cub::BlockReduce<float, BS> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    __shared__ float total;
    const float* row = in + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BS) s += row[c];  // expect: LBL-02
    s = BlockReduce(temp).Sum(s);
    if (threadIdx.x == 0) total = s;
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += BS)  // ok: PAR-02
        out[(size_t)blockIdx.x * cols + c] = row[c] / total;
}

extern "C" void solution_compute(const float* in, float* out, int rows, int cols, int threads) {
    switch (threads) {
        case 256:
            normalize_rows<256><<<rows, threads>>>(in, out, cols);
            break;
        default:
            normalize_rows<128><<<rows, threads>>>(in, out, cols);
            break;
    }
}
