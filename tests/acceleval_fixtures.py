"""A miniature AccelEval checkout and run folder, written for the tests (no AccelEval file is
copied): the same layout and file roles as the public repository, with tiny tasks of our own.

``make_checkout(root)`` writes ``root/{README.md, framework/, tasks/<id>/}``:

* ``framework/acceleval_io_py.py`` writes input.bin with the magic ``ACCELEVA`` (as the current
  upstream writer does) and ``framework/acceleval_io.h`` accepts only ``ORBENCH\\0`` (as the
  upstream reader does) and stops the build if it is ever included: strategylens must use
  neither for its builds.
* ``toy_scale``: y[i] = a * x[i], ``a`` from requests.txt (the adapter reads its data_dir),
  seeded inputs; a ``gpu_baseline.cu`` in the older solution_init interface.
* ``toy_fixed``: the same computation from inputs that ignore the seed.
* ``toy_ctx``: the output lives inside the adapter's context (nothing to poison).
* ``toy_exact``: integer outputs compared exactly; ``task_id`` differs from the folder name.
* ``toy_missing``: gen_data.py needs a data file that is not there.
* ``toy_slow``: gen_data.py sleeps past any short time limit.
"""

from __future__ import annotations

import json
from pathlib import Path

README = """# Mini AccelEval

| Category | Count | Examples |
|---|---:|---|
| HPC reference kernels | 2 | `toy_scale`, `toy_fixed` |
| Financial computing | 1 | `toy_ctx` |
"""

WRITER = '''"""Test stand-in for AccelEval's Python writer: input.bin with the magic ACCELEVA."""
import os
import struct


def write_input_bin(out_path, tensors, params):
    codes = {"int32": (0, "i"), "float32": (1, "f"), "float64": (2, "d")}
    os.makedirs(os.path.dirname(out_path) or ".", exist_ok=True)
    meta = 32 + 64 * len(tensors) + 48 * len(params)
    data_offset = (meta + 63) & ~63
    blobs, descs, cur = [], [], data_offset
    for name, dtype, data in tensors:
        code, fmt = codes[dtype]
        blob = struct.pack("<" + fmt * len(data), *data)
        descs.append(struct.pack("<32siiqqq", name.encode(), code, 0, len(data), cur, len(blob)))
        blobs.append(blob)
        cur += len(blob)
    with open(out_path, "wb") as f:
        f.write(struct.pack("<8siiiiq", b"ACCELEVAL\\0", 1, len(tensors), len(params),
                            data_offset, 0))
        for d in descs:
            f.write(d)
        for k, v in params.items():
            f.write(struct.pack("<32sq", k.encode(), int(v)))
        f.write(b"\\0" * (data_offset - f.tell()))
        for b in blobs:
            f.write(b)
'''

CHECKOUT_HEADER = """#error "the checkout's acceleval_io.h must not be used by strategylens"
/* upstream's reader checks the magic ORBENCH\\0 only */
"""

GEN_TEMPLATE = '''import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from framework.acceleval_io_py import write_input_bin  # noqa: E402

SIZES = {{"small": {{"N": 64, "seed": 7}}, "medium": {{"N": 256, "seed": 7}},
          "large": {{"N": 1024, "seed": 7}}}}


def main():
    size, out = sys.argv[1], Path(sys.argv[2])
    cfg = SIZES[size]
    {body}


if __name__ == "__main__":
    main()
'''

GEN_SCALE = GEN_TEMPLATE.format(body='''rng = np.random.default_rng(cfg["seed"])
    x = rng.uniform(-1, 1, cfg["N"]).astype(np.float32)
    write_input_bin(str(out / "input.bin"), [("x", "float32", x.tolist())],
                    {"N": cfg["N"], "a_x1000": 2500})
    (out / "requests.txt").write_text("2.5\\n")''')

GEN_FIXED = GEN_TEMPLATE.format(body='''x = [((i % 7) - 3) / 4.0 for i in range(cfg["N"])]
    write_input_bin(str(out / "input.bin"), [("x", "float32", x)], {"N": cfg["N"]})
    (out / "requests.txt").write_text("2.5\\n")''')

