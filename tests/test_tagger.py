"""Tagger outputs, bad inputs, cache, CLI formats and exit codes, substring comparator."""

import csv
import io
import json
import math
import os
import signal
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from strategylens import tag as tagger
from strategylens.cli import app
from strategylens.detectors import Detector, Finding
from strategylens.detectors.substring import strip_comments

FIXTURES = Path(__file__).parent / "fixtures" / "tagger"


class KernelDetector(Detector):
    """Test detector: one finding per reachable kernel, intensity = its shared bytes."""

    id = "MEM-02"

    def detect(self, model):
        for k in model.reachable_kernels():
            shared = [v.size_bytes or 0 for v in model.vars_in(k, space="shared")]
            yield Finding(k.line_start, k.line_start, 0.7, float(sum(shared)) if shared else None)


class LaunchDetector(Detector):
    id = "AP-01"

    def detect(self, model):
        for la in model.launches_of():
            if la.grid_value == (1,):
                yield Finding(la.line, la.line, 0.6)


class BrokenDetector(Detector):
    id = "CMP-04"

    def detect(self, model):
        raise ValueError("bad detector")


DETS = [KernelDetector, LaunchDetector]

GOOD = """
__global__ void k(float* a) { __shared__ float s[64]; s[threadIdx.x] = a[threadIdx.x]; }
__global__ void never(float* a) { a[0] = 1; }
void solution_compute(float* a) { k<<<1, 64>>>(a); }
"""


def test_tag_source_merges_findings_and_dict_shape():
    r = tagger.tag_source(GOOD, "good.cu", detectors=DETS, index=False)
    assert r.ok and r.error is None
    d = r.as_dict()
    assert set(d) == {"path", "ok", "error", "labels", "warnings", "notes"}
    assert d["notes"] == []
    for lab in d["labels"]:
        assert 0 < lab.pop("probability") < 1  # calibrated: see the calibration tests
    assert d["labels"] == [
        {"id": "AP-01", "kind": "anti-pattern", "confidence": 0.6, "intensity": None,
         "evidence": [{"line_start": 4, "line_end": 4, "detector": "LaunchDetector"}]},
        {"id": "MEM-02", "kind": "strategy", "confidence": 0.7, "intensity": 256.0,
         "evidence": [{"line_start": 2, "line_end": 2, "detector": "KernelDetector",
                       "kernel": "k"}]},
    ]


def test_model_notes_reach_the_result_its_dict_and_the_human_table():
    r = tagger.tag_source(GOOD, "good.cu", detectors=DETS, index=False, entry="main")
    assert r.notes == ["entry 'main' not found: every host function is a root"]
    assert tagger.FileResult.from_dict(r.as_dict()).notes == r.notes
    from strategylens.model import build_model
    m = build_model("__global__ void k() {}", index=False)
    m.note("include \"tiles.cuh\" not found")
    m.note("include \"tiles.cuh\" not found")
    assert m.notes == ["entry 'solution_compute' not found and no host code: every kernel and "
                       "device function is a root", "include \"tiles.cuh\" not found"]
    import contextlib
    import io

    from strategylens.cli import tag_output
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        tag_output.human([r], None)
    assert shown.getvalue().splitlines()[-2] == f"  note: {r.notes[0]}"


def test_calibration_maps_features_through_the_logistic_model():
    model = {"coef": [1.0, 0.5, -1.0], "intercept": 0.25}
    r = tagger.tag_source(GOOD, "good.cu", detectors=DETS, index=False)
    tagger.calibrate(r, model)
    ap01, mem02 = r.labels
    z = 0.25 + math.log(0.6 / 0.4) + 0.5 * math.log(2) - 1.0  # one span, an anti-pattern
    assert ap01.probability == pytest.approx(1 / (1 + math.exp(-z)))
    z = 0.25 + math.log(0.7 / 0.3) + 0.5 * math.log(2)
    assert mem02.probability == pytest.approx(1 / (1 + math.exp(-z)))
    shipped = tagger.calibration_model()
    assert shipped["n"] > 200 and len(shipped["coef"]) == len(tagger.label_features(0.5, 1, False))
    lo, hi = (tagger.calibrate(tagger.FileResult("x", True, None, [
        tagger.Label("MEM-01", "strategy", c, None, [tagger.Evidence(1, 1, "d")])]))
        .labels[0].probability for c in (0.55, 0.9))
    assert lo < hi  # more detector confidence, more probability
    assert tagger.calibration_model(Path("/nonexistent/calibration.json")) is None


