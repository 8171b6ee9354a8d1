"""Focused tests of the CMP detectors: each builds a model from a small source and checks the
exact lines (and intensity where the taxonomy defines one) reported."""

import textwrap

import pytest

from tests._detector_classes import family

from strategylens.model import build_model

cmp = family("CMP")


def run(det_cls, src: str):
    return list(det_cls().detect(build_model(textwrap.dedent(src), "t.cu", index=False)))


def lines(det_cls, src: str) -> set[int]:
    return {f.line_start for f in run(det_cls, src)}


def entry(body: str, params: str = "float* a, float* b, int n") -> str:
    return (f"extern \"C\" void solution_compute({params}) {{\n"
            + textwrap.indent(textwrap.dedent(body), "    ") + "\n}\n")


# --- CMP-01 ---------------------------------------------------------------------------------

SOFTMAX = """\
__global__ void softmax(const float* x, float* y, int cols) {
    __shared__ float red[256];
    const float* row = x + blockIdx.x * cols;
    float m = -1e30f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, row[j]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    float mx = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) sum += expf(row[j] - mx);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int j = threadIdx.x; j < cols; j += blockDim.x) y[blockIdx.x * cols + j] = expf(row[j] - mx) * inv;
}
""" + entry("softmax<<<n, 256>>>(a, b, n);")


def test_cmp01_block_softmax_fuses_three_stages():
    found = run(cmp.KernelFusion, SOFTMAX)
    assert {(f.line_start, f.intensity) for f in found} == {(1, 3.0)}


def test_cmp01_residual_in_producing_kernel_is_not_fusion():
    src = """\
    __global__ void jacobi(const float* u, float* un, float* diff, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i <= 0 || i >= n - 1) return;
        float v = 0.5f * (u[i - 1] + u[i + 1]);
        un[i] = v;
        atomicAdd(diff, (v - u[i]) * (v - u[i]));
    }
    """ + entry("jacobi<<<1, 32>>>(a, b, b, n);")
    assert lines(cmp.KernelFusion, src) == set()


def test_cmp01_two_level_reduction_and_thread_private_passes_are_not_fusion():
    src = """\
    __global__ void dot(const float* a, const float* b, float* out, int n) {
        __shared__ float part[32];
        float v = 0.0f;
        for (int i = threadIdx.x; i < n; i += blockDim.x) v += a[i] * b[i];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
        __syncthreads();
        if (threadIdx.x < 32) {
            float w = part[threadIdx.x];
            for (int o = 16; o > 0; o >>= 1) w += __shfl_down_sync(0xffffffffu, w, o);
            if (threadIdx.x == 0) *out = w;
        }
    }
    __global__ void rownorm(const float* x, float* y, int cols) {
        int r = blockIdx.x * blockDim.x + threadIdx.x;
        float s = 0.0f;
        for (int j = 0; j < cols; ++j) s += x[r * cols + j] * x[r * cols + j];
        for (int j = 0; j < cols; ++j) y[r * cols + j] = x[r * cols + j] / s;
    }
    """ + entry("dot<<<1, 256>>>(a, a, b, n);\nrownorm<<<1, 32>>>(a, b, n);")
    assert lines(cmp.KernelFusion, src) == set()


def test_cmp01_computed_intermediate_in_shared_read_by_neighbours():
    src = """\
    __global__ void blur2(const float* in, float* out, int n) {
        __shared__ float h[258];
        int i = blockIdx.x * 256 + threadIdx.x;
        h[threadIdx.x + 1] = 0.5f * (in[i] + in[i + 1]);
        __syncthreads();
        out[i] = h[threadIdx.x] + h[threadIdx.x + 2];
    }
    """ + entry("blur2<<<1, 256>>>(a, b, n);")
    found = run(cmp.KernelFusion, src)
    assert {(f.line_start, f.intensity) for f in found} == {(1, 2.0)}


# --- CMP-02 ---------------------------------------------------------------------------------

def test_cmp02_jacobi_swap_yes_explicit_time_step_no():
    src = """\
    #include <utility>
    __global__ void jac(const float* u, float* un, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i > 0 && i < n - 1) un[i] = 0.5f * (u[i - 1] + u[i + 1]);
    }
    __global__ void heat(const float* u, float* un, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i > 0 && i < n - 1) un[i] = u[i] + 0.1f * (u[i - 1] - 2.0f * u[i] + u[i + 1]);
    }
    """ + entry("""\
    float *p = a, *q = b, *r = a, *s = b;
    for (int it = 0; it < n; ++it) {
        jac<<<1, 32>>>(p, q, n);
        std::swap(p, q);
        heat<<<1, 32>>>(r, s, n);
        std::swap(r, s);
    }""")
    assert lines(cmp.AlgorithmSubstitution, src) == {14}


