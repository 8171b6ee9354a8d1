"""Tricky decisions of the HST detectors (host-side coordination), each on a small inline source.

Every test asserts the exact set of (ID, line) pairs reported by the HST and AP-02 detectors.
"""

from __future__ import annotations

import textwrap

import pytest

from tests._detector_classes import family

from strategylens.model import build_model

antipatterns, hst = family("AP"), family("HST")

DETECTORS = [cls() for cls in hst.DETECTORS] + [antipatterns.HostRoundTripPerIteration()]


def report(src: str, ids: set[str] | None = None) -> set[tuple[str, int]]:
    """(ID, line) for every finding of the HST detectors (and AP-02) on ``src``."""
    model = build_model(textwrap.dedent(src), "<test>", index=False)
    out = set()
    for det in DETECTORS:
        if ids is None or det.id in ids:
            out |= {(det.id, f.line_start) for f in det.detect(model)}
    return out


KERNEL = """\
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
"""


def test_buffer_reuse_is_within_one_call_not_static_and_not_per_iteration():
    src = KERNEL + """\
extern "C" void solution_compute(int n, int steps, float* out) {
    static float* cached = nullptr;
    float *a, *b;
    cudaMalloc(&a, n * sizeof(float));
    if (!cached) cudaMalloc(&cached, n * sizeof(float));
    for (int t = 0; t < steps; ++t) {
        cudaMalloc(&b, n * sizeof(float));
        step<<<(n + 255) / 256, 256>>>(a, b, n);
        step<<<(n + 255) / 256, 256>>>(b, cached, n);
        cudaFree(b);
    }
}
"""
    # line 9: a, allocated once and used in the loop; line 10: static storage (AP-04);
    # line 12: allocation per iteration
    assert report(src, {"HST-01"}) == {("HST-01", 9)}


def test_pool_allocation_in_loop_is_buffer_reuse():
    src = KERNEL + """\
extern "C" void solution_compute(int n, int steps, cudaStream_t s) {
    for (int t = 0; t < steps; ++t) {
        float* tmp;
        cudaMallocAsync(&tmp, n * sizeof(float), s);
        step<<<1, 256, 0, s>>>(tmp, tmp, n);
        cudaFreeAsync(tmp, s);
    }
}
"""
    assert report(src, {"HST-01"}) == {("HST-01", 9)}


def test_pinned_needs_an_allocation_on_a_reachable_path():
    src = """\
#include <cuda_runtime.h>
#include <cstdio>
static void unused(float** p, size_t b) { cudaMallocHost(p, b); }
extern "C" void solution_compute(float* h, size_t bytes) {
    float* p = nullptr;
    printf("cudaHostAlloc would help\\n");
    cudaHostRegister(h, bytes, cudaHostRegisterDefault);
    cudaFreeHost(p);
}
"""
    assert report(src, {"HST-02"}) == {("HST-02", 7)}


def test_overlap_needs_two_streams_and_reports_streams_as_intensity():
    two = KERNEL + """\
extern "C" void solution_compute(int n, const float* x, float* y) {
    float *d_x, *d_y;
    cudaStream_t s[2];
    for (int k = 0; k < 2; ++k) cudaStreamCreate(&s[k]);
    int half = n / 2;
    for (int k = 0; k < 2; ++k) {
        cudaMemcpyAsync(d_x + k * half, x + k * half, half * 4, cudaMemcpyHostToDevice, s[k]);
        step<<<(half + 255) / 256, 256, 0, s[k]>>>(d_x + k * half, d_y + k * half, half);
        cudaMemcpyAsync(y + k * half, d_y + k * half, half * 4, cudaMemcpyDeviceToHost, s[k]);
    }
}
"""
    model = build_model(two, "<test>", index=False)
    findings = hst.TransferComputeOverlap().detect(model)
    assert {(f.line_start, f.intensity) for f in findings} == {(12, 2.0), (14, 2.0)}
    one = KERNEL + """\
extern "C" void solution_compute(int n, const float* x, float* d_x, float* d_y) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMemcpyAsync(d_x, x, n * 4, cudaMemcpyHostToDevice, s);
    step<<<(n + 255) / 256, 256, 0, s>>>(d_x, d_y, n);
}
"""
    assert report(one, {"HST-03"}) == set()


FLAG_KERNEL = KERNEL + """\
__global__ void sweep(float* u, int n, int* changed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && u[i] > 0.0f) { u[i] *= 0.5f; *changed = 1; }
}
"""


def test_flag_copied_every_iteration_is_ap02_not_hst04():
    src = FLAG_KERNEL + """\
extern "C" void solution_compute(int n, float* d_u, int* d_changed) {
    int changed = 1;
    while (changed) {
        cudaMemset(d_changed, 0, sizeof(int));
        sweep<<<(n + 255) / 256, 256>>>(d_u, n, d_changed);
        cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost);
    }
}
"""
    assert report(src, {"HST-04", "HST-05", "AP-02"}) == {("AP-02", 15)}


