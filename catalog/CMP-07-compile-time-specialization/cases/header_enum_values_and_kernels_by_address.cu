// Case: non-type template parameters whose values come from a header the file lacks (an
// enumerator), and kernels specialised by a constant but launched through a pointer taken
// with the template arguments (`&k<Traits, true>`).
#include "sort_order.h"  // not present: enum sort_order { SORT_ASC, SORT_DESC };

template <sort_order order>  // expect: CMP-07
__global__ void argsort_rows(const float* x, int* idx, int ncols) {
    int c = threadIdx.x;
    if (c < ncols) idx[blockIdx.x * ncols + c] = order == SORT_ASC ? c : ncols - 1 - c;
}

struct Traits { static constexpr int threads = 128; };

template <typename K, bool circular>  // expect: CMP-07
__global__ void update(float* state, int n) {
    int i = blockIdx.x * K::threads + threadIdx.x;
    if (i < n) state[i] = circular ? state[(i + 1) % n] : state[i] * 0.5f;
}

extern "C" void solution_compute(const float* x, int* idx, float* state, int rows, int ncols,
                                 int n, int asc, int circular) {
    if (asc)
        argsort_rows<SORT_ASC>
            <<<rows, 256>>>(x, idx, ncols);
    else
        argsort_rows<SORT_DESC><<<rows, 256>>>(x, idx, ncols);
    auto kernel = circular ? &update<Traits, true> : &update<Traits, false>;
    kernel<<<(n + 127) / 128, 128>>>(state, n);
}
