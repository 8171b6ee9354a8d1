// BFS levels with Thrust, level-synchronous over frontier lists. For each level: the
// out-degrees of the frontier are scanned into offsets; a vectorised binary search
// (upper_bound) maps every edge slot to its frontier vertex, so the expansion is balanced by
// edges rather than vertices; the neighbours gathered that way are filtered to the unvisited
// ones, sorted and de-duplicated into the next frontier, and their level is scattered.
#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>
#include <cstdio>

namespace {

struct out_degree {
    const int* row_ptr;
    __host__ __device__ int operator()(int u) const { return row_ptr[u + 1] - row_ptr[u]; }
};

// Edge slot i of the level: the (i - offsets[s])-th out-edge of frontier vertex s, where s is
// one less than the upper bound of i in the offsets.
struct neighbour {
    const int* row_ptr;
    const int* col_idx;
    const int* frontier;
    const int* offsets;
    __host__ __device__ int operator()(int i, int upper) const
    {
        const int s = upper - 1;
        return col_idx[row_ptr[frontier[s]] + (i - offsets[s])];
    }
};

struct visited {
    const int* levels;
    __host__ __device__ bool operator()(int v) const { return levels[v] >= 0; }
};

}  // namespace

extern "C" void solution_compute(int n, const int* row_ptr, const int* col_idx, int source,
                                 int* levels)
{
    if (n <= 0) return;
    const int m = row_ptr[n];
    try {
        thrust::device_vector<int> lev(n, -1);
        if (source >= 0 && source < n) {
            thrust::device_vector<int> ptr(row_ptr, row_ptr + n + 1);
            thrust::device_vector<int> col(col_idx, col_idx + m);
            thrust::device_vector<int> frontier(1, source), deg, off, upper, cand;
            lev[source] = 0;
            const int* p = thrust::raw_pointer_cast(ptr.data());
            const int* c = thrust::raw_pointer_cast(col.data());
            for (int depth = 0; !frontier.empty(); depth++) {
                const size_t f = frontier.size();
                deg.resize(f);
                off.resize(f);
                thrust::transform(frontier.begin(), frontier.end(), deg.begin(), out_degree{p});
                thrust::exclusive_scan(deg.begin(), deg.end(), off.begin());
                const int total = off.back() + deg.back();
                if (total == 0) break;

                upper.resize(total);
                cand.resize(total);
                thrust::upper_bound(off.begin(), off.end(), thrust::counting_iterator<int>(0),
                                    thrust::counting_iterator<int>(total), upper.begin());
                thrust::transform(thrust::counting_iterator<int>(0),
                                  thrust::counting_iterator<int>(total), upper.begin(),
                                  cand.begin(),
                                  neighbour{p, c, thrust::raw_pointer_cast(frontier.data()),
                                            thrust::raw_pointer_cast(off.data())});
                auto end = thrust::remove_if(cand.begin(), cand.end(),
                                             visited{thrust::raw_pointer_cast(lev.data())});
                thrust::sort(cand.begin(), end);
                end = thrust::unique(cand.begin(), end);
                cand.resize(end - cand.begin());
                thrust::fill(thrust::make_permutation_iterator(lev.begin(), cand.begin()),
                             thrust::make_permutation_iterator(lev.begin(), cand.end()), depth + 1);
                frontier.swap(cand);
            }
        }
        thrust::copy(lev.begin(), lev.end(), levels);
    } catch (const std::exception& e) {
        fprintf(stderr, "bfs: %s\n", e.what());
    }
}