def test_flag_checked_every_k_iterations_is_hst04_and_hst05_not_ap02():
    src = FLAG_KERNEL + """\
extern "C" void solution_compute(int n, int max_iter, float* d_u, int* d_changed) {
    for (int it = 0; it < max_iter; ++it) {
        sweep<<<(n + 255) / 256, 256>>>(d_u, n, d_changed);
        if (it % 16 == 15) {
            int changed;
            cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost);
            if (!changed) break;
            cudaMemset(d_changed, 0, sizeof(int));
        }
    }
}
"""
    assert report(src, {"HST-04", "HST-05", "AP-02"}) == {("HST-04", 11), ("HST-05", 13)}


def test_batch_and_geometric_loops_are_not_device_resident_iteration():
    src = KERNEL + """\
extern "C" void solution_compute(int n, int batches, float* d_a, float* d_b) {
    for (int b = 0; b < batches; ++b)
        step<<<(n + 255) / 256, 256>>>(d_a + b * n, d_b + b * n, n);
    int blocks = n;
    while (blocks > 1) {
        blocks = (blocks + 255) / 256;
        step<<<blocks, 256>>>(d_b, d_b, blocks);
    }
    for (int t = 0; t < 100; ++t)
        step<<<(n + 255) / 256, 256>>>(d_a, d_b, n);
}
"""
    # only the last loop carries one state through iterations
    assert report(src, {"HST-04"}) == {("HST-04", 14)}


def test_managed_flag_read_after_sync_is_a_round_trip():
    src = FLAG_KERNEL + """\
extern "C" void solution_compute(int n, float* d_u) {
    int* flag;
    cudaMallocManaged(&flag, sizeof(int));
    do {
        *flag = 0;
        sweep<<<(n + 255) / 256, 256>>>(d_u, n, flag);
        cudaDeviceSynchronize();
    } while (*flag);
}
"""
    assert report(src, {"HST-04", "AP-02"}) == {("AP-02", 16)}


def test_graph_launch_in_dead_branch_is_not_reported():
    src = KERNEL + """\
extern "C" void solution_compute(int n, float* d_a, float* d_b, cudaStream_t s) {
    cudaGraph_t g;
    cudaGraphExec_t e;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    step<<<(n + 255) / 256, 256, 0, s>>>(d_a, d_b, n);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&e, g, 0);
    if (0) cudaGraphLaunch(e, s);
    for (int k = 0; k < 10; ++k) cudaGraphLaunch(e, s);
}
"""
    assert report(src, {"HST-05"}) == {("HST-05", 14)}


CUBLAS_DECLS = """\
#include <cuda_runtime.h>
typedef struct cublasContext* cublasHandle_t;
extern "C" int cublasCreate(cublasHandle_t* h);
extern "C" int cublasSetStream(cublasHandle_t h, cudaStream_t s);
extern "C" int cublasSdot(cublasHandle_t h, int n, const float* x, int incx, const float* y,
                          int incy, float* result);
extern "C" int cusparseSpMV_bufferSize(int h);
"""


def test_library_setup_alone_is_not_vendor_math():
    src = CUBLAS_DECLS + """\
extern "C" void solution_compute(int n, const float* d_x, float* out) {
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetStream(h, 0);
    cusparseSpMV_bufferSize(0);
    cublasSdot(h, n, d_x, 1, d_x, 1, out);
}
"""
    assert report(src, {"HST-06"}) == {("HST-06", 13)}


def test_cublas_norm_in_loop_condition_is_a_round_trip():
    src = CUBLAS_DECLS + KERNEL.replace("#include <cuda_runtime.h>\n", "") + """\
extern "C" void solution_compute(int n, float* d_x, float* d_r, float tol) {
    cublasHandle_t h;
    cublasCreate(&h);
    float rr = 1.0f;
    while (rr > tol) {
        step<<<(n + 255) / 256, 256>>>(d_x, d_r, n);
        cublasSdot(h, n, d_r, 1, d_r, 1, &rr);
    }
}
"""
    assert report(src, {"HST-04", "HST-06", "AP-02"}) == {("HST-06", 18), ("AP-02", 18)}


THRUST_SRC = """\
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/fill.h>
#include <thrust/execution_policy.h>
#include <cub/cub.cuh>
__global__ void block_sum(const float* x, float* out) {
    typedef cub::BlockReduce<float, 128> R;
    __shared__ typename R::TempStorage t;
    float s = R(t).Sum(x[threadIdx.x]);
    if (threadIdx.x == 0) *out = s;
}
extern "C" void solution_compute(int n, float* d_x, float* h_x, unsigned* d_k, unsigned* d_k2) {
    thrust::device_ptr<float> p(d_x);
    thrust::fill(p, p + n, 0.0f);
    thrust::host_vector<float> h(h_x, h_x + n);
    thrust::sort(h.begin(), h.end());
    thrust::sort(thrust::host, h_x, h_x + n);
    thrust::sort(thrust::device, p, p + n);
    block_sum<<<1, 128>>>(d_x, d_x);
    void* tmp = nullptr;
    size_t bytes = 0;
    cub::DeviceRadixSort::SortKeys(tmp, bytes, d_k, d_k2, n);
}
"""


