"""Focused tests of the MEM detectors: each builds a model from a small source and checks the
exact lines (and, where it matters, intensity and confidence) reported."""

import textwrap

import pytest

from tests._detector_classes import family

from strategylens.model import build_model

mem = family("MEM")

ENTRY = "extern \"C\" void solution_compute(float* a, float* b, int n) {{\n{body}\n}}\n"


def run(det_cls, src: str, index: bool = False):
    model = build_model(textwrap.dedent(src), "t.cu", index=index)
    return list(det_cls().detect(model))


def lines(det_cls, src: str, index: bool = False) -> set[int]:
    return {f.line_start for f in run(det_cls, src, index)}


def entry(body: str) -> str:
    return ENTRY.format(body=textwrap.indent(textwrap.dedent(body), "    "))


# --- MEM-01 ---------------------------------------------------------------------------------

CSR_SCALAR = """\
__global__ void spmv(const int* rp, const int* ci, const float* v, const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float s = 0.0f;
    for (int k = rp[row]; k < rp[row + 1]; ++k) s += v[k] * x[ci[k]];
    y[row] = s;
}
""" + entry("spmv<<<1, 32>>>(0, 0, a, a, b, n);")

FLAT_2D = """\
__global__ void blur(const float* img, float* out, int h, int w) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= h * w) return;
    int r = idx / w, c = idx % w;
    float s = 0.0f;
    for (int dr = -1; dr <= 1; ++dr) {
        int rr = min(max(r + dr, 0), h - 1);
        s += img[rr * w + c];
    }
    out[idx] = s;
}
""" + entry("blur<<<1, 32>>>(a, b, n, n);")


def test_mem01_per_thread_csr_walk_is_not_coalesced():
    # the row walk v[k], ci[k] starts at a loaded rp[row] and steps by one per thread
    assert lines(mem.CoalescedAccess, CSR_SCALAR) == set()


def test_mem01_flattened_index_modulo_is_stride_one():
    found = run(mem.CoalescedAccess, FLAT_2D)
    assert {f.line_start for f in found} == {8, 10}
    assert {f.intensity for f in found} == {1.0}


def test_mem01_confidence_is_lower_without_libclang():
    src = """\
    __global__ void k(const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = 2.0f * x[i];
    }
    """ + entry("k<<<1, 32>>>(a, b, n);")
    with_index = run(mem.CoalescedAccess, src, index=True)
    without = run(mem.CoalescedAccess, src, index=False)
    assert {f.line_start for f in with_index} == {f.line_start for f in without} == {3}
    assert without[0].confidence < with_index[0].confidence


# --- MEM-02 ---------------------------------------------------------------------------------

def test_mem02_tiles_reported_with_bytes_and_reduction_workspace_is_not():
    src = """\
    #define T 16
    __global__ void mm(const float* A, const float* B, float* C, int n) {
        __shared__ float As[T][T];
        __shared__ float Bs[T][T];
        int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
        float acc = 0.0f;
        for (int t = 0; t < n / T; ++t) {
            As[threadIdx.y][threadIdx.x] = A[r * n + t * T + threadIdx.x];
            Bs[threadIdx.y][threadIdx.x] = B[(t * T + threadIdx.y) * n + c];
            __syncthreads();
            for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
            __syncthreads();
        }
        C[r * n + c] = acc;
    }
    __global__ void red(const float* in, float* out, int n) {
        __shared__ float s[256];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        s[threadIdx.x] = i < n ? in[i] : 0.0f;
        __syncthreads();
        for (int k = 128; k > 0; k >>= 1) {
            if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
            __syncthreads();
        }
        if (threadIdx.x == 0) out[blockIdx.x] = s[0];
    }
    """ + entry("mm<<<1, 256>>>(a, a, b, n);\nred<<<1, 256>>>(a, b, n);")
    found = run(mem.SharedMemoryTiling, src)
    assert {(f.line_start, f.intensity) for f in found} == {(3, 2048), (4, 2048)}


def test_mem02_warp_partials_written_by_lane_zero_are_not_a_tile():
    src = """\
    __global__ void dot(const float* a, const float* b, float* out, int n) {
        __shared__ float part[32];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float v = i < n ? a[i] * b[i] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
        __syncthreads();
        if (threadIdx.x < 32) {
            float w = part[threadIdx.x];
            if (threadIdx.x == 0) atomicAdd(out, w);
        }
    }
    """ + entry("dot<<<1, 256>>>(a, a, b, n);")
    assert lines(mem.SharedMemoryTiling, src) == set()


# --- MEM-03 ---------------------------------------------------------------------------------

def test_mem03_accumulator_block_yes_stack_and_window_no():
    src = """\
    __global__ void k(const float* a, float* out, int n) {
        float acc[4] = {};
        int stack[16];
        int sp = 0;
        for (int t = 0; t < n; ++t) {
            float w = a[t];
            for (int j = 0; j < 4; ++j) acc[j] += w * a[t + j];
            stack[sp++] = t;
            if (sp == 16) sp = 0;
        }
        for (int j = 0; j < 4; ++j) out[j] = acc[j] + stack[j];
    }
    """ + entry("k<<<1, 32>>>(a, b, n);")
    found = run(mem.RegisterBlocking, src)
    assert {(f.line_start, f.intensity) for f in found} == {(2, 4.0)}


