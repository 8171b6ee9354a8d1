"""Textual preprocessing before the parse (strategylens.model.preproc) and what the model makes of
it: statement macros, attribute macros, conditional fragments, reachability without a launch, and
template parameters of unknown value."""

from __future__ import annotations

import json

from strategylens.model import build_model
from strategylens.model.preproc import (expand_statement_macros, position_helpers,
                                        qualify_attribute_macros, resolve_conditionals,
                                        unwrap_fragment_conditionals, wrapper_macros)


def test_statement_macros_expand_in_place_and_keep_lines():
    src = (b"#define EACH(i, n) for (int i = threadIdx.x; i < (n); i += blockDim.x)\n"
           b"#define GO(k, a) k<<<1, 32>>>(a)\n"
           b"#define TWICE(k, a) GO(k, a); GO(k, a)\n"
           b"#define SQ(x) ((x) * (x))\n"
           b"__global__ void f(int* a) { EACH(j, 8) { a[j] = SQ(j); } }\n"
           b"int main() { int* a; TWICE(f,\n"
           b"    a); return 0; }\n")
    out, names = expand_statement_macros(src)
    assert names == ["EACH", "TWICE"]  # SQ computes, GO is used only through TWICE
    lines = out.decode().splitlines()
    assert len(lines) == len(src.decode().splitlines())
    assert lines[4] == ("__global__ void f(int* a) { for (int j = threadIdx.x; j < (8); "
                        "j += blockDim.x) { a[j] = SQ(j); } }")
    assert lines[5] == "int main() { int* a; f<<<1, 32>>>(a); f<<<1, 32>>>(a)"
    assert lines[6] == "; return 0; }"


def test_no_statement_macro_leaves_source_alone():
    assert expand_statement_macros(b"#define SQ(x) ((x) * (x))\nint f() { return SQ(2); }\n") is None
    # an access macro is expanded: the access belongs to its use
    out, names = expand_statement_macros(b"#define A(i, j) a[(i) * n + (j)]\n"
                                         b"__global__ void k(float* a, int n) {\n"
                                         b"  A(threadIdx.x, 0) = 1; }\n")
    assert names == ["A"] and out.endswith(b"  a[(threadIdx.x) * n + (0)] = 1; }\n")
    # a do { } while (0) wrapper is a statement of its own, not a loop header
    assert expand_statement_macros(b"#define CHECK(c) do { if (c) abort(); } while (0)\n"
                                   b"void g() { CHECK(1); }\n") is None


def test_attribute_macros_become_qualifiers():
    src = (b"#define HD __host__ __device__\n"
           b"HD float twice(float v) { return 2 * v; }\n"
           b"LIB_DEVICE LIB_FORCEINLINE float half(float v) { return v / 2; }\n"
           b"LIB_KERNEL_ATTRIBUTES void k(float* x) { x[0] = half(x[0]); }\n"
           b"int DEVICE_COUNT = 4;\n")
    out, names, guessed = qualify_attribute_macros(src)
    assert guessed == {"LIB_DEVICE": (3, "__device__"), "LIB_FORCEINLINE": (3, "__forceinline__"),
                       "LIB_KERNEL_ATTRIBUTES": (4, "__global__")}
    assert names == ["HD", "LIB_DEVICE", "LIB_FORCEINLINE", "LIB_KERNEL_ATTRIBUTES"]
    assert out.decode().splitlines()[1:] == [
        "__host__ __device__ float twice(float v) { return 2 * v; }",
        "__device__ __forceinline__ float half(float v) { return v / 2; }",
        "__global__ void k(float* x) { x[0] = half(x[0]); }",
        "int DEVICE_COUNT = 4;"]
    m = build_model(src, index=False)
    assert [k.name for k in m.kernels] == ["k"]
    assert {f.name for f in m.device_functions} == {"twice", "half"}