def test_substring_labels_are_not_calibrated():
    src = GOOD.replace("__shared__ float s[64];", "__shared__ float s[64]; __syncthreads();")
    r = tagger.tag_source(src, "good.cu", detectors="substring", index=False)
    assert r.labels and all(lb.probability is None for lb in r.labels)
    ast = tagger.tag_source(src, "good.cu", index=False)
    assert ast.labels and all(lb.probability is not None for lb in ast.labels)


def test_entry_option_changes_reachability():
    r = tagger.tag_source(GOOD.replace("solution_compute", "run"), "g.cu", detectors=DETS,
                          entry="run", index=False)
    assert [lb.id for lb in r.labels] == ["AP-01", "MEM-02"]
    r = tagger.tag_source(GOOD, "g.cu", detectors=DETS, entry="missing", index=False)
    assert r.ok and any("entry point 'missing' not found" in w for w in r.warnings)


def test_failing_detector_is_a_warning_not_a_failure():
    r = tagger.tag_source(GOOD, "good.cu", detectors=[KernelDetector, BrokenDetector],
                          index=False)
    assert r.ok and [lb.id for lb in r.labels] == ["MEM-02"]
    assert r.warnings == ["good.cu: detector BrokenDetector (CMP-04) failed: ValueError: "
                          "bad detector"]


PYTHON = """import os
import sys


def main(argv):
    \"\"\"Print which paths exist.\"\"\"
    for name in argv:
        if os.path.exists(name):
            print(f"{name}: ok")
        else:
            print(f"{name}: missing", file=sys.stderr)
    return 0
"""