# --- MEM-04 ---------------------------------------------------------------------------------

def test_mem04_needs_both_const_and_restrict_and_device_code():
    src = """\
    __global__ void k(const float* __restrict__ x,
                      float* __restrict__ y,
                      const float* z, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = x[i] + __ldg(&z[i]);
    }
    static void host(const float* __restrict__ p, int n) { (void)p; (void)n; }
    """ + entry("k<<<1, 32>>>(a, b, a, n);\nhost(a, n);")
    assert lines(mem.ReadOnlyDataPath, src) == {1, 5}


# --- MEM-05 ---------------------------------------------------------------------------------

def test_mem05_constant_used_only_by_unlaunched_kernel_is_not_reported():
    src = """\
    __constant__ float used[8];
    __constant__ float unused[8];
    __global__ void live(float* y) { y[threadIdx.x] = used[threadIdx.x & 7]; }
    __global__ void dead(float* y) { y[threadIdx.x] = unused[threadIdx.x & 7]; }
    """ + entry("live<<<1, 32>>>(b);")
    found = run(mem.ConstantMemory, src)
    assert {(f.line_start, f.intensity) for f in found} == {(1, 32)}


# --- MEM-06 ---------------------------------------------------------------------------------

def test_mem06_float4_cast_yes_float3_and_component_no():
    src = """\
    __global__ void k(const float* x, const float3* p, const float4* q, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float4 v = reinterpret_cast<const float4*>(x)[i];
        float3 w = p[i];
        y[i] = v.x + w.x + q[i].y;
    }
    """ + entry("k<<<1, 32>>>(a, 0, 0, b, n);")
    found = run(mem.VectorizedAccess, src)
    assert {(f.line_start, f.intensity) for f in found} == {(3, 128.0)}


# --- MEM-07 ---------------------------------------------------------------------------------

def test_mem07_interleaved_split_but_not_plain_copy_or_unread_transpose():
    src = """\
    __global__ void tr(const float* b, float* bt, int k, int n) {
        int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
        bt[c * k + r] = b[r * n + c];
    }
    """ + entry("""\
    float hx[64], hy[64], hc[64];
    for (int i = 0; i < 32; ++i) {
        hx[i] = a[2 * i];
        hy[i] = a[2 * i + 1];
        hc[i] = a[i];
    }
    tr<<<1, 32>>>(a, b, n, n);""")
    # the transpose kernel's output is read by no other kernel: it is the task, not a re-layout
    assert lines(mem.DataLayoutTransformation, src) == {8, 9}


# --- MEM-08 ---------------------------------------------------------------------------------

def test_mem08_padding_yes_halo_and_filter_no():
    src = """\
    #define B 16
    __global__ void k(const float* in, float* out) {
        __shared__ float pad[B][B + 1];
        __shared__ float halo[B + 2][B + 2];
        __shared__ float f[3][3];
        __shared__ float lit[32][33];
        pad[threadIdx.y][threadIdx.x] = in[threadIdx.x];
        halo[threadIdx.y][threadIdx.x] = in[threadIdx.x];
        f[0][0] = 1.0f; lit[threadIdx.x][0] = 0.0f;
        __syncthreads();
        out[threadIdx.x] = pad[threadIdx.x][threadIdx.y] + halo[1][1] + f[0][0] + lit[0][0];
    }
    """ + entry("k<<<1, dim3(16, 16)>>>(a, b);")
    assert lines(mem.BankConflictAvoidance, src) == {3, 6}


def test_mem08_row_only_table_is_not_bank_padding():
    # A DP table [3][N + 1] read along its rows: the +1 is the DP boundary, not bank padding.
    src = """\
    #define N 1024
    __global__ void k(const int* in, int* out) {
        __shared__ int diag[3][N + 1];
        __shared__ float t[32][32 + 1];
        for (int d = 0; d < 3; ++d) diag[d % 3][threadIdx.x] = in[threadIdx.x];
        t[threadIdx.x][threadIdx.y] = 1.0f;
        __syncthreads();
        out[threadIdx.x] = diag[1][threadIdx.x] + (int)t[threadIdx.y][threadIdx.x];
    }
    """ + entry("k<<<1, dim3(32, 32)>>>(a, b);")
    assert lines(mem.BankConflictAvoidance, src) == {4}


# --- MEM-09 ---------------------------------------------------------------------------------

