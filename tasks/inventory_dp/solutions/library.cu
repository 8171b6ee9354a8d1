// Inventory replenishment DP with cuBLAS and Thrust, all periods on the device.
//
// Expected cost: L_t(y) = sum_d pmf_t(d) * cost_{t}(y, d) is a matrix-vector product with the
// cost matrix A[y][d] = holding*(y-d) + V_{t+1}(y-d) (or shortage*(d-y) + V_{t+1}(0)), so each
// period fills A with a thrust::transform and cuBLAS Dgemv does the sum in double.
// Ordering: V_t(x) = min(L(x), fixed - c*x + min_{x < y <= x+Q} (c*y + L(y))) for order cost c
// and limit Q, a sliding-window minimum of G(y) = c*y + L(y). With the levels cut into blocks
// of Q, every window is a suffix of one block plus a prefix of the next, so two segmented
// minimum scans (thrust::inclusive_scan_by_key, forwards and on reversed iterators) give every
// window minimum in O(1). G is formed in double, where c*y + L(y) and the final
// fixed - c*x + G are exact, so one rounding to float gives the same value as the reference's
// fixed + c*(y - x) + L(y).
#include <cublas_v2.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <cstdio>
#include <stdexcept>

namespace {

struct cost_entry {  // column-major A: entry k is (y, d) = (k % states, k / states)
    const float* next;
    int states;
    float holding, shortage;
    __device__ double operator()(long long k) const
    {
        const int y = (int)(k % states), d = (int)(k / states), left = y - d;
        const float c = left >= 0 ? holding * (float)left + next[left]
                                  : shortage * (float)(-left) + next[0];
        return (double)c;
    }
};

struct to_float {
    __device__ float operator()(double v) const { return (float)v; }
};

struct window_key {
    int width;
    __host__ __device__ int operator()(int y) const { return y / width; }
};

struct plus_order_cost {
    double c;
    __device__ double operator()(int y, float l) const { return c * (double)y + (double)l; }
};

struct order_up_to {
    const float* L;
    const double* prefix;  // min of G from the start of y's block to y
    const double* suffix;  // min of G from y to the end of y's block
    int max_inv, width;
    double fixed, c;
    __device__ float operator()(int x) const
    {
        float best = L[x];
        const int a = x + 1;
        const int b = x + width < max_inv ? x + width : max_inv;
        if (a <= b) {
            double m = suffix[a];
            if (a / width != b / width) m = m < prefix[b] ? m : prefix[b];
            const float order = (float)(fixed - c * (double)x + m);
            if (order < best) best = order;
        }
        return best;
    }
};

struct cublas_handle {
    cublasHandle_t h = nullptr;
    cublas_handle()
    {
        if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate");
    }
    ~cublas_handle() { cublasDestroy(h); }
};

}  // namespace

extern "C" void solution_compute(int horizon, int max_inv, int max_order, int max_demand,
                                 const float* demand_pmf, float order_cost, float fixed_cost,
                                 float holding_cost, float shortage_cost, float* value)
{
    if (horizon <= 0 || max_inv < 0) return;
    try {
        const int states = max_inv + 1, nd = max_demand + 1;
        const size_t cells = (size_t)states * nd;
        cublas_handle blas;
        thrust::device_vector<float> pmf_f(demand_pmf, demand_pmf + (size_t)horizon * nd);
        thrust::device_vector<double> pmf(pmf_f.begin(), pmf_f.end());
        thrust::device_vector<float> table((size_t)horizon * states);
        thrust::device_vector<float> zero(states, 0.0f), L(states);
        thrust::device_vector<double> A(cells), Ld(states), G(states), pre(states), suf(states);
        const double one = 1.0, nil = 0.0;
        thrust::counting_iterator<int> lvl(0);
        const int width = max_order > 0 ? max_order : 1;
        auto keys = thrust::make_transform_iterator(lvl, window_key{width});

        for (int t = horizon - 1; t >= 0; t--) {
            const float* next = t == horizon - 1
                                    ? thrust::raw_pointer_cast(zero.data())
                                    : thrust::raw_pointer_cast(table.data()) + (size_t)(t + 1) * states;
            thrust::transform(thrust::counting_iterator<long long>(0),
                              thrust::counting_iterator<long long>((long long)cells), A.begin(),
                              cost_entry{next, states, holding_cost, shortage_cost});
            if (cublasDgemv(blas.h, CUBLAS_OP_N, states, nd, &one, thrust::raw_pointer_cast(A.data()),
                            states, thrust::raw_pointer_cast(pmf.data()) + (size_t)t * nd, 1, &nil,
                            thrust::raw_pointer_cast(Ld.data()), 1) != CUBLAS_STATUS_SUCCESS)
                throw std::runtime_error("cublasDgemv");
            thrust::transform(Ld.begin(), Ld.end(), L.begin(), to_float());

            auto row = table.begin() + (size_t)t * states;
            if (max_order <= 0) {
                thrust::copy(L.begin(), L.end(), row);
                continue;
            }
            thrust::transform(lvl, lvl + states, L.begin(), G.begin(), plus_order_cost{order_cost});
            thrust::inclusive_scan_by_key(keys, keys + states, G.begin(), pre.begin(),
                                          thrust::equal_to<int>(), thrust::minimum<double>());
            thrust::inclusive_scan_by_key(thrust::make_reverse_iterator(keys + states),
                                          thrust::make_reverse_iterator(keys),
                                          G.rbegin(), suf.rbegin(), thrust::equal_to<int>(),
                                          thrust::minimum<double>());
            thrust::transform(lvl, lvl + states, row,
                              order_up_to{thrust::raw_pointer_cast(L.data()),
                                          thrust::raw_pointer_cast(pre.data()),
                                          thrust::raw_pointer_cast(suf.data()), max_inv, width,
                                          (double)fixed_cost, (double)order_cost});
        }
        thrust::copy(table.begin(), table.end(), value);
    } catch (const std::exception& e) {
        fprintf(stderr, "inventory_dp (cublas/thrust): %s\n", e.what());
    }
}