GEN_CTX = GEN_TEMPLATE.format(body='''rng = np.random.RandomState(cfg["seed"])
    x = rng.uniform(0, 1, cfg["N"]).astype(np.float32)
    write_input_bin(str(out / "input.bin"), [("x", "float32", x.tolist())], {"N": cfg["N"]})''')

GEN_EXACT = GEN_TEMPLATE.format(body='''np.random.seed(cfg["seed"])
    v = np.random.randint(0, 100, cfg["N"]).astype(np.int32)
    write_input_bin(str(out / "input.bin"), [("v", "int32", v.tolist())], {"N": cfg["N"]})''')

GEN_MISSING = GEN_TEMPLATE.format(body='''path = Path(__file__).parent / "data" / "instances" / "legs.csv"
    if not path.exists():
        raise FileNotFoundError(f"CSV not found: {path}")''')

GEN_SLOW = GEN_TEMPLATE.format(body='''import time
    time.sleep(60)''')

# ----------------------------------------------------------------------------- C sources

REF_SCALE = """/* toy reference: y = a * x */
void solution_compute(int N, const float* x, float a, float* y) {
    for (int i = 0; i < N; i++) y[i] = a * x[i];
}
"""

ADAPTER_SCALE = """#include "acceleval_io.h"
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif
void solution_compute(int N, const float* x, float a, float* y);

typedef struct { int N; const float* x; float a; float* y; } Ctx;

void* task_setup(const TaskData* data, const char* data_dir) {
    Ctx* ctx = (Ctx*)calloc(1, sizeof(Ctx));
    char path[1024];
    snprintf(path, sizeof path, "%s/requests.txt", data_dir);
    FILE* f = fopen(path, "r");
    if (!f || fscanf(f, "%f", &ctx->a) != 1) { free(ctx); if (f) fclose(f); return NULL; }
    fclose(f);
    ctx->N = (int)get_param(data, "N");
    ctx->x = get_tensor_float(data, "x");
    ctx->y = (float*)calloc((size_t)ctx->N, sizeof(float));
    return ctx;
}

void task_run(void* p) { Ctx* c = (Ctx*)p; solution_compute(c->N, c->x, c->a, c->y); }

void task_write_output(void* p, const char* path) {
    Ctx* c = (Ctx*)p;
    FILE* f = fopen(path, "w");
    for (int i = 0; i < c->N; i++) fprintf(f, "%.6f\\n", c->y[i]);
    fclose(f);
}

void task_cleanup(void* p) { Ctx* c = (Ctx*)p; free(c->y); free(c); }
#ifdef __cplusplus
}
#endif
"""

REF_CTX = """double solution_compute_sum(int N, const float* x);
void solution_compute(int N, const float* x, double* out) {
    double s = 0, m = 0;
    for (int i = 0; i < N; i++) { s += x[i]; if (x[i] > m) m = x[i]; }
    out[0] = s;
    out[1] = m;
}
"""

ADAPTER_CTX = """#include "acceleval_io.h"
#include <stdio.h>
#include <stdlib.h>
#ifdef __cplusplus
extern "C" {
#endif
void solution_compute(int N, const float* x, double* out);
typedef struct { int N; const float* x; double out[2]; } Ctx;
void* task_setup(const TaskData* data, const char* data_dir) {
    (void)data_dir;
    Ctx* c = (Ctx*)calloc(1, sizeof(Ctx));
    c->N = (int)get_param(data, "N");
    c->x = get_tensor_float(data, "x");
    return c;
}
void task_run(void* p) { Ctx* c = (Ctx*)p; solution_compute(c->N, c->x, c->out); }
void task_write_output(void* p, const char* path) {
    Ctx* c = (Ctx*)p;
    FILE* f = fopen(path, "w");
    fprintf(f, "%.10e %.10e\\n", c->out[0], c->out[1]);
    fclose(f);
}
void task_cleanup(void* p) { free(p); }
#ifdef __cplusplus
}
#endif
"""