def test_conditional_fragment_inside_a_declaration_is_kept():
    src = (b"template <int N>\n#if HAS_CONCEPTS()\n  requires (N > 0)\n#endif\n"
           b"__global__ void k(float* x) { x[threadIdx.x] = N; }\n"
           b"#if FOO\nint a;\n#endif\n")
    out, count = unwrap_fragment_conditionals(src)
    assert count == 1
    assert out.decode().splitlines() == ["template <int N>", "", "  requires (N > 0)", "",
                                         "__global__ void k(float* x) { x[threadIdx.x] = N; }",
                                         "#if FOO", "int a;", "#endif"]


def test_conditionals_resolve_under_one_configuration():
    src = (b"#ifndef GUARD_H\n#define GUARD_H\n#define T 32\n"
           b"#if T > 16 && !defined(Q)\nint a;\n#elif __CUDA_ARCH__ > 700\nint b;\n#else\n"
           b"int c;\n#endif\n"
           b"#ifdef __CUDA_ARCH__\nint d;\n#endif\n"
           b"#if OPTION /* a build option */\nint e;\n#else\nint f;\n#endif\n#endif\n")
    out, assumed = resolve_conditionals(src, "#define Q 1\n", assume=True)
    assert len(out) == len(src)
    # Q defined outside: the #elif depends on the pass and the group stays; OPTION is assumed
    assert [ln.strip() for ln in out.decode().splitlines()] == [
        "", "#define GUARD_H", "#define T 32", "#if T > 16 && !defined(Q)", "int a;",
        "#elif __CUDA_ARCH__ > 700", "int b;", "#else", "int c;", "#endif",
        "#ifdef __CUDA_ARCH__", "int d;", "#endif", "", "int e;", "", "", "", ""]
    assert assumed == ["OPTION"]
    out, assumed = resolve_conditionals(src, "", assume=False)
    assert [ln.strip() for ln in out.decode().splitlines()][3:10] == [
        "", "int a;", "", "", "", "", ""]
    assert "int e;" not in out.decode() and "int f;" in out.decode()
    assert assumed == ["Q", "OPTION"]
    assert resolve_conditionals(b"#endif\nint a;\n") is None  # directives that do not nest


def test_file_that_parses_only_under_one_configuration():
    src = (b"__global__ void k(const float* x, float* y, int n) {\n"
           b"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           b"#ifdef CHECKED\n"
           b"    if (i < n) {\n"
           b"#else\n"
           b"    for (; i < n; i += blockDim.x * gridDim.x) {\n"
           b"#endif\n"
           b"        y[i] = x[i];\n"
           b"    }\n"
           b"}\n")
    m = build_model(src, "k.cu", index=False)
    assert m.unbalanced_braces is None and m.unparseable() is None
    assert [lp.line_start for lp in m.loops] == []  # CHECKED defined: the if branch
    assert any("read with CHECKED defined" in n for n in m.notes)
    # a file that parses as written is read as before: the option's branch is dead
    plain = build_model(b"__global__ void k(float* y, int n) {\n#ifdef CHECKED\n"
                        b"    for (int i = 0; i < n; i++) y[i] = 0;\n#endif\n}\n", "k.cu",
                        index=False)
    assert not any("configuration" in n for n in plain.notes)
    assert plain.loops and not plain.is_reachable(plain.loops[0].node)


def test_kernels_without_launch_are_judged_and_noted():
    src = (b"__host__ __device__ float sq(float v) { return v * v; }\n"
           b"void setup(float* h, int n) { for (int i = 0; i < n; ++i) h[i] = 0; }\n"
           b"__global__ void k(float* x) { x[threadIdx.x] = sq(x[threadIdx.x]); }\n")
    m = build_model(src, index=False)
    assert m.reachable == {"setup", "k", "sq"}
    assert "no kernel launch seen: every kernel is judged as launched" in m.notes
    # with the entry present, an unlaunched kernel stays dead
    m = build_model(src + b'extern "C" void solution_compute(float* h, int n) { setup(h, n); }\n',
                    index=False)
    assert m.reachable == {"solution_compute", "setup"}