def test_cmp02_bitonic_partner_yes_shuffle_xor_no():
    src = """\
    __global__ void step(float* d, int j, int k) {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        unsigned p = i ^ j;
        if (p > i && ((d[i] > d[p]) == ((i & k) == 0))) { float t = d[i]; d[i] = d[p]; d[p] = t; }
    }
    __global__ void wsum(const float* x, float* y) {
        float v = x[threadIdx.x];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        int lane = threadIdx.x ^ 1;
        y[threadIdx.x] = v + x[lane];
    }
    """ + entry("step<<<1, 32>>>(a, 1, 2);\nwsum<<<1, 32>>>(a, b);")
    assert lines(cmp.AlgorithmSubstitution, src) == {3}


def test_cmp02_level_synchronous_bfs_and_pointer_jumping():
    src = """\
    __global__ void bfs(const int* rp, const int* adj, int* level, int n, int cur) {
        int v = blockIdx.x * blockDim.x + threadIdx.x;
        if (v < n && level[v] == cur)
            for (int e = rp[v]; e < rp[v + 1]; ++e)
                if (level[adj[e]] < 0) level[adj[e]] = cur + 1;
    }
    __global__ void jump(int* p, int n) {
        int v = blockIdx.x * blockDim.x + threadIdx.x;
        if (v < n) p[v] = p[p[v]];
    }
    """ + entry("bfs<<<1, 32>>>(0, 0, 0, n, 0);\njump<<<1, 32>>>(0, n);")
    assert lines(cmp.AlgorithmSubstitution, src) == {3, 9}


# --- CMP-03 ---------------------------------------------------------------------------------

def test_cmp03_host_table_copied_yes_plain_copy_no():
    src = """\
    #include <math.h>
    __global__ void k(const float* t, float* y, int n) { y[threadIdx.x] = t[threadIdx.x % n]; }
    """ + entry("""\
    float tab[64], stage[64];
    for (int j = 0; j < 64; ++j) {
        tab[j] = cosf(0.1f * j);
        stage[j] = a[j];
    }
    float* d;
    cudaMemcpy(d, tab, sizeof(tab), cudaMemcpyHostToDevice);
    cudaMemcpy(d, stage, sizeof(stage), cudaMemcpyHostToDevice);
    k<<<1, 64>>>(d, b, n);""")
    assert lines(cmp.Precomputation, src) == {6}


# --- CMP-04 ---------------------------------------------------------------------------------

def test_cmp04_pragmas_and_manual_unroll():
    src = """\
    __global__ void k(const float* x, float* y, int n) {
        float s = 0.0f;
    #pragma unroll // a trailing comment
        for (int i = 0; i < 8; ++i) s += x[i];
    #pragma unroll 1
        for (int i = 0; i < n; ++i) s += x[i];
        #pragma unroll 4
        for (int i = 0; i < n; ++i) s += x[i];
        for (int i = 0; i + 3 < n; i += 4) s += x[i] + x[i + 1] + x[i + 2] + x[i + 3];
        y[0] = s;
    }
    __global__ void dead(float* y) {
    #pragma unroll
        for (int i = 0; i < 4; ++i) y[i] = 0.0f;
    }
    """ + entry("k<<<1, 1>>>(a, b, n);")
    found = run(cmp.LoopUnrolling, src)
    assert {(f.line_start, f.intensity) for f in found} == {(3, 8.0), (7, 4.0), (9, 4.0)}


# --- CMP-05 ---------------------------------------------------------------------------------

def test_cmp05_device_intrinsics_only():
    src = """\
    #include <math.h>
    __global__ void k(const float* x, float* y) {
        y[threadIdx.x] = __expf(x[threadIdx.x]) + expf(x[threadIdx.x]);
    }
    """ + entry("k<<<1, 32>>>(a, b);\nb[0] = fmaf(a[0], a[1], a[2]);")
    assert lines(cmp.FastMathIntrinsics, src) == {3}


# --- CMP-06 ---------------------------------------------------------------------------------

def test_cmp06_selects_and_votes_but_not_guards():
    src = """\
    __global__ void k(const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float v = (i < n) ? x[i] : 0.0f;
        float r = v * (v > 0.0f);
        float z = 0.0f;
        for (int t = 0; t < 8; ++t) {
            bool go = z < 4.0f;
            if (!__any_sync(0xffffffffu, go)) break;
            z = go ? z * z + v : z;
            float sgn = (t & 1) ? -1.0f : 1.0f;
            r += sgn;
        }
        if (v < 0.0f) r = 0.0f;
        if (i < n) y[i] = r + z;
    }
    """ + entry("k<<<1, 32>>>(a, b, n);")
    assert lines(cmp.DivergenceReduction, src) == {4, 8, 9}