REF_EXACT = """void solution_compute(int N, const int* v, int* rank) {
    for (int i = 0; i < N; i++) {
        int r = 0;
        for (int j = 0; j < N; j++) r += v[j] < v[i] || (v[j] == v[i] && j < i);
        rank[i] = r;
    }
}
"""

ADAPTER_EXACT = """#include "acceleval_io.h"
#include <stdio.h>
#include <stdlib.h>
#ifdef __cplusplus
extern "C" {
#endif
void solution_compute(int N, const int* v, int* rank);
typedef struct { int N; const int* v; int* rank; } Ctx;
void* task_setup(const TaskData* data, const char* data_dir) {
    (void)data_dir;
    Ctx* c = (Ctx*)calloc(1, sizeof(Ctx));
    c->N = (int)get_param(data, "N");
    c->v = get_tensor_int(data, "v");
    c->rank = (int*)calloc((size_t)c->N, sizeof(int));
    return c;
}
void task_run(void* p) { Ctx* c = (Ctx*)p; solution_compute(c->N, c->v, c->rank); }
void task_write_output(void* p, const char* path) {
    Ctx* c = (Ctx*)p;
    FILE* f = fopen(path, "w");
    for (int i = 0; i < c->N; i++) fprintf(f, "%d\\n", c->rank[i]);
    fclose(f);
}
void task_cleanup(void* p) { Ctx* c = (Ctx*)p; free(c->rank); free(c); }
#ifdef __cplusplus
}
#endif
"""

# A human baseline in the older interface: init takes the inputs, compute the rest.
LEGACY_BASELINE = """#include <cuda_runtime.h>
static const float* g_x;
static float g_a;
__global__ void scale(int n, const float* x, float a, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
extern "C" void solution_init(int N, const float* x, float a) { g_x = x; g_a = a; }
extern "C" void solution_compute(int N, float* out) {
    float *dx, *dy;
    cudaMalloc(&dx, N * sizeof(float));
    cudaMalloc(&dy, N * sizeof(float));
    cudaMemcpy(dx, g_x, N * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<(N + 255) / 256, 256>>>(N, dx, g_a, dy);
    cudaMemcpy(out, dy, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
extern "C" void solution_free(void) {}
"""

MODERN_SOLUTION = """#include <cuda_runtime.h>
__global__ void scale(int n, const float* x, float a, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
extern "C" void solution_compute(int N, const float* x, float a, float* y) {
    float *dx, *dy;
    cudaMalloc(&dx, N * sizeof(float));
    cudaMalloc(&dy, N * sizeof(float));
    cudaMemcpy(dx, x, N * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<(N + 255) / 256, 256>>>(N, dx, a, dy);
    cudaMemcpy(y, dy, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
"""

# Host-only "solutions" of toy_scale for the CPU session, built by gcc. CHEAT: 0 honest,
# 1 stale (the first set's answer ever after), 2 partial (skips the tail), 3 skips the work when
# called again with the same input pointer (a cache that relies on outputs kept between calls).
HOST_SOLUTION = """#include <string.h>
#ifndef CHEAT
#define CHEAT 0
#endif
static int calls;
static float first[1 << 16];
static const float* seen;
void solution_compute(int N, const float* x, float a, float* y) {
    calls++;
    if (CHEAT == 1 && calls > 3) { memcpy(y, first, (size_t)N * sizeof(float)); return; }
    if (CHEAT == 3 && x == seen) return;
    seen = x;
    int m = CHEAT == 2 ? N - N / 8 : N;
    for (int i = 0; i < m; i++) y[i] = a * x[i];
    if (calls == 1 && N <= (1 << 16)) memcpy(first, y, (size_t)N * sizeof(float));
}
"""

