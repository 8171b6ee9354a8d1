// Case: a block per segment whose lanes step by a template parameter that is the block size
// because it is the thread count of a CUB block collective (cub::BlockReduce<float, BS>), the
// kernel launched with several sizes through a run-time block. The lanes stride over their
// segment: a block per item (LBL-02), not several outputs per thread (PAR-02).
#include <cub/cub.cuh>

template <int BS>
__global__ void normalize_segments(const int* seg_ptr, const float* vals, float* out) {
    typedef cub::BlockReduce<float, BS> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    __shared__ float total;
    const int seg = blockIdx.x;
    float s = 0.0f;
    for (int i = seg_ptr[seg] + threadIdx.x; i < seg_ptr[seg + 1]; i += BS) s += vals[i];  // expect: LBL-02
    s = BlockReduce(temp).Sum(s);
    if (threadIdx.x == 0) total = s;
    __syncthreads();
    for (int i = seg_ptr[seg] + threadIdx.x; i < seg_ptr[seg + 1]; i += BS)  // expect: LBL-02 // ok: PAR-02
        out[i] = vals[i] / total;
}

extern "C" void solution_compute(const int* seg_ptr, const float* vals, float* out, int segs,
                                 int threads) {
    switch (threads) {
        case 256:
            normalize_segments<256><<<segs, threads>>>(seg_ptr, vals, out);
            break;
        default:
            normalize_segments<128><<<segs, threads>>>(seg_ptr, vals, out);
            break;
    }
}