def test_thrust_on_host_data_and_block_level_cub_are_not_primitives_library():
    assert report(THRUST_SRC, {"HST-07"}) == {("HST-07", 20), ("HST-07", 24)}


@pytest.mark.parametrize("cls", hst.DETECTORS)
def test_every_hst_detector_is_silent_on_a_file_without_host_code(cls):
    src = "__global__ void k(float* a) { a[threadIdx.x] = 0.0f; }\n"
    assert list(cls().detect(build_model(src, "<test>", index=False))) == []


def test_device_vector_and_cast_allocations_are_followed_into_the_loop():
    src = """\
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
__global__ void step(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] *= 0.5f; }
extern "C" void solution_compute(int n, int iters) {
    thrust::device_vector<float> d(n, 1.0f), unused(n);
    float* w;
    cudaMalloc(reinterpret_cast<void**>(&w), n * sizeof(float));
    for (int t = 0; t < iters; ++t) {
        step<<<1, 256>>>(thrust::raw_pointer_cast(d.data()), n);
        step<<<1, 256>>>(w, n);
    }
}
"""
    assert report(src, {"HST-01"}) == {("HST-01", 5), ("HST-01", 7)}


def test_per_request_upload_and_result_read_are_not_a_round_trip():
    src = KERNEL + """\
extern "C" void solution_compute(int n, int reqs, const float* init, float* d_a, float* d_b, float* res) {
    for (int r = 0; r < reqs; ++r) {
        cudaMemcpy(d_a, init + (size_t)r * n, n * sizeof(float), cudaMemcpyHostToDevice);
        step<<<(n + 255) / 256, 256>>>(d_a, d_b, n);
        cudaMemcpy(res + r, d_a, sizeof(float), cudaMemcpyDeviceToHost);
    }
}
"""
    assert report(src, {"HST-04", "AP-02"}) == set()


def test_thrust_count_in_the_loop_condition_is_a_round_trip():
    src = """\
#include <cuda_runtime.h>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
__global__ void sweep(int* active, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && active[i]) active[i] = (i % 3 == 0);
}
extern "C" void solution_compute(int n, int* d_active) {
    thrust::device_ptr<int> p(d_active);
    while (thrust::count(p, p + n, 1) > 0)
        sweep<<<(n + 255) / 256, 256>>>(d_active, n);
}
"""
    assert report(src, {"HST-04", "HST-07", "AP-02"}) == {("HST-07", 10), ("AP-02", 10)}


def test_state_through_host_each_iteration_is_a_round_trip():
    # D2H into `host`, then H2D from `host` next iteration: a round trip although the buffers
    # on the device differ; a chunk loop copying distinct slices back is not.
    src = """\
#include <cuda_runtime.h>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
extern "C" void solution_compute(float* host, int n, int steps, float* d_in, float* d_out) {
    for (int s = 0; s < steps; ++s) {
        cudaMemcpy(d_in, host, n * sizeof(float), cudaMemcpyHostToDevice);
        step<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
        cudaMemcpy(host, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    }
    int chunk = n / 4;
    for (int k = 0; k < 4; ++k) {
        cudaMemcpy(d_in + k * chunk, host + k * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice);
        step<<<(chunk + 255) / 256, 256>>>(d_in + k * chunk, d_out + k * chunk, chunk);
        cudaMemcpy(host + k * chunk, d_out + k * chunk, chunk * sizeof(float), cudaMemcpyDeviceToHost);
    }
}
"""
    assert report(src, {"AP-02", "HST-04"}) == {("AP-02", 10)}


def test_host_reduction_feeding_the_next_launch_is_a_round_trip():
    src = """\
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/reduce.h>
__global__ void scale(float* x, float inv, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= inv;
}
extern "C" void solution_compute(float* d_x, int n, int iters) {
    thrust::device_ptr<float> p(d_x);
    for (int it = 0; it < iters; ++it) {
        float total = thrust::reduce(p, p + n);
        float inv = 1.0f / total;
        scale<<<(n + 255) / 256, 256>>>(d_x, inv, n);
    }
}
"""
    assert report(src, {"AP-02", "HST-04"}) == {("AP-02", 11)}


def test_buffer_reused_by_a_helper_loop_through_aliases():
    src = """\
#include <cuda_runtime.h>
#include <utility>
__global__ void step(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 0.5f * a[i];
}
static float* run(float* d_a, float* d_b, int n, int steps) {
    float* src = d_a;
    float* dst = d_b;
    for (int s = 0; s < steps; ++s) {
        step<<<(n + 255) / 256, 256>>>(src, dst, n);
        std::swap(src, dst);
    }
    return src;
}
extern "C" void solution_compute(const float* in, float* out, int n, int steps) {
    float *d_a, *d_b;
    cudaMalloc(&d_a, n * sizeof(float));
    cudaMalloc(&d_b, n * sizeof(float));
    cudaMemcpy(d_a, in, n * sizeof(float), cudaMemcpyHostToDevice);
    float* r = run(d_a, d_b, n, steps);
    cudaMemcpy(out, r, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_a);
    cudaFree(d_b);
}
"""
    assert report(src, {"HST-01"}) == {("HST-01", 18), ("HST-01", 19)}