@pytest.fixture()
def bad_tree(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    (d / "good.cu").write_text(GOOD)
    (d / "empty.cu").write_text("  \n")
    (d / "binary.cu").write_bytes(b"__global__ void k() {}\0\x01\x02")
    (d / "latin1.cu").write_bytes("// caf\xe9\n__global__ void k() {}\n".encode("latin-1"))
    (d / "big.cu").write_text("// x\n" * 100)
    (d / "braces.cu").write_text("__global__ void k(float* a) {\n  if (a) {\n    a[0] = 1;\n}\n")
    (d / "macro.cu").write_text("FORCE_INLINE __device__ float f(float x) { return x; }\n"
                                "__global__ void k(float* a) { a[0] = f(1); }\n"
                                "void solution_compute(float* a) { k<<<1, 1>>>(a); }\n")
    (d / "python.cu").write_text(PYTHON)
    (d / "notes.txt").write_text("not cuda")
    return d


def test_bad_inputs_get_clear_errors_and_the_run_goes_on(bad_tree):
    results = {Path(r.path).name: r for r in tagger.tag_paths(
        [bad_tree], jobs=1, detectors=DETS, index=False, cache=False, size_limit=300)}
    assert sorted(results) == ["big.cu", "binary.cu", "braces.cu", "empty.cu", "good.cu",
                               "latin1.cu", "macro.cu", "python.cu"]
    p = str(bad_tree)
    assert results["empty.cu"].error == f"{p}/empty.cu: empty file, nothing to tag"
    assert results["binary.cu"].error == (f"{p}/binary.cu: binary file (NUL byte at offset 22), "
                                          "not CUDA source")
    assert results["latin1.cu"].error == (f"{p}/latin1.cu: not UTF-8 (invalid byte 0xe9 at "
                                          "offset 6); re-encode the file as UTF-8")
    assert results["big.cu"].error == (f"{p}/big.cu: not tagged: 500 bytes is over the 300 bytes "
                                       "limit for one file; raise it with --max-bytes BYTES (or "
                                       "max-bytes in the [tag] table of strategylens.toml)")
    assert results["braces.cu"].error == (f"{p}/braces.cu: unbalanced braces: the '{{' or '}}' "
                                          "at line 1 has no partner")
    assert results["python.cu"].error == (f"{p}/python.cu: does not parse as CUDA C++ "
                                          "(6 parse errors in 10 lines)")
    for name in ("empty.cu", "binary.cu", "latin1.cu", "big.cu", "braces.cu", "python.cu"):
        assert not results[name].ok and results[name].labels == []
    macro = results["macro.cu"]
    assert macro.ok and macro.warnings == [
        f"{p}/macro.cu: line 1: unknown macro 'FORCE_INLINE'; read as __forceinline__ from its "
        "name"]
    assert [lb.id for lb in macro.labels] == ["AP-01", "MEM-02"]
    good = results["good.cu"]
    assert good.ok and [lb.id for lb in good.labels] == ["AP-01", "MEM-02"]


def test_parallel_run_matches_serial(bad_tree):
    serial = {r.path: r.as_dict() for r in tagger.tag_paths(
        [bad_tree], jobs=1, detectors="substring", index=False, cache=False)}
    parallel = {r.path: r.as_dict() for r in tagger.tag_paths(
        [bad_tree], jobs=2, detectors="substring", index=False, cache=False)}
    assert parallel == serial
    assert {Path(p).name: d["ok"] for p, d in serial.items()} == {
        "big.cu": True, "binary.cu": False, "braces.cu": False, "empty.cu": False,
        "good.cu": True, "latin1.cu": False, "macro.cu": True, "python.cu": False}


def test_cache_hit_and_miss(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATEGYLENS_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "a.cu"
    shutil.copy(FIXTURES / "reduce_shfl.cu", src)
    first = list(tagger.tag_paths([src], jobs=1, detectors="substring", index=False))
    second = list(tagger.tag_paths([src], jobs=1, detectors="substring", index=False))
    assert [r.cached for r in first] == [False]
    assert [r.cached for r in second] == [True]
    assert second[0].as_dict() == first[0].as_dict()
    moved = tmp_path / "b.cu"  # same content elsewhere: a hit that reports the new path
    shutil.copy(src, moved)
    (hit,) = tagger.tag_paths([moved], jobs=1, detectors="substring", index=False)
    assert hit.cached and hit.path == str(moved)
    src.write_text(src.read_text() + "\n// changed\n")
    (third,) = tagger.tag_paths([src], jobs=1, detectors="substring", index=False)
    assert not third.cached
    # other settings are other entries
    (fourth,) = tagger.tag_paths([moved], jobs=1, detectors="substring", index=False,
                                 entry="main")
    assert not fourth.cached
    assert list((tmp_path / "cache").rglob("*.json"))


def test_a_missing_path_is_an_error_result_and_the_others_are_tagged(bad_tree):
    results = list(tagger.tag_paths(["nope.cu", bad_tree / "good.cu"], cache=False, jobs=1,
                                    detectors=DETS, index=False))
    assert [(Path(r.path).name, r.ok, r.error) for r in results] == [
        ("nope.cu", False, "nope.cu: no such file or folder"), ("good.cu", True, None)]


# --- substring comparator -------------------------------------------------------------------

MISFIRE = """
#include <cuda_runtime.h>
static int clamp_index(int i, int n) { return i < n ? i : n - 1; }   // a static helper
// we could use __shared__ memory and __syncthreads() here, but do not
/* float4 would vectorise
   this loop */
__global__ void k(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[clamp_index(i, n)];
}
void solution_compute(int n, const float* a, float* b) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    const char* url = "see http://example.org/__ldg";
    k<<<(n + 255) / 256, 256>>>(d, d, n);
    cudaFree(d);
}
"""


def test_substring_rules_misfire_as_acceleval_does():
    r = tagger.tag_source(MISFIRE, "misfire.cu", detectors="substring", index=False)
    got = {lb.id: [(e.line_start, e.detector) for e in lb.evidence] for lb in r.labels}
    # `static` on a helper + cudaMalloc = "persistent allocation"; keywords in comments are
    # stripped, so MEM-02 and MEM-06 do not fire; AccelEval's stripper cuts `//` inside the string,
    # so `__ldg` in the URL is not seen either.
    assert got == {"HST-01": [(3, "substring:has_persistent_alloc"),
                              (13, "substring:has_persistent_alloc")]}
    assert all(lb.kind == "strategy" and lb.confidence == 0.5 for lb in r.labels)


def test_substring_counts_keywords_in_strings_and_dead_code():
    src = 'void solution_compute() { if (0) { const char* s = "__constant__ float4"; } }\n'
    r = tagger.tag_source(src, "s.cu", detectors="substring", index=False)
    assert [lb.id for lb in r.labels] == ["MEM-05", "MEM-06"]


def test_strip_comments_keeps_line_numbers():
    text = "a /* x\ny */ b // c\nd"
    assert strip_comments(text) == "a \n b \nd"


# --- CLI ---------------------------------------------------------------------------------------

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, ["tag", *map(str, args)])


def test_cli_jsonl_one_object_per_file(bad_tree):
    res = _run(bad_tree / "good.cu", bad_tree / "empty.cu", "--format", "jsonl", "--no-cache",
               "--no-index", "--detectors", "substring", "--jobs", "1")
    assert res.exit_code == 1  # empty.cu failed
    objs = [json.loads(line) for line in res.stdout.splitlines()]
    assert sorted(o["path"].rsplit("/", 1)[1] for o in objs) == ["empty.cu", "good.cu"]
    for o in objs:
        assert set(o) == {"schema_version", "record_type", "tool", "tool_version",
                          "catalog_version", "path", "ok", "error", "labels", "warnings",
                          "notes"}
        assert o["record_type"] == "tag" and o["schema_version"] == 1
    assert "empty.cu: empty file, nothing to tag" in res.stderr


def test_cli_csv_and_parquet(tmp_path):
    out = tmp_path / "labels.parquet"
    res = _run(FIXTURES / "reduce_shfl.cu", "--format", "csv", "--no-cache", "--no-index",
               "--detectors", "substring", "--out", out, "--jobs", "1")
    assert res.exit_code == 0, res.stderr
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert list(rows[0]) == ["path", "id", "kind", "confidence", "probability", "intensity",
                             "line_start", "line_end", "detector"]
    got = [(r["id"], r["line_start"]) for r in rows]
    assert got == [("CMP-04", "11"), ("HST-01", "6"), ("HST-01", "38"), ("MEM-02", "18"),
                   ("MEM-02", "27"), ("PAR-03", "13"), ("PAR-06", "31"), ("PAR-11", "17")]
    import pyarrow.parquet as pq
    table = pq.read_table(out)
    assert table.column_names == list(rows[0])
    assert table.column("id").to_pylist() == [r["id"] for r in rows]


def test_cli_human_table_and_exit_codes(tmp_path):
    res = _run(FIXTURES / "matmul_tiled.cu", "--no-cache", "--no-index", "--detectors",
               "substring", "--jobs", "1")
    assert res.exit_code == 0
    assert "MEM-02" in res.stdout and "10, 18" in res.stdout
    assert _run(tmp_path / "missing.cu").exit_code == 2
    (tmp_path / "empty").mkdir()
    res = _run(tmp_path / "empty")
    assert res.exit_code == 2 and "no .cu or .cuh files" in res.stderr


def test_cli_ast_detectors_run(tmp_path):
    res = _run(FIXTURES / "graph_coop.cu", "--format", "json", "--no-cache", "--jobs", "1")
    assert res.exit_code == 0, res.stderr
    (obj,) = json.loads(res.stdout)
    assert obj["ok"] and obj["error"] is None
    assert all(set(lb) >= {"id", "kind", "confidence", "intensity", "evidence"}
               for lb in obj["labels"])


def test_worker_crash_is_tried_again_without_the_index(bad_tree):
    from strategylens.tag.workers import Bounds, run_bounded

    def crash_with_index(path, data, index):
        if index:  # as a crash inside libclang would
            os.kill(os.getpid(), signal.SIGKILL)
        return tagger.FileResult(path, True)

    items = [(str(bad_tree / n), b"x") for n in ("good.cu", "macro.cu")]
    results = {Path(r.path).name: r for r in run_bounded(items, crash_with_index, 2,
                                                           Bounds(), index=True)}
    assert sorted(results) == ["good.cu", "macro.cu"]
    assert all(r.ok for r in results.values())
    assert results["good.cu"].warnings == [
        f"{bad_tree / 'good.cu'}: the tagger crashed (signal 9); tagged again without the "
        "libclang index"]

def test_generated_code_with_huge_expressions_is_tagged():
    terms = "+".join(["x"] * 3000)
    src = (f"__global__ void k(float* a, int x) {{ a[threadIdx.x + {terms}] = 0.0f; }}\n"
           "void solution_compute(float* a) { k<<<1, 32>>>(a, 1); }\n")
    r = tagger.tag_source(src, "deep.cu", detectors=DETS, index=False)
    assert r.ok and [lb.id for lb in r.labels] == ["AP-01", "MEM-02"]  # grid of one block


def test_compare_mode_shows_where_substring_rules_disagree(tmp_path):
    import csv as _csv
    import io

    from typer.testing import CliRunner

    from strategylens.cli import app

    src = tmp_path / "k.cu"
    src.write_text(
        "#include <cuda_runtime.h>\n"
        "static const char* kNote = \"no __shared__ tiles, no __syncthreads\";\n"
        "static int blocks_for(int n) { return (n + 255) / 256; }\n"
        "__global__ void add(const float* __restrict__ a, float* b, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) b[i] += a[i];\n"
        "}\n"
        "extern \"C\" void solution_compute(const float* a, float* b, int n) {\n"
        "    float *da, *db;\n"
        "    cudaMalloc(&da, n * sizeof(float)); cudaMalloc(&db, n * sizeof(float));\n"
        "    cudaMemcpy(da, a, n * sizeof(float), cudaMemcpyHostToDevice);\n"
        "    cudaMemcpy(db, b, n * sizeof(float), cudaMemcpyHostToDevice);\n"
        "    add<<<blocks_for(n), 256>>>(da, db, n);\n"
        "    cudaMemcpy(b, db, n * sizeof(float), cudaMemcpyDeviceToHost);\n"
        "    cudaFree(da); cudaFree(db);\n"
        "}\n")
    result = CliRunner().invoke(app, ["tag", str(src), "--detectors", "compare", "--format", "csv",
                                      "--no-cache", "--no-index"])
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r["verdict"] for r in _csv.DictReader(io.StringIO(result.stdout))}
    # keywords in a string and a static helper fool the substring rules only
    assert rows["MEM-02"] == "substring only"
    assert rows["HST-01"] == "substring only"
    assert rows["MEM-01"] == "strategylens only"