TASK_JSON = {
    "toy_scale": {"task_id": "toy_scale", "name": "Toy scale", "category": "hpc",
                  "correctness": {"mode": "numerical", "atol": 0.001, "rtol": 0.001}},
    "toy_fixed": {"task_id": "toy_fixed", "name": "Toy scale, fixed inputs", "category": "hpc",
                  "correctness": {"mode": "numerical", "atol": 0.001}},
    "toy_ctx": {"task_id": "toy_ctx", "name": "Toy sum", "category": "financial_computing",
                "correctness": {"mode": "numerical", "atol": 1e-6, "rtol": 1e-6}},
    "toy_exact": {"task_id": "toy_rank", "name": "Toy rank", "category": "graph",
                  "correctness": {"mode": "exact"}},
    "toy_missing": {"task_id": "toy_missing", "name": "Needs a data file",
                    "category": "optimization", "correctness": {"mode": "numerical"}},
    "toy_slow": {"task_id": "toy_slow", "name": "Slow generator", "category": "optimization",
                 "correctness": {"mode": "numerical"}},
}
FILES = {
    "toy_scale": (GEN_SCALE, REF_SCALE, ADAPTER_SCALE),
    "toy_fixed": (GEN_FIXED, REF_SCALE, ADAPTER_SCALE),
    "toy_ctx": (GEN_CTX, REF_CTX, ADAPTER_CTX),
    "toy_exact": (GEN_EXACT, REF_EXACT, ADAPTER_EXACT),
    "toy_missing": (GEN_MISSING, REF_SCALE, ADAPTER_SCALE),
    "toy_slow": (GEN_SLOW, REF_SCALE, ADAPTER_SCALE),
}


def make_checkout(root: Path, tasks: tuple[str, ...] | None = None) -> Path:
    """Write the miniature checkout under ``root``; returns ``root``."""
    (root / "framework").mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text(README)
    (root / "framework" / "__init__.py").write_text("")
    (root / "framework" / "acceleval_io_py.py").write_text(WRITER)
    (root / "framework" / "acceleval_io.h").write_text(CHECKOUT_HEADER)
    for tid in tasks or tuple(TASK_JSON):
        gen, ref, adapter = FILES[tid]
        d = root / "tasks" / tid
        d.mkdir(parents=True, exist_ok=True)
        doc = dict(TASK_JSON[tid], difficulty=1, interface_mode="compute_only",
                   input_sizes={"small": {"N": 64}, "medium": {"N": 256}, "large": {"N": 1024}},
                   timing={"warmup": 3, "trials": 10, "timeout": 60}, extra_build_flags="")
        (d / "task.json").write_text(json.dumps(doc, indent=1))
        (d / "gen_data.py").write_text(gen)
        (d / "cpu_reference.c").write_text(ref)
        (d / "task_io_cpu.c").write_text(adapter)
        (d / "task_io.cu").write_text(adapter)
    if tasks is None or "toy_scale" in tasks:
        (root / "tasks" / "toy_scale" / "gpu_baseline.cu").write_text(LEGACY_BASELINE)
    return root


def make_run(root: Path, model: str = "acme-coder", level: int = 3, stage: str = "",
             stamp: str = "20260101_1200", samples: dict | None = None) -> Path:
    """A run folder ``root/runs/<model>_l<level><stage>_<stamp>/<task>/sample_<k>.cu`` with
    ``sample_<k>_meta.json``; ``samples`` maps task -> {k: source}."""
    run = root / "runs" / f"{model}_l{level}{stage}_{stamp}"
    for task, by_k in (samples or {"toy_scale": {0: MODERN_SOLUTION}}).items():
        for k, src in by_k.items():
            d = run / task
            d.mkdir(parents=True, exist_ok=True)
            (d / f"sample_{k}.cu").write_text(src)
            (d / f"sample_{k}_meta.json").write_text(json.dumps({
                "model_id": model, "provider": "test", "task_id": task, "level": level,
                "sample_id": k, "input_tokens": 10, "output_tokens": 20, "cost_usd": 0.0,
                "latency_ms": 5}))
    return run
