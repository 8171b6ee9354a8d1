// PageRank from library pieces: the pull over in-edges is a cuSPARSE CSR SpMV (the transposed
// adjacency with unit values times the contribution vector), and the element-wise steps and the
// two double sums (dangling mass, L1 change) are Thrust transforms and transform-reductions.
#include <cuda_runtime.h>
#include <cusparse.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <cstdio>

namespace {

struct contribution {
    __host__ __device__ float operator()(float r, int d) const { return d == 0 ? 0.0f : r / (float)d; }
};

struct dangling_part {
    __host__ __device__ double operator()(const thrust::tuple<float, int>& t) const
    {
        return thrust::get<1>(t) == 0 ? (double)thrust::get<0>(t) : 0.0;
    }
};

struct update {
    float base, damping, dang_share;
    __host__ __device__ float operator()(float sum) const { return base + damping * (sum + dang_share); }
};

struct abs_change {
    __host__ __device__ double operator()(const thrust::tuple<float, float>& t) const
    {
        return fabs((double)thrust::get<0>(t) - (double)thrust::get<1>(t));
    }
};

bool ok(cusparseStatus_t s, const char* what)
{
    if (s == CUSPARSE_STATUS_SUCCESS) return true;
    fprintf(stderr, "pagerank: %s failed: %s\n", what, cusparseGetErrorString(s));
    return false;
}

}  // namespace

extern "C" void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* out_deg,
                                 float damping, float tol, int max_iters, float* rank)
{
    if (n <= 0) return;
    const int m = in_ptr[n];
    cusparseHandle_t handle = nullptr;
    cusparseSpMatDescr_t mat = nullptr;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    try {
        thrust::device_vector<int> ptr(in_ptr, in_ptr + n + 1);
        thrust::device_vector<int> idx(in_idx, in_idx + m);
        thrust::device_vector<int> deg(out_deg, out_deg + n);
        thrust::device_vector<float> ones(m > 0 ? m : 1, 1.0f);
        thrust::device_vector<float> cur(n, 1.0f / (float)n), next(n), contrib(n), sums(n, 0.0f);
        thrust::device_vector<char> work;
        const float alpha = 1.0f, beta = 0.0f;
        const float base = (1.0f - damping) / (float)n;
        size_t work_bytes = 0;

        bool good = ok(cusparseCreate(&handle), "cusparseCreate") &&
            ok(cusparseCreateCsr(&mat, n, n, m, thrust::raw_pointer_cast(ptr.data()),
                                 thrust::raw_pointer_cast(idx.data()),
                                 thrust::raw_pointer_cast(ones.data()), CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
               "cusparseCreateCsr") &&
            ok(cusparseCreateDnVec(&vx, n, thrust::raw_pointer_cast(contrib.data()), CUDA_R_32F),
               "cusparseCreateDnVec") &&
            ok(cusparseCreateDnVec(&vy, n, thrust::raw_pointer_cast(sums.data()), CUDA_R_32F),
               "cusparseCreateDnVec") &&
            ok(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx,
                                       &beta, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT,
                                       &work_bytes),
               "cusparseSpMV_bufferSize");
        if (good) work.resize(work_bytes > 0 ? work_bytes : 1);

        for (int it = 0; good && it < max_iters; it++) {
            thrust::transform(cur.begin(), cur.end(), deg.begin(), contrib.begin(), contribution());
            const double dangling = thrust::transform_reduce(
                thrust::make_zip_iterator(thrust::make_tuple(cur.begin(), deg.begin())),
                thrust::make_zip_iterator(thrust::make_tuple(cur.end(), deg.end())),
                dangling_part(), 0.0, thrust::plus<double>());
            if (m > 0) {
                good = ok(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx,
                                       &beta, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT,
                                       thrust::raw_pointer_cast(work.data())),
                          "cusparseSpMV");
                if (!good) break;
            }
            thrust::transform(sums.begin(), sums.end(), next.begin(),
                              update{base, damping, (float)(dangling / n)});
            const double diff = thrust::transform_reduce(
                thrust::make_zip_iterator(thrust::make_tuple(next.begin(), cur.begin())),
                thrust::make_zip_iterator(thrust::make_tuple(next.end(), cur.end())),
                abs_change(), 0.0, thrust::plus<double>());
            cur.swap(next);
            if (diff < tol) break;
        }
        if (good) thrust::copy(cur.begin(), cur.end(), rank);
    } catch (const std::exception& e) {
        fprintf(stderr, "pagerank: %s\n", e.what());
    }
    if (vx) cusparseDestroyDnVec(vx);
    if (vy) cusparseDestroyDnVec(vy);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
}