def test_tag_task_option_gives_reference_relative_evidence(tmp_path):
    import json as _json

    from typer.testing import CliRunner

    from strategylens import REPO_ROOT
    from strategylens.cli import app

    gold = REPO_ROOT / "tasks" / "sph_density" / "solutions" / "gb-sph_density.cu"
    args = ["tag", str(gold), "--format", "jsonl", "--no-cache", "--no-index"]
    with_task = CliRunner().invoke(app, args + ["--task", "sph_density"])
    without = CliRunner().invoke(app, args)
    assert with_task.exit_code == 0 and without.exit_code == 0
    ids = lambda out: {lab["id"] for lab in _json.loads(out.splitlines()[0])["labels"]}  # noqa: E731
    assert ids(with_task.stdout) - ids(without.stdout) == {"MEM-10"}
    bad = CliRunner().invoke(app, args + ["--task", "no_such_task"])
    assert bad.exit_code == 2 and "no such task" in bad.output


# ---- harness evidence ------------------------------------------------------------------------

def _harness_row(size="medium", flags=(), correct=True, launches=1, d2h=400, out=400, detail=None,
         solution="tests/cheats/static_cache.cu"):
    return {"solution": solution, "size": size, "correct": correct, "audit_flags": list(flags),
            "audit_detail": json.dumps(detail or {f: f"why {f}" for f in flags}),
            "kernel_launches": launches, "d2h_bytes": d2h, "bytes_out": out}