# --- CMP-07 ---------------------------------------------------------------------------------

def test_cmp07_counts_distinct_non_type_instantiations():
    src = """\
    template <int B>
    __global__ void red(const float* x, float* y) { y[threadIdx.x % B] = x[threadIdx.x]; }
    template <typename T>
    __global__ void cp(const T* x, T* y) { y[threadIdx.x] = x[threadIdx.x]; }
    template <int N>
    __global__ void never(float* y) { y[threadIdx.x] = N; }
    """ + entry("""\
    if (n > 1024) red<256><<<1, 256>>>(a, b);
    else red<64><<<1, 64>>>(a, b);
    cp<float><<<1, 32>>>(a, b);""")
    found = run(cmp.CompileTimeSpecialization, src)
    assert {(f.line_start, f.intensity) for f in found} == {(1, 2.0)}


# --- CMP-08 ---------------------------------------------------------------------------------

def test_cmp08_bitset_words_yes_index_shifts_and_flag_atomics_no():
    src = """\
    __global__ void k(const int* v, unsigned* bits, int* flag, int* out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        int warp = threadIdx.x >> 5;
        if (bits[v[i] >> 5] & (1u << (v[i] & 31))) out[i] = warp;
        atomicOr(flag, 1);
        out[i << 1] = __popc(bits[i]);
    }
    """ + entry("k<<<1, 32>>>(0, 0, 0, 0, n);")
    assert lines(cmp.BitLevelParallelism, src) == {4, 6}


# --- CMP-09 ---------------------------------------------------------------------------------

PRUNE_KERNELS = """\
__global__ void relax(const int* active, int* next, const unsigned char* mask, const int* done,
                      float* d, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    if (*done) return;
    if (!mask[v]) return;
    if (!active[v]) return;
    next[v] = 1;
    d[v] += 1.0f;
}
__global__ void nearest(const float* p, const float* c, int* lab, int k, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float best = 3e38f;
    for (int q = 0; q < k; ++q) {
        float acc = 0.0f;
        for (int j = 0; j < dim; ++j) {
            acc += p[i * dim + j] - c[q * dim + j];
            if (acc > best) break;
            if (acc > 4.0f) break;
        }
        if (acc < best) { best = acc; lab[i] = q; }
    }
}
"""


def test_cmp09_solution_flags_and_bounds_but_not_inputs_or_stopping_flags():
    src = PRUNE_KERNELS + entry("""\
    int *act, *nxt, *done; unsigned char* dm; float* dd;
    cudaMemcpy(dm, mask, n, cudaMemcpyHostToDevice);
    cudaMemset(act, 0, n * sizeof(int));
    relax<<<1, 32>>>(act, nxt, dm, done, dd, n);
    nearest<<<1, 32>>>(0, 0, 0, n, n);""", params="const unsigned char* mask, int n")
    assert lines(cmp.WorkPruning, src) == {7, 18}


@pytest.mark.parametrize("fill, expected", [
    ("cudaMemcpy(act, flags, n * sizeof(int), cudaMemcpyHostToDevice);", set()),
    ("cudaMemset(act, 0, n * sizeof(int));", {7}),
])
def test_cmp09_flag_array_filled_from_an_input_is_not_pruning(fill, expected):
    src = PRUNE_KERNELS + entry(f"""\
    int *act, *nxt, *done; unsigned char* dm; float* dd;
    cudaMemcpy(dm, mask, n, cudaMemcpyHostToDevice);
    {fill}
    relax<<<1, 32>>>(act, nxt, dm, done, dd, n);""",
                                params="const int* flags, const unsigned char* mask, int n")
    assert lines(cmp.WorkPruning, src) == expected


def test_cmp06_and_cmp08_split_ballots_between_votes_and_masks():
    src = """\
    __global__ void k(const float* x, int* cnt, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float v = i < n ? x[i] : 0.0f;
        if (__ballot_sync(0xffffffffu, v > 1.0f)) cnt[1] += 1;
        unsigned m = __ballot_sync(0xffffffffu, v > 2.0f);
        cnt[i] += (v > 0.0f);
        if ((threadIdx.x & 31) == 0) atomicAdd(cnt, __popc(m));
    }
    """ + entry("k<<<1, 32>>>(a, 0, n);")
    assert lines(cmp.DivergenceReduction, src) == {4, 6}
    assert lines(cmp.BitLevelParallelism, src) == {5, 7}