def test_macro_bodies_and_tables_are_call_edges():
    src = (b"__global__ void a(float* x) { x[0] = 1; }\n"
           b"__global__ void b(float* x) { x[0] = 2; }\n"
           b"__global__ void c(float* x) { x[0] = 3; }\n"
           b"#define RUN_A(x) a<<<1, 1>>>(x)\n"
           b"typedef void (*kern)(float*);\n"
           b"static kern table[] = {b};\n"
           b'extern "C" void solution_compute(float* x) { RUN_A(x); table[0]<<<1, 1>>>(x); }\n')
    m = build_model(src, index=False)
    assert m.call_graph["solution_compute"] >= {"a", "b"}
    assert m.reachable == {"solution_compute", "a", "b"}


def test_unknown_template_values_are_compile_time_constants():
    src = (b"template <int TM, typename T>\n"
           b"__global__ void k(T* out, int n) {\n"
           b"  T acc[TM];\n"
           b"  for (int i = 0; i < TM; ++i) acc[i] = 0;\n"
           b"  for (int j = 0; j < n; ++j) out[j] = acc[0];\n"
           b"}\n")
    m = build_model(src, index=False)
    k = m.function_of("k")
    assert m.template_value_params(k) == ["TM"]
    assert m.compile_time("TM * 2", k) and not m.compile_time("n * TM", k)
    loops = sorted(m.loops, key=lambda lp: lp.line_start)
    assert [m.static_trip(lp) for lp in loops] == [True, False]
    assert "template parameter TM of k: value unknown, taken as a compile-time constant" in m.notes
    assert m.instantiations(k) == []


KERNEL = (b'#include "cfg.h"\n'
          b"__global__ void k(float* x) {\n"
          b"#ifdef USE_TILE\n"
          b"    __shared__ float t[TILE];\n"
          b"    t[threadIdx.x] = x[threadIdx.x];\n"
          b"    __syncthreads();\n"
          b"    x[threadIdx.x] = t[TILE - 1 - threadIdx.x];\n"
          b"#endif\n"
          b"}\n")


def _tile_size(m):
    return [v.dim_values for v in m.vars if v.name == "t"]


def test_includes_resolve_as_a_compiler_would(tmp_path):
    from strategylens.model.preproc import find_headers, parse_flags

    (tmp_path / "src").mkdir()
    (tmp_path / "include").mkdir()
    src = tmp_path / "src" / "k.cu"
    src.write_bytes(KERNEL)
    (tmp_path / "include" / "cfg.h").write_text('#include "more.h"\n#define USE_TILE\n')
    (tmp_path / "include" / "more.h").write_text("#define TILE 64\n")
    # not found: noted, and USE_TILE undefined as for the compiler without -D, with a note
    m = build_model(KERNEL, str(src), index=False)
    assert m.missing_includes == ["cfg.h"]
    assert 'include "cfg.h" not found: its macros and declarations are unknown' in m.notes
    assert "USE_TILE is defined nowhere that was read: taken as undefined (it may come from a " \
           "header not found or from -D)" in m.notes
    assert _tile_size(m) == [[None]] and not m.vars_in(space="shared")
    # -I: the header and the one it includes are read
    m = build_model(KERNEL, str(src), index=False, include_dirs=[str(tmp_path / "include")])
    assert m.missing_includes == [] and _tile_size(m) == [[64]]
    assert m.headers_read == [str(tmp_path / "include" / "cfg.h"), str(tmp_path / "include" / "more.h")]
    # -D over nothing: TILE known, the header still missing
    m = build_model(KERNEL, str(src), index=False, defines={"TILE": "32", "USE_TILE": "1"})
    assert _tile_size(m) == [[32]]
    # compile_commands.json above the file gives its -I
    (tmp_path / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(tmp_path), "file": "src/k.cu",
          "command": "nvcc -Iinclude -DX=2 -c src/k.cu"}]))
    m = build_model(KERNEL, str(src), index=False)
    assert _tile_size(m) == [[64]] and m.macros["X"].value_text == "2"
    assert "include folders and macros taken from compile_commands.json" in m.notes
    assert parse_flags(["nvcc", "-I", "a", "-Ib", "-isystem", "/c", "-DN=4", "-D", "F"], "/w") == (
        ["/w/a", "/w/b", "/c"], {"N": "4", "F": "1"})
    assert find_headers('#include <cuda_runtime.h>\n#include "x.h"\n', str(tmp_path), []) == (
        [], ["x.h"])