def test_mem09_stage_index_must_vary():
    src = """\
    __global__ void k(const float* in, float* out, int tiles) {
        __shared__ float buf[2][128];
        __shared__ float parts[2][128];
        int cur = 0;
        buf[0][threadIdx.x] = in[threadIdx.x];
        __syncthreads();
        float acc = 0.0f;
        for (int t = 0; t < tiles; ++t) {
            int nxt = cur ^ 1;
            if (t + 1 < tiles) buf[nxt][threadIdx.x] = in[(t + 1) * 128 + threadIdx.x];
            parts[0][threadIdx.x] = in[t];
            parts[1][threadIdx.x] = in[t + 1];
            for (int j = 0; j < 128; ++j) acc += buf[cur][j] + parts[1][j];
            __syncthreads();
            cur = nxt;
        }
        out[threadIdx.x] = acc;
    }
    """ + entry("k<<<1, 128>>>(a, b, n);")
    found = run(mem.AsyncCopyPipelining, src)
    assert {(f.line_start, f.intensity) for f in found} == {(2, 2.0)}


# --- MEM-10 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("stmt, expected", [
    ("hf[0] = (float)d[0];", {3}),
    ("hf[0] = static_cast<float>(d[0]);", {3}),
    ("hf[0] = (float)n;", set()),
    ("dd[0] = (double)hf[0];", set()),
])
def test_mem10_narrowing_casts_of_elements_only(stmt, expected):
    src = (
        "extern \"C\" void solution_compute(const double* d, double* dd, int n) {\n"
        "    float hf[4];\n"
        f"    {stmt}\n"
        "}\n"
    )
    assert lines(mem.ReducedPrecision, src) == expected


def test_mem06_dereference_of_vector_cast():
    src = """\
    __global__ void k(const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float4 v = *reinterpret_cast<const float4*>(&x[4 * i]);
        float2 w = *(const float2*)(&x[2 * i]);
        y[i] = v.x + w.y;
    }
    """ + entry("k<<<1, 32>>>(a, b, n);")
    found = run(mem.VectorizedAccess, src)
    assert {(f.line_start, f.intensity) for f in found} == {(3, 128.0), (4, 64.0)}


def test_mem07_soa_packed_into_float4_on_the_host():
    src = """\
    #include <vector>
    extern "C" void solution_compute(const float* x, const float* y, const float* m, int n) {
        std::vector<float4> pos(n);
        for (int i = 0; i < n; ++i) pos[i] = make_float4(x[i], y[i], 0.0f, m[i]);
        for (int i = 0; i < n; ++i) pos[i] = make_float4(x[i], 0.0f, 0.0f, 0.0f);
    }
    """
    assert lines(mem.DataLayoutTransformation, src) == {4}


def test_mem10_implicit_narrowing_of_double_elements_but_not_of_indices():
    src = """\
    #include <vector>
    __global__ void k(const double* x, const long long* rp, float* y) {
        float v = x[threadIdx.x];
        int start = rp[threadIdx.x];
        y[threadIdx.x] = v + start;
    }
    extern "C" void solution_compute(const double* x, int n) {
        std::vector<float> h(n);
        for (int i = 0; i < n; ++i) h[i] = x[i];
        k<<<1, 32>>>(0, 0, 0);
    }
    """
    assert lines(mem.ReducedPrecision, src) == {3, 9}


def test_mem07_transpose_that_is_the_output_and_decimation_are_not_relayouts():
    src = """\
    __global__ void tr(const float* b, float* bt, int n) {
        int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
        bt[c * n + r] = b[r * n + c];
    }
    __global__ void half(const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        y[i] = x[2 * i];
    }
    """ + entry("tr<<<1, 32>>>(a, b, n);\nhalf<<<1, 32>>>(a, b, n);")
    assert lines(mem.DataLayoutTransformation, src) == set()


def test_mem10_vector_constructed_from_a_double_range():
    src = """\
    #include <vector>
    extern "C" void solution_compute(const double* x, const float* y, int n) {
        std::vector<float> hx(x, x + n);
        std::vector<float> hy(y, y + n);
        std::vector<float> hz(n);
    }
    """
    assert lines(mem.ReducedPrecision, src) == {3}


def test_mem10_narrower_than_the_reference():
    from strategylens.tag import tag_source

    reference = ("double norm(const float* x, int n) {\n"
                 "    double s = 0.0;\n"
                 "    for (int i = 0; i < n; i++) s += (double)x[i] * x[i];\n"
                 "    return s;\n"
                 "}\n"
                 "void solution_compute(const float* x, int n, double* out) { *out = norm(x, n); }\n")
    port = ("__global__ void sq(const float* x, int n, float* part) {\n"
            "    float s = 0.0f;\n"
            "    for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i] * x[i];\n"
            "    part[threadIdx.x] = s;\n"
            "}\n"
            "extern \"C\" void solution_compute(const float* x, int n, float* part) {\n"
            "    sq<<<1, 256>>>(x, n, part);\n"
            "}\n")
    kept = port.replace("float s = 0.0f;", "double s = 0.0;")

    def mem10(src, ref):
        r = tag_source(src, "p.cu", index=False, reference=ref)
        return [e.line_start for lab in r.labels if lab.id == "MEM-10" for e in lab.evidence]

    assert mem10(port, reference) == [2]
    assert mem10(port, None) == []          # without the reference nothing says it is narrower
    assert mem10(kept, reference) == []     # the port keeps double where it accumulates
