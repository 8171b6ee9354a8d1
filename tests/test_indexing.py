"""Access strides in threadIdx.x: libclang pass and the tree-sitter fallback."""

from fractions import Fraction

import pytest

from strategylens.model import libclang
from strategylens.model import build_model

SRC = r"""
#include <cuda_runtime.h>
#define N 1024
#define IDX(r, c) ((r) * N + (c))
__global__ void forms(const float* a, float* b, int n, int stride) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    int col = tid;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    b[tid] = a[tid * stride];
    b[row * n + tid] = a[tid * n + col];
    b[IDX(row, col)] = a[IDX(col, row)];
    b[lane] = a[warp];
    b[tid * 2 + 1] = a[threadIdx.x * threadIdx.x];
}
void solution_compute(float* a, float* b, int n) { forms<<<n / 256, 256>>>(a, b, n, 4); }
"""

# (line, array, expected stride_tx, expected stride_expr) for both passes where they agree
COMMON = [
    (11, "b", 1, "1"), (11, "a", None, "stride"),
    (12, "b", 1, "1"), (12, "a", None, "n + 1"),
    (14, "b", 1, "1"), (14, "a", 0, "1/32"),
    (15, "b", 2, "2"), (15, "a", None, None),
]


def _facts(m):
    return {(a.line, a.array): (a.stride_tx, a.stride_expr, a.stride_source) for a in m.accesses}


@pytest.fixture(scope="module")
def with_index():
    return build_model(SRC, "forms.cu", index=True)


@pytest.fixture(scope="module")
def without_index():
    return build_model(SRC, "forms.cu", index=False)


def test_libclang_strides(with_index):
    m = with_index
    assert m.index_status == "ok"
    facts = _facts(m)
    for line, array, tx, expr in COMMON:
        assert facts[(line, array)] == (tx, expr, "libclang"), (line, array)
    # macros expanded: IDX(row, col) = row * 1024 + col is stride 1, IDX(col, row) stride 1024
    assert facts[(13, "b")] == (1, "1", "libclang")
    assert facts[(13, "a")] == (1024, "1024", "libclang")
    assert m.index.matched == 10 and m.index.seen == 10


def test_tree_sitter_fallback_strides(without_index):
    m = without_index
    assert m.index_status == "unavailable: disabled (--no-index)"
    facts = _facts(m)
    for line, array, tx, expr in COMMON:
        assert facts[(line, array)] == (tx, expr, "tree-sitter"), (line, array)
    # function-like macros in indices are expanded from their #define
    assert facts[(13, "b")] == (1, "1", "tree-sitter")
    assert facts[(13, "a")] == (1024, "1024", "tree-sitter")


def test_libclang_unavailable_falls_back(monkeypatch):
    monkeypatch.setattr(libclang, "_setup", lambda: "libclang not importable (test)")
    m = build_model(SRC, "forms.cu", index=True)
    assert m.index_status == "unavailable: libclang not importable (test)"
    assert m.index is None
    assert _facts(m)[(12, "a")] == (None, "n + 1", "tree-sitter")


def test_libclang_parse_failure_is_reported(monkeypatch):
    class Broken:
        def parse(self, *a, **k):
            raise libclang.ci.TranslationUnitLoadError("boom")

    monkeypatch.setattr(libclang, "_setup", lambda: (Broken(), []))
    m = build_model(SRC, "forms.cu", index=True)
    assert m.index_status.startswith("failed: libclang could not parse the file")
    assert _facts(m)[(11, "b")] == (1, "1", "tree-sitter")


def test_multidimensional_shared_rows_use_template_extent():
    src = """
template <int BS>
__global__ void t(float* out) {
    __shared__ float s[BS][BS + 1];
    s[threadIdx.x][0] = 1.0f;
    out[threadIdx.x] = s[0][threadIdx.x];
}
void solution_compute(float* o) { t<32><<<1, 32>>>(o); }
"""
    for index in (True, False):
        m = build_model(src, index=index)
        got = [(a.array, a.stride_tx) for a in m.accesses]
        assert got == [("s", 33), ("out", 1), ("s", 1)], index