def test_tag_cli_takes_include_dirs_and_defines(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from strategylens.cli import app

    (tmp_path / "include").mkdir()
    src = tmp_path / "k.cu"
    src.write_bytes(KERNEL.replace(b"#ifdef USE_TILE", b"#ifdef USE_TILE\n#if TILE > 16")
                    .replace(b"#endif\n}", b"#endif\n#endif\n}"))
    (tmp_path / "include" / "cfg.h").write_text("#define USE_TILE\n#define TILE 8\n")
    monkeypatch.chdir(tmp_path)
    run = CliRunner().invoke

    def ids(*args):
        r = run(app, ["tag", str(src), "--format", "json", "--no-cache", "--no-index", *args])
        assert r.exit_code == 0, r.output
        return sorted(lab["id"] for lab in json.loads(r.stdout)[0]["labels"])

    assert "MEM-02" not in ids("-I", "include")  # TILE 8: the tile branch is dead
    assert "MEM-02" in ids("-I", "include", "-D", "TILE=32")
    (tmp_path / "strategylens.toml").write_text('[tag]\ninclude-dir = ["include"]\n'
                                                'define = ["TILE=64"]\n')
    assert "MEM-02" in ids()
    (tmp_path / "strategylens.toml").write_text('[tag]\ndefine = ["1BAD"]\n')
    r = run(app, ["tag", str(src), "--no-cache"])
    assert r.exit_code == 2 and "is not NAME or NAME=VALUE" in r.output


def test_library_style_header_is_read(tmp_path):
    from pathlib import Path

    from strategylens.tag import tag_file

    path = Path(__file__).parent / "fixtures" / "preproc" / "library_style_header.cuh"
    r = tag_file(path, index=False)
    got = {lab.id: [(e.line_start, e.line_end) for e in lab.evidence] for lab in r.labels}
    assert got["PAR-03"] == [(9, 9)] and got["PAR-11"] == [(17, 17)]
    assert "attribute macros read as CUDA qualifiers: LIB_DEVICE, LIB_FORCEINLINE, " \
           "LIB_KERNEL_ATTRIBUTES" in r.notes


def test_template_types_follow_the_instantiations():
    src = (b"typedef float4 vec;\n"
           b"template <class T, class V> __global__ void k(V* x) { x[threadIdx.x] = x[0]; }\n"
           b"template <class T, class V> void run(V* x) { k<T, V><<<1, 32>>>(x); }\n"
           b"template <class U> __global__ void lone(U* x) { x[0] = x[1]; }\n"
           b"void go(void* p) { run<float, vec>((vec*)p); run<double, double2>((double2*)p); }\n")
    m = build_model(src, index=False)
    assert m.template_types(m.function_of("k"), "V") == {"float4", "double2"}
    assert m.template_types(m.function_of("run"), "T") == {"float", "double"}
    assert m.template_types(m.function_of("lone"), "U") is None
    assert m.template_types(m.function_of("k"), "x") is None


def test_framework_launch_and_shared_memory_macros_from_absent_headers():
    # ThunderSVM's launch macro with no loop macro in the file, and HIP's shared declaration
    src = (b'#include "thundersvm/util/common.h"\n'
           b"__global__ void k(float* out, int n) {\n"
           b"  HIP_DYNAMIC_SHARED(float, buf)\n"
           b"  buf[threadIdx.x] = 1.0f; __syncthreads(); out[threadIdx.x] = buf[threadIdx.x];\n}\n"
           b'extern "C" void solution_compute(float* out, int n) { SAFE_KERNEL_LAUNCH(k, out, n); }\n')
    model = build_model(src, "k.cu", index=False)
    assert [la.kernel for la in model.launches] == ["k"]
    fn = model.function_of("k")
    assert model.shared_names(fn) == {"buf"}
    assert any("HIP_DYNAMIC_SHARED" in n and "SAFE_KERNEL_LAUNCH" in n for n in model.notes)


def test_framework_loop_macros_from_absent_headers(tmp_path):
    body = ("__global__ void k(const float* in, float* out, int n) {\n"
            "  CUDA_KERNEL_LOOP(i, n) { out[i] = 2.0f * in[i]; }\n}\n")
    src = '#include "caffe/util/device_alternate.hpp"\n' + body
    model = build_model(src.encode(), "k.cu", index=False)
    (fn,) = model.gpu_functions()
    loops = model.loops_in(fn)
    assert [lp.var for lp in loops] == ["i"] and "gridDim" in (loops[0].step or "")
    assert sorted(a.array for a in model.accesses_in(fn)) == ["in", "out"]
    assert any("CUDA_KERNEL_LOOP" in n and "usual definitions" in n for n in model.notes)
    # a header that can be found defines it otherwise, and that definition is the one read
    (tmp_path / "loop.h").write_text("#define CUDA_KERNEL_LOOP(i, n) "
                                     "for (int i = threadIdx.x; i < (n); i += blockDim.x)\n")
    f = tmp_path / "k.cu"
    f.write_text('#include "loop.h"\n' + body)
    model = build_model(f.read_bytes(), str(f), index=False)
    (loop,) = model.loops_in(model.gpu_functions()[0])
    assert "gridDim" not in (loop.step or "") and "blockDim" in (loop.step or "")
    assert not any("usual definitions" in n for n in model.notes)


def test_position_helpers_are_read_as_builtins_with_lines_kept():
    src = (b"__global__ void k(float* a) {\n"
           b"  unsigned i = dev::thread::global::id::x();  // dev::block::size::x()\n"
           b"  for (unsigned j = dev::thread::local::id::x(); j < 8; j += dev::block::size::x())\n"
           b"    a[i + j] = 0;\n}\n")
    out, used = position_helpers(src)
    assert out.count(b"\n") == src.count(b"\n")
    assert b"unsigned i = (blockIdx.x * blockDim.x + threadIdx.x);  // dev::block::size::x()" in out
    assert b"j = threadIdx.x; j < 8; j += blockDim.x)" in out
    assert used == ["dev::thread::global::id::x", "dev::thread::local::id::x",
                    "dev::block::size::x"]
    # a helper the file defines is read by the model itself
    assert position_helpers(b"__device__ int thread_idx_x() { return 0; }\n"
                            b"int i = thread_idx_x();\n") is None


def test_wrapper_macros_launch_kernels_and_call_library_algorithms():
    src = (b"__global__ void k(int* a) {}\n"
           b"void f(int* a, int n) {\n"
           b"  CUDA_LAUNCH((k), dim3(n),\n"
           b"              dim3(32), a);\n"
           b"  POLICY(thrust::sort, a, a + n);\n"
           b"  CHECK(cudaDeviceSynchronize());\n}\n")
    out, used = wrapper_macros(src)
    assert out.count(b"\n") == src.count(b"\n")
    assert b"  k<<<dim3(n), dim3(32)>>>(a)\n;\n" in out  # the launch stays on its first line
    assert b"thrust::sort(a, a + n);" in out and b"CHECK(cudaDeviceSynchronize());" in out
    assert used == ["CUDA_LAUNCH", "POLICY"]
    # a macro the file defines is expanded by the preprocessor, not read as a wrapper
    assert wrapper_macros(b"#define RUN(f, ...) f(__VA_ARGS__)\n__global__ void k();\n"
                          b"void g() { RUN(k, 1, 2); }\n") is None