def test_harness_findings_map_flags_and_copies_to_ids():
    found = tagger.harness_findings([
        _harness_row(flags=["stale-output", "host-compute"]),
        _harness_row("large", launches=25, d2h=4000192, out=4000000),  # a per-iteration read-back
        _harness_row("small", launches=100, d2h=400, out=400),          # iterations kept on the device
        _harness_row("small", launches=1, d2h=800, out=400),            # one launch: not iterative
    ])
    assert [(sid, may_add) for sid, _, _, may_add in found] == [
        ("AP-04", True), ("AP-05", True), ("AP-02", True), ("HST-04", False)]
    assert "192 bytes copied back beyond the 4000000 output bytes, over 25" in found[2][2]


def test_harness_findings_ignore_flags_that_follow_from_other_failures():
    wrong = _harness_row(flags=["cross-call-state"], correct=False)  # wrong on every input
    tampered = _harness_row(flags=["host-compute", "timer-tamper"])  # host time from a patched clock
    no_profile = _harness_row(flags=[], launches=float("nan"))
    assert tagger.harness_findings([wrong, tampered, no_profile]) == []


def test_add_harness_evidence_confirms_adds_and_warns():
    src = """
    static float* cache = nullptr;
    __global__ void k(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1; }
    extern "C" void solution_compute(int n, float* y) {
        for (int i = 0; i < n; i++) y[i] = 2.0f * y[i];
    }
    """
    r = tagger.tag_source(src, "s.cu", index=False)
    before = {lb.id for lb in r.labels}
    assert "AP-05" in before
    r = tagger.add_harness_evidence(r, [_harness_row(flags=["stale-output"])])
    ap04 = next(lb for lb in r.labels if lb.id == "AP-04")
    assert ap04.kind == "anti-pattern" and ap04.confidence == 0.95
    assert [(e.line_start, e.detector) for e in ap04.evidence] == [(0, "harness")]
    assert "why stale-output" in ap04.evidence[0].note
    assert r.warnings[-1] == "s.cu: AP-05 is in the code but no harness run (medium) showed it"
    again = tagger.add_harness_evidence(r, [_harness_row(flags=["stale-output"])])
    assert len(next(lb for lb in again.labels if lb.id == "AP-04").evidence) == 1  # no repeats
    assert tagger.add_harness_evidence(r, [_harness_row(launches=50)]).labels == r.labels