def test_combine_rules():
    from strategylens.model import combine
    one, zero = (Fraction(1), None), (Fraction(0), None)
    four = (Fraction(0), 4)
    assert combine("*", one, four, lambda: "4", lambda: "tid") == (Fraction(4), None)
    assert combine("*", one, zero, lambda: "n", lambda: "tid") == ("n", None)
    assert combine("%", one, (Fraction(0), 32), lambda: "32", lambda: "tid") == (Fraction(1),
                                                                                   None)
    assert combine("%", one, (Fraction(0), 7), lambda: "7", lambda: "tid") == (None, None)
    assert combine("&", one, (Fraction(0), 15), lambda: "15", lambda: "tid") == (Fraction(1),
                                                                                   None)
    assert combine("+", four, four, lambda: "4", lambda: "4") == (Fraction(0), 8)


def test_row_pointer_offset_counts():
    src = """
__global__ void rows(const float* a, float* out, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const float* row = a + (size_t)tid * n;
    float s = 0.0f;
    for (int k = 0; k < n; ++k) s += row[k];
    const float* col = &a[tid];
    out[tid] = s + col[0];
}
void solution_compute(const float* a, float* o, int n) { rows<<<n / 128, 128>>>(a, o, n); }
"""
    for index in (True, False):
        m = build_model(src, index=index)
        got = [(a.array, a.stride_tx, a.stride_expr) for a in m.accesses]
        assert got == [("row", None, "n"), ("out", 1, "1"), ("col", 1, "1")], index


def test_address_of_and_deref_forms():
    src = """
__global__ void k(const float* a, float* o, int* c) {
    int i = threadIdx.x;
    float v = __ldg(&a[i]);
    atomicAdd(&c[0], 1);
    float* p = &o[i];
    *p = v;
    *(o + 2 * i) = v;
}
void solution_compute() { k<<<1, 32>>>(0, 0, 0); }
"""
    m = build_model(src, index=True)
    got = [(a.array, a.is_write, a.stride_tx, a.stride_source) for a in m.accesses]
    # `&o[i]` alone is an address, not an access
    assert got == [("a", False, 1, "libclang"), ("c", True, 0, "libclang"),
                   ("p", True, 1, "tree-sitter"), ("o", True, 2, "tree-sitter")]


def test_block_scoping_and_clamps():
    src = """
__global__ void k(const float* a, float* b, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    for (int e = 0; e < 4; ++e) { int c = x * 4 + e; b[c] = 0.0f; }
    for (int e = 0; e < 4; ++e) { int c = e; b[c] = 1.0f; }
    for (int dx = -1; dx <= 1; ++dx) {
        int xx = min(max(x + dx, 0), w - 1);
        b[x] += a[xx];
    }
}
void solution_compute(const float* a, float* b, int w) { k<<<w / 128, 128>>>(a, b, w); }
"""
    for index in (True, False):
        m = build_model(src, index=index)
        got = [(a.line, a.array, a.stride_tx) for a in m.accesses]
        assert got == [(4, "b", 4), (5, "b", 0), (8, "b", 1), (8, "a", 1)], index


def test_libclang_expands_macros_from_the_files_own_header(tmp_path):
    (tmp_path / "idx.cuh").write_text("#define AT(r, c, w) ((c) * (w) + (r))\n")
    cu = tmp_path / "k.cu"
    cu.write_text('#include <cuda_runtime.h>\n#include "idx.cuh"\n'
                  "__global__ void k(float* a, int w) { a[AT(threadIdx.x, 0, w)] = 0.0f; }\n"
                  "void solution_compute(float* a, int w) { k<<<1, 32>>>(a, w); }\n")
    with_index = build_model(cu.read_text(), str(cu), index=True)
    without = build_model(cu.read_text(), str(cu), index=False)
    assert [(a.line, a.stride_tx, a.stride_source) for a in with_index.accesses] == [
        (3, 1, "libclang")]
    assert with_index.index.errors == []
    assert with_index.index.missing_headers == ["cuda_runtime.h"]  # skipped on purpose
    # the macro is defined in another file: the model reads it from there (the file's folder)
    assert [(a.stride_tx, a.stride_source) for a in without.accesses] == [(1, "tree-sitter")]
    assert without.headers_read == [str(tmp_path / "idx.cuh")]
