// 0/1 knapsack with Thrust. The DP row lives in a device_vector. For an item of weight w and
// value v the next row is the previous row for capacities below w (a thrust::copy) and, from w
// on, the element-wise max of the previous row and the previous row shifted by w plus v
// (a binary thrust::transform over two offset ranges of the same vector).
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/transform.h>
#include <cstdio>
#include <exception>

namespace {

struct take_or_keep {
    int v;
    __host__ __device__ int operator()(int keep, int shifted) const
    {
        const int take = shifted + v;
        return take > keep ? take : keep;
    }
};

}  // namespace

extern "C" void solution_compute(int n_items, const int* weights, const int* values, int capacity,
                                 int* best)
{
    if (capacity < 0) return;
    try {
        thrust::device_vector<int> prev(capacity + 1, 0), next(capacity + 1);
        for (int i = 0; i < n_items; i++) {
            const int w = weights[i], v = values[i];
            if (w > capacity) continue;  // the row does not change
            thrust::copy(prev.begin(), prev.begin() + w, next.begin());
            thrust::transform(prev.begin() + w, prev.end(), prev.begin(), next.begin() + w,
                              take_or_keep{v});
            prev.swap(next);
        }
        thrust::copy(prev.begin(), prev.end(), best);
    } catch (const std::exception& e) {
        fprintf(stderr, "knapsack (thrust): %s\n", e.what());
    }
}