def test_cmp02_radix_digit_pass_needs_a_host_loop_over_shifts():
    src = """\
    __global__ void digits(const unsigned* keys, unsigned* cnt, int n, int shift) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) atomicAdd(&cnt[(keys[i] >> shift) & 255u], 1u);
    }
    __global__ void lanes(const unsigned* keys, unsigned* out, int n, int s) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = (keys[i] >> s) & 255u;
    }
    """ + entry("""\
    for (int shift = 0; shift < 32; shift += 8) digits<<<1, 32>>>(0, 0, n, shift);
    lanes<<<1, 32>>>(0, 0, n, 8);""")
    assert lines(cmp.AlgorithmSubstitution, src) == {3}


def test_cmp02_frontier_bfs_level_loop_is_the_evidence():
    src = """\
    __global__ void expand(const int* rp, const int* ci, int* level, const int* fr, int fs,
                           int* next, int* ns, int depth) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        if (t >= fs) return;
        int u = fr[t];
        for (int e = rp[u]; e < rp[u + 1]; ++e)
            if (atomicCAS(&level[ci[e]], -1, depth + 1) == -1) next[atomicAdd(ns, 1)] = ci[e];
    }
    __global__ void scale(float* x, int n, int k) { x[threadIdx.x] = k + 1; }
    """ + entry("""\
    int fs = 1, depth = 0;
    while (fs > 0) {
        expand<<<1, 32>>>(0, 0, 0, 0, fs, 0, 0, depth);
        ++depth;
    }
    for (int k = 0; k < 3; k += 2) scale<<<1, 32>>>(a, n, k);""")
    assert lines(cmp.AlgorithmSubstitution, src) == {12}


def test_cmp01_partials_summed_by_one_thread_are_a_reduction_not_a_stage():
    src = """\
    __global__ void rowdot(const float* a, const float* x, float* y, int cols) {
        __shared__ float part[128];
        float s = 0.0f;
        for (int j = threadIdx.x; j < cols; j += blockDim.x) s += a[blockIdx.x * cols + j] * x[j];
        part[threadIdx.x] = s * 2.0f;
        __syncthreads();
        if (threadIdx.x == 0) {
            float t = 0.0f;
            for (int k = 0; k < 128; ++k) t += part[k];
            y[blockIdx.x] = t;
        }
    }
    """ + entry("rowdot<<<n, 128>>>(a, a, b, n);")
    assert lines(cmp.KernelFusion, src) == set()


def test_cmp01_time_steps_in_shared_memory_but_not_a_scan():
    src = """\
    #define B 256
    __global__ void steps(const float* in, float* out) {
        __shared__ float s[2][B + 2];
        int l = threadIdx.x + 1, g = blockIdx.x * B + threadIdx.x;
        s[0][l] = in[g];
        __syncthreads();
        for (int t = 0; t < 4; ++t) {
            s[(t + 1) & 1][l] = 0.25f * (s[t & 1][l - 1] + 2.0f * s[t & 1][l] + s[t & 1][l + 1]);
            __syncthreads();
        }
        out[g] = s[0][l];
    }
    __global__ void scan(const float* in, float* out) {
        __shared__ float t[2][B];
        int p = 0;
        t[0][threadIdx.x] = in[threadIdx.x];
        __syncthreads();
        for (int off = 1; off < B; off <<= 1) {
            t[1 - p][threadIdx.x] = t[p][threadIdx.x] + (threadIdx.x >= off ? t[p][threadIdx.x - off] : 0.0f);
            p = 1 - p;
            __syncthreads();
        }
        out[threadIdx.x] = t[p][threadIdx.x];
    }
    """ + entry("steps<<<1, B>>>(a, b);\nscan<<<1, B>>>(a, b);")
    found = run(cmp.KernelFusion, src)
    assert {(f.line_start, f.intensity) for f in found} == {(2, 4.0)}


def test_cmp02_host_passes_level_plus_one():
    src = """\
__global__ void expand(const int* rp, const int* ci, const int* f, int fs, int* lev, int next) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= fs) return;
    int u = f[t];
    for (int e = rp[u]; e < rp[u + 1]; ++e)
        if (lev[ci[e]] < 0) lev[ci[e]] = next;
}
""" + entry("""\
int fs = 1, level = 0;
while (fs > 0) {
    expand<<<(fs + 255) / 256, 256>>>(rp, ci, f, fs, lev, level + 1);
    cudaMemcpy(&fs, d_fs, sizeof(int), cudaMemcpyDeviceToHost);
    ++level;
}""", "const int* rp, const int* ci, const int* f, int* lev, int* d_fs")
    assert lines(cmp.AlgorithmSubstitution, src) == {10}