def test_rows_for_matches_the_file_and_refuses_ambiguous_names(tmp_path):
    rows = [_harness_row(solution="tests/cheats/static_cache.cu"),
            _harness_row(solution="tasks/bfs/solutions/baseline.cu"),
            _harness_row(solution="tasks/heat2d/solutions/baseline.cu")]
    cheat = Path(__file__).parent / "cheats" / "static_cache.cu"
    assert tagger.rows_for(cheat, rows) == [rows[0]]
    assert tagger.rows_for("/other/checkout/tasks/bfs/solutions/baseline.cu", rows) == [rows[1]]
    assert tagger.rows_for("baseline.cu", rows) == []  # two tasks' baselines: ambiguous
    assert tagger.rows_for(tmp_path / "other.cu", rows) == []


def test_cli_store_adds_the_committed_h200_evidence(tmp_path):
    root = Path(__file__).resolve().parents[1]
    store = root / "analyses" / "h200"
    cheats = root / "tests" / "cheats"
    res = CliRunner().invoke(app, ["tag", str(cheats / "static_cache.cu"),
                                   str(cheats / "nan_output.cu"), "--store", str(store),
                                   "--format", "jsonl", "--no-cache", "--no-index"])
    assert res.exit_code == 0, res.output
    by_file = {Path(d["path"]).name: {lb["id"]: lb for lb in d["labels"]}
               for d in map(json.loads, res.stdout.splitlines())}
    ap04 = by_file["static_cache.cu"]["AP-04"]
    harness = [e for e in ap04["evidence"] if e["detector"] == "harness"]
    assert {e["note"].split(":")[0] for e in harness} == {
        "harness, small", "harness, medium", "harness, large"}
    assert "AP-04" not in by_file["nan_output.cu"]  # wrong on every input is not state
    bad = CliRunner().invoke(app, ["tag", str(cheats / "static_cache.cu"), "--store",
                                   str(tmp_path)])
    assert bad.exit_code == 2 and "not a results store" in bad.stderr


def test_cli_task_auto_gives_each_file_its_tasks_reference(tmp_path):
    root = Path(__file__).resolve().parents[1]
    files = [str(root / "tasks" / "pagerank" / "solutions" / "gh-pagerank_pull.cu"),
             str(root / "tasks" / "spmv_power" / "solutions" / "gh2-spmv_thrust_norm.cu")]
    stray = tmp_path / "stray.cu"
    stray.write_text("__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"
                     "extern \"C\" void solution_compute(float* x) { k<<<1, 32>>>(x); }\n")

    def mem10(args):
        res = CliRunner().invoke(app, ["tag", *args, "--format", "jsonl", "--no-cache",
                                       "--no-index"])
        assert res.exit_code == 0, res.output
        return res, {Path(d["path"]).name for d in map(json.loads, res.stdout.splitlines())
                     if any(lb["id"] == "MEM-10" for lb in d["labels"])}

    # float accumulation is narrower only against these tasks' double-accumulating references
    assert mem10(files)[1] == set()
    res, found = mem10([*files, str(stray), "--task", "auto"])
    assert found == {"gh-pagerank_pull.cu", "gh2-spmv_thrust_norm.cu"}
    assert "1 file(s) under no task folder" in res.stderr


def test_a_loop_over_gpus_is_not_device_resident_iteration():
    from strategylens import REPO_ROOT

    case = REPO_ROOT / "catalog" / "PAR-11-occupancy-tuning" / "cases" / \
        "hip_spelled_launcher_for_cuda.cu"
    r = tagger.tag_source(case.read_bytes(), str(case), index=False)
    ids = {lab.id for lab in r.labels}
    # the HIP launch is seen (PAR-11 from its occupancy query); the loop sets the device each
    # pass, so its launches are one per GPU, not iterations
    assert "PAR-11" in ids and "HST-04" not in ids
