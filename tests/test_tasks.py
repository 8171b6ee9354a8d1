"""Task suite: loading, generators, references and their checksums, comparison modes, AccelEval."""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from strategylens import tasks as T
from strategylens.cli import app
from strategylens.tasks.own import OWN

FIXTURES = Path(__file__).parent / "fixtures" / "acceleval"

REQUIRED = {
    "black_scholes": "void solution_compute(const float* S, const float* X, const float* T, "
                     "int n, float r, float v, float* call, float* put)",
    "heat2d": "void solution_compute(const float* grid_in, int rows, int cols, int steps, "
              "float alpha, float* grid_out)",
    "spmv_power": "void solution_compute(int n, const int* row_ptr, const int* col_idx, const "
                  "float* vals, const float* x0, int iters, float* x_out)",
    "bfs": "void solution_compute(int n, const int* row_ptr, const int* col_idx, int source, "
           "int* levels)",
    "pagerank": "void solution_compute(int n, const int* in_ptr, const int* in_idx, const int* "
                "out_deg, float damping, float tol, int max_iters, float* rank)",
    "pairwise_dist": "void solution_compute(const float* X, int n, const float* Y, int m, int d, "
                     "float* dist)",
    "histogram": "void solution_compute(const int* keys, int n, int num_bins, unsigned int* hist)",
    "smith_waterman": "void solution_compute(int num_pairs, const char* a_seqs, const int* a_off, "
                      "const int* a_len, const char* b_seqs, const int* b_off, const int* b_len, "
                      "int match, int mismatch, int gap, int* scores)",
}
DOMAIN_OF = {
    "black_scholes": "finance", "mc_asian": "finance",
    "heat2d": "hpc", "spmv_power": "hpc", "histogram": "hpc",
    "bfs": "graph", "pagerank": "graph",
    "pairwise_dist": "spatial-temporal", "smith_waterman": "spatial-temporal",
    "sph_density": "scientific-simulation", "nbody": "scientific-simulation",
    "knapsack": "operations-research", "inventory_dp": "operations-research",
}
TASK_IDS = sorted(DOMAIN_OF)


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    """One cache per test session, outside the repo and the user's home."""
    monkeypatch.setenv("STRATEGYLENS_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


# ------------------------------------------------------------------------- loading and CLI

def test_every_task_loads_with_its_domain():
    tasks = T.list_tasks()
    assert {t.id: t.domain for t in tasks} == DOMAIN_OF
    assert {t.domain for t in tasks} == set(T.DOMAINS)
    per_domain = Counter(t.domain for t in tasks)
    assert per_domain == {"hpc": 3, "graph": 2, "spatial-temporal": 2, "finance": 2,
                          "operations-research": 2, "scientific-simulation": 2}
    for t in tasks:
        assert set(t.sizes) == {"small", "medium", "large"}
        assert (t.path / "reference.c").exists() and (t.path / "gen.py").exists()


def test_cli_list_json_shows_the_required_signatures():
    res = CliRunner().invoke(app, ["tasks", "list", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert sorted(r["id"] for r in rows) == TASK_IDS
    by_id = {r["id"]: r for r in rows}
    for task_id, signature in REQUIRED.items():
        assert by_id[task_id]["signature"] == signature
    for r in rows:
        assert set(r["sizes"]) == {"small", "medium", "large"}
        assert r["domain"] == DOMAIN_OF[r["id"]]


def test_cli_show_prints_bytes_per_size():
    res = CliRunner().invoke(app, ["tasks", "show", "knapsack", "--format", "json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)[0]
    # weights + values in (4 bytes each per item); best out (capacity + 1 ints).
    assert row["bytes"]["small"] == {"in": 60 * 8, "out": 2001 * 4}
    assert row["bytes"]["large"] == {"in": 6000 * 8, "out": 1000001 * 4}


def test_cli_unknown_task_is_a_usage_error():
    res = CliRunner().invoke(app, ["tasks", "show", "no_such_task"])
    assert res.exit_code == 2
    assert "no_such_task" in res.stderr


def test_cli_gen_writes_reproducible_inputs(tmp_path):
    res = CliRunner().invoke(app, ["tasks", "gen", "bfs", "--size", "small", "--seed-offset",
                                   "2", "--out", str(tmp_path), "--format", "json"])
    assert res.exit_code == 0, res.output
    meta = json.loads((tmp_path / "meta.json").read_text())
    assert meta["seed"] == T.load_task("bfs").seed + 2
    expected = T.load_task("bfs").generate("small", seed_offset=2)
    with np.load(tmp_path / "inputs.npz") as data:
        assert sorted(data.files) == ["col_idx", "row_ptr"]
        for name in data.files:
            np.testing.assert_array_equal(data[name], expected[name])
    assert meta["scalars"]["source"] == expected["source"]


def test_cli_reference_records_trials_and_machine():
    res = CliRunner().invoke(app, ["tasks", "reference", "histogram", "--size", "small",
                                   "--trials", "3", "--remeasure", "--format", "json"])
    assert res.exit_code == 0, res.output
    rec = json.loads(res.stdout)[0]
    assert len(rec["trials_s"]) == 3
    assert rec["median_s"] == pytest.approx(float(np.median(rec["trials_s"])))
    for key in ("cpu_model", "gcc", "hostname", "utc", "cpu", "commit"):
        assert key in rec
    assert rec["gcc"].startswith("gcc")
    assert rec["output_sha256"] == T.committed_checksum(T.load_task("histogram"))


# ------------------------------------------------------------------------- validation

def _copy_task(tmp_path: Path, task_id: str = "knapsack") -> Path:
    dst = tmp_path / task_id
    shutil.copytree(T.TASKS_DIR / task_id, dst)
    return dst


@pytest.mark.parametrize("old,new,field", [
    ("dtype: i32, direction: in, length: n_items}", "dtype: f16, direction: in, length: n_items}",
     "params[1].dtype"),
    ("domain: operations-research", "domain: chemistry", "domain"),
    ("mode: exact", "mode: fuzzy", "correctness.mode"),
    ("int capacity, int* best)", "int capacity, float* best)", "params[4].dtype"),
    ("  large: {n_items: 6000, capacity: 1000000}\n", "", "sizes"),
    ("id: knapsack", "id: knapsack2", "id"),
])
def test_bad_task_yaml_names_file_and_field(tmp_path, old, new, field):
    folder = _copy_task(tmp_path)
    text = (folder / "task.yaml").read_text()
    assert old in text
    (folder / "task.yaml").write_text(text.replace(old, new, 1))
    with pytest.raises(T.TaskError) as info:
        T.load_task(folder)
    assert str(folder / "task.yaml") in str(info.value)
    assert f"'{field}'" in str(info.value)


def test_scan_reports_a_bad_task_and_keeps_the_others(tmp_path):
    _copy_task(tmp_path, "knapsack")
    bad = _copy_task(tmp_path, "bfs")
    (bad / "task.yaml").write_text("id: bfs\nname: [unclosed\n")
    tasks, errors = T.scan_tasks(tmp_path)
    assert [t.id for t in tasks] == ["knapsack"]
    assert len(errors) == 1 and str(bad / "task.yaml") in errors[0]


def test_generator_output_must_match_the_declared_dtype(tmp_path):
    folder = _copy_task(tmp_path)
    gen = (folder / "gen.py").read_text().replace('w.astype(np.int32)', 'w.astype(np.int64)')
    (folder / "gen.py").write_text(gen)
    with pytest.raises(T.TaskError, match="'weights' has dtype int64, task says i32"):
        T.load_task(folder).generate("small")


# ------------------------------------------------------------------------- generators

@pytest.mark.parametrize("task_id", TASK_IDS)
def test_generator_is_deterministic(task_id):
    task = T.load_task(task_id)
    a, b = task.generate("small"), task.generate("small")
    other = task.generate("small", seed_offset=1)
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            np.testing.assert_array_equal(a[k], b[k])
            assert a[k].dtype == b[k].dtype
        else:
            assert a[k] == b[k]
    arrays = [p.name for p in task.params if p.kind == "array" and p.direction != "out"]
    assert any(a[k].shape != other[k].shape or not np.array_equal(a[k], other[k])
               for k in arrays), "seed offset 1 gave the same arrays"


# ------------------------------------------------------------------------- references

@pytest.mark.parametrize("task_id", TASK_IDS)
def test_reference_small_matches_committed_checksum(task_id):
    task = T.load_task(task_id)
    run = T.run_reference(task, "small", trials=2, remeasure=True)  # 2 trials: no state kept
    for name, arr in run.outputs.items():  # every element written: no poison left
        if arr.dtype.kind == "f":
            assert not np.isnan(arr).any(), name
        else:
            assert not (arr == T.DTYPES[task.param(name).dtype].poison).any(), name
    assert T.output_checksum(task, run.outputs) == T.committed_checksum(task)
    assert run.record["output_sha256"] == T.committed_checksum(task)


def test_reference_results_are_cached_and_rechecked(tmp_path):
    task = T.load_task("heat2d")
    first = T.run_reference(task, "small", trials=1, remeasure=True)
    again = T.run_reference(task, "small", trials=1)
    assert again.cached and not first.cached
    np.testing.assert_array_equal(first.outputs["grid_out"], again.outputs["grid_out"])
    assert T.run_reference(task, "small", trials=2).cached is False  # more trials than stored


def test_reference_with_state_between_calls_is_rejected(tmp_path):
    folder = _copy_task(tmp_path, "histogram")
    (folder / "reference.c").write_text(
        "static unsigned int calls;\n"
        "void solution_compute(const int* keys, int n, int num_bins, unsigned int* hist)\n"
        "{\n    for (int b = 0; b < num_bins; b++) hist[b] = calls;\n"
        "    (void)keys; (void)n;\n    calls++;\n}\n")
    with pytest.raises(T.TaskError, match="differs between trials"):
        T.run_reference(T.load_task(folder), "small", trials=2)


def test_reference_that_fails_to_compile_reports_gcc(tmp_path):
    folder = _copy_task(tmp_path, "histogram")
    (folder / "reference.c").write_text(
        "void solution_compute(const int* keys, int n, int num_bins, unsigned int* hist)\n"
        "{ int unused; (void)keys; (void)n; (void)num_bins; (void)hist; }\n")
    with pytest.raises(T.TaskError, match="unused variable"):
        T.build_reference(T.load_task(folder))


def test_call_checks_array_lengths():
    import ctypes

    task = T.load_task("histogram")
    fn = task.bind(ctypes.CDLL(str(T.build_reference(task))).solution_compute)
    inputs = task.generate("small")
    outputs = {"hist": np.zeros(10, dtype=np.uint32)}
    with pytest.raises(T.TaskError, match="'hist' has 10 elements"):
        task.call(fn, inputs, outputs)


# ------------------------------------------------------------------------- comparison

def _task(mode: str, dtype: str = "f32", **corr) -> T.Task:
    params = [T.Param("n", "scalar", "i32"), T.Param("out", "array", dtype, "out", "n")]
    return T.Task(id="toy", name="toy", domain="hpc", summary="", description="",
                  signature=None, params=params, sizes={}, seed=0,
                  correctness=T.Correctness(mode=mode, **corr), path=Path("."), format=OWN)


def _cmp(task, got, want, **kw):
    return T.compare(task, {"out": np.asarray(got)}, {"out": np.asarray(want)}, **kw)


def test_numeric_uses_atol_plus_rtol_times_reference():
    task = _task("numeric", atol=0.01, rtol=0.1, tight={"atol": 0.0, "rtol": 1e-6})
    want = np.array([1.0, 10.0, 100.0, 0.0], dtype=np.float32)
    ok = _cmp(task, [1.10, 10.9, 109.0, 0.01], want)
    assert ok.ok and ok.mismatches == 0
    bad = _cmp(task, [1.12, 10.0, 112.0, -0.02], want)
    assert not bad.ok and bad.mismatches == 3
    assert bad.max_abs_err == pytest.approx(12.0, rel=1e-6)
    assert "[0]" in bad.detail and "[2]" in bad.detail
    assert not _cmp(task, [1.10, 10.9, 109.0, 0.01], want, tight=True).ok


def test_numeric_counts_and_reports_mismatches_across_chunks():
    n = 3 * T._CHUNK + 11  # four chunks, the last one short
    rng = np.random.default_rng(3)
    want = rng.random(n).astype(np.float32) + 1.0
    got = want.copy()
    where = [7, T._CHUNK - 1, T._CHUNK, 2 * T._CHUNK + 5, n - 1]
    got[where] += np.float32(0.5)
    got[n - 1] = np.nan
    got[T._CHUNK + 9] += np.float32(5.0)
    res = _cmp(_task("numeric", atol=1e-3, rtol=1e-3), got, want)
    assert res.mismatches == 6 and res.nan_count == 1
    assert res.max_abs_err == pytest.approx(5.0, rel=1e-6)
    assert res.detail.startswith(f"out: 6 of {n} differ: [7] ")
    assert f"[{T._CHUNK - 1}]" in res.detail and f"[{T._CHUNK}]" in res.detail
    assert f"[{2 * T._CHUNK + 5}]" not in res.detail  # only the first three are shown


_SPECIAL = st.sampled_from([0.0, -0.0, 1.0, 1e-3, 1e30, np.nan, np.inf, -np.inf])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.one_of(_SPECIAL, st.floats(-1e3, 1e3, width=32)),
                          st.one_of(_SPECIAL, st.floats(-1e3, 1e3, width=32))),
                min_size=1, max_size=40),
       st.booleans())
def test_elementwise_rule_holds_for_special_values(pairs, exact):
    a = np.array([p[0] for p in pairs], dtype=np.float32)
    b = np.array([p[1] for p in pairs], dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(a) & np.isfinite(b)
        special = (np.isnan(a) & np.isnan(b)) | (np.isinf(b) & (a == b))
        a64, b64 = a.astype(float), b.astype(float)
        close = (a == b) if exact else (np.abs(a64 - b64) <= 1e-3 + 1e-3 * np.abs(b64))
        want_bad = int((~((close & (finite | exact)) | special)).sum())
    task = _task("exact" if exact else "numeric", atol=1e-3, rtol=1e-3)
    res = _cmp(task, a, b)
    assert res.mismatches == want_bad and res.nan_count == int(np.isnan(a).sum())
    assert math.isfinite(res.max_abs_err) and math.isfinite(res.max_rel_err)


def test_numeric_nan_and_inf_fail_unless_the_reference_has_them():
    task = _task("numeric", atol=1e-3, rtol=1e-3)
    nan, inf = np.nan, np.inf
    res = _cmp(task, [nan, 1.0, inf, 2.0], [1.0, 1.0, 1e30, 2.0])
    assert not res.ok and res.mismatches == 2 and res.nan_count == 1
    assert _cmp(task, [nan, inf, -inf], [nan, inf, -inf]).ok
    assert _cmp(task, [-inf, 0.0], [inf, 0.0]).mismatches == 1
    assert _cmp(task, [1.0], [nan]).mismatches == 1


def test_poisoned_outputs_fail_every_mode():
    for mode, dtype in (("numeric", "f32"), ("exact", "i32"), ("exact", "u32"),
                        ("label-permutation", "i32"), ("set", "i32")):
        task = _task(mode, dtype, atol=1e-3, rtol=1e-3)
        fresh = task.new_outputs({"n": 4})["out"]
        want = np.arange(4).astype(fresh.dtype)
        res = _cmp(task, fresh, want)
        assert not res.ok, mode
        if dtype == "f32":
            assert np.isnan(fresh).all() and res.nan_count == 4
        else:
            assert (fresh == 0x7F7F7F7F).all()
    assert (_task("exact", "i32").new_outputs({"n": 3}, poison=False)["out"] == 0).all()


def test_exact_counts_each_differing_element():
    task = _task("exact", "i32")
    res = _cmp(task, [1, 2, 3, 5], [1, 2, 4, 4])
    assert not res.ok and res.mismatches == 2 and res.max_abs_err == 1.0
    assert _cmp(_task("exact", "f32"), [0.1, 0.2], [0.1, 0.2]).ok


def test_label_permutation_accepts_renaming_and_rejects_merge_and_split():
    task = _task("label-permutation", "i32")
    want = [0, 0, 1, 1, 1, 2]
    assert _cmp(task, [7, 7, 3, 3, 3, 9], want).ok
    merged = _cmp(task, [7, 7, 3, 3, 3, 3], want)  # clusters 1 and 2 merged
    assert not merged.ok and merged.mismatches == 1
    split = _cmp(task, [7, 8, 3, 3, 3, 9], want)  # cluster 0 split
    assert not split.ok and split.mismatches == 1


def test_label_permutation_keeps_the_noise_label_fixed():
    task = _task("label-permutation", "i32", noise_label=-1)
    want = [-1, 0, 0, 1, 1, -1]
    assert _cmp(task, [-1, 5, 5, 6, 6, -1], want).ok
    res = _cmp(task, [4, 5, 5, 6, 6, -1], want)  # a noise point given a cluster label
    assert not res.ok and res.mismatches == 1
    swapped = _cmp(task, [0, -1, -1, 1, 1, 0], want)  # noise renamed: not allowed
    assert not swapped.ok and swapped.mismatches == 4
    # Without a noise label the same renaming is a valid permutation.
    assert _cmp(_task("label-permutation", "i32"), [0, -1, -1, 1, 1, 0], want).ok


def test_set_mode_ignores_order_but_not_multiplicity():
    task = _task("set", "i32")
    assert _cmp(task, [3, 1, 2, 2], [2, 1, 2, 3]).ok
    res = _cmp(task, [1, 1, 2, 3], [1, 2, 2, 3])
    assert not res.ok and res.mismatches == 1
    ftask = _task("set", "f32", atol=1e-3, rtol=0.0)
    assert _cmp(ftask, [2.0005, 1.0], [1.0, 2.0]).ok


def test_missing_or_resized_outputs_fail():
    task = _task("exact", "i32")
    assert not T.compare(task, {}, {"out": np.zeros(2, np.int32)}).ok
    res = _cmp(task, [1, 2, 3], [1, 2])
    assert not res.ok and "3 elements, reference has 2" in res.detail


def test_checksum_ignores_last_bit_float_differences():
    task = _task("numeric")
    x = np.array([1.0, 3.14159, -2.5e-7, 0.0, np.nan], dtype=np.float32)
    y = np.nextafter(x, np.float32(np.inf))
    y[3], y[4] = -0.0, np.nan
    assert T.output_checksum(task, {"out": x}) == T.output_checksum(task, {"out": y})
    z = x.copy()
    z[1] = 3.143  # differs in the 4th significant digit
    assert T.output_checksum(task, {"out": x}) != T.output_checksum(task, {"out": z})


# ------------------------------------------------------------------------- AccelEval

def test_acceleval_reader_accepts_both_magics():
    for name in ("orbench.bin", "acceleva.bin"):
        data = T.read_acceleval_input(FIXTURES / name)
        assert sorted(data) == ["N", "eps_x10000", "ids", "minPts", "w", "xs"]
        np.testing.assert_array_equal(data["xs"], np.array([0.5, 1.5, -2.25], np.float32))
        np.testing.assert_array_equal(data["ids"], np.array([7, -1, 3, 2147483647], np.int32))
        np.testing.assert_array_equal(data["w"], np.array([1e-300, 2.5]))
        assert data["xs"].dtype == np.float32 and data["w"].dtype == np.float64
        assert (data["N"], data["minPts"], data["eps_x10000"]) == (3, 4, 2500)


@pytest.mark.parametrize("name,message", [
    ("truncated.bin", "truncated: tensor 'w' needs bytes"),
    ("badmagic.bin", "bad magic b'NOTBENCH'"),
])
def test_acceleval_reader_rejects_broken_files(name, message):
    with pytest.raises(T.TaskError) as info:
        T.read_acceleval_input(FIXTURES / name)
    assert str(FIXTURES / name) in str(info.value) and message in str(info.value)


def test_acceleval_reader_rejects_a_short_header(tmp_path):
    f = tmp_path / "input.bin"
    f.write_bytes(b"ORBENCH\0\x01\0")
    with pytest.raises(T.TaskError, match="header needs 32"):
        T.read_acceleval_input(f)


def test_acceleval_task_maps_onto_task():
    task = T.load_task(FIXTURES / "toy_dbscan")
    assert task.source == "acceleval"
    assert (task.id, task.domain, task.correctness.mode) == ("toy_dbscan", "spatial-temporal",
                                                             "numeric")
    assert task.signature == ("void solution_compute(int N, const float* xs, const float* ys, "
                              "float eps, int minPts, int* labels)")
    assert [(p.name, p.kind, p.dtype, p.direction) for p in task.params] == [
        ("N", "scalar", "i32", "in"), ("xs", "array", "f32", "in"),
        ("ys", "array", "f32", "in"), ("eps", "scalar", "f32", "in"),
        ("minPts", "scalar", "i32", "in"), ("labels", "array", "i32", "out")]
    assert "params.length" in task.unknown
    inputs = task.generate("small")
    np.testing.assert_array_equal(inputs["ys"], np.array([0.0, 0.5, 1.0], np.float32))
    assert inputs["eps"] == 0.25 and inputs["N"] == 3


def test_build_reference_is_safe_from_parallel_threads(tmp_path, monkeypatch):
    # Threads of one process building the same reference must not race on one temporary file.
    from concurrent.futures import ThreadPoolExecutor

    import strategylens.tasks as tasks_mod

    monkeypatch.setenv("STRATEGYLENS_CACHE", str(tmp_path))
    task = tasks_mod.load_task("histogram")
    with ThreadPoolExecutor(4) as pool:
        libs = list(pool.map(lambda _: tasks_mod.build_reference(task), range(4)))
    assert len(set(libs)) == 1 and libs[0].exists()
    assert [p.name for p in libs[0].parent.iterdir() if p.name.startswith(".")] == []


# ------------------------------------------------------------------------- corpus layout

def test_task_of_solution_from_folders_and_labels(tmp_path):
    ids = {"bfs", "heat2d"}
    assert T.task_of_solution(tmp_path / "corpus" / "bfs" / "model-a" / "s1.cu", ids) == "bfs"
    # the deepest matching folder wins
    assert T.task_of_solution(tmp_path / "heat2d" / "bfs" / "s.cu", ids) == "bfs"
    gold = tmp_path / "gold"
    gold.mkdir()
    (gold / "labels.yaml").write_text("a.cu:\n  task: heat2d\nb.cu:\n  task: nosuch\n")
    assert T.task_of_solution(gold / "a.cu", ids) == "heat2d"
    assert T.task_of_solution(gold / "b.cu", ids) is None      # not a known task
    assert T.task_of_solution(gold / "c.cu", ids) is None      # not in labels.yaml
    (gold / "labels.yaml").write_text("::: not yaml [")
    assert T.task_of_solution(gold / "a.cu", ids) is None


def test_run_groups_a_corpus_by_task(tmp_path, monkeypatch):
    from strategylens import harness

    corpus = tmp_path / "corpus"
    for rel in ("bfs/m1/s0.cu", "bfs/m2/s0.cu", "heat2d/m1/s0.cu", "misc/x.cu"):
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text("// empty\n")
    calls = []

    def fake_benchmark(task, files, sizes, store, cfg, **kw):
        calls.append((task.id, sorted(f.relative_to(corpus).as_posix() for f in files), sizes))
        return [{"task": task.id, "solution": str(f), "size": sizes[0], "correct": True,
                 "audit_flags": []} for f in files]

    monkeypatch.setattr(harness, "benchmark", fake_benchmark)
    res = CliRunner().invoke(app, ["run", str(corpus), "--sizes", "small",
                                   "--store", str(tmp_path / "store"), "-f", "json"])
    assert res.exit_code == 0, res.output
    assert sorted(calls) == [("bfs", ["bfs/m1/s0.cu", "bfs/m2/s0.cu"], ["small"]),
                             ("heat2d", ["heat2d/m1/s0.cu"], ["small"])]
    assert "misc/x.cu: no task" in res.stderr
    none = CliRunner().invoke(app, ["run", str(corpus / "misc")])
    assert none.exit_code == 2 and "no solution could be matched to a task" in none.stderr
    bad = CliRunner().invoke(app, ["run", str(corpus / "bfs"), "--sizes", "huge"])
    assert bad.exit_code == 2 and "bfs/task.yaml: no size huge" in bad.stderr


# ------------------------------------------------------------------------- the loader boundary

def test_each_format_loads_its_folders_into_one_task_type():
    own = T.load_task("heat2d")
    ae = T.load_task(FIXTURES / "toy_dbscan")
    assert (own.format, ae.format) == (T.OWN, T.ACCELEVAL)
    assert (own.source, ae.source) == ("strategylens", "acceleval")
    assert type(own) is type(ae) is T.Task
    assert own.reference_file().name == "reference.c"
    assert ae.reference_file().name == "cpu_reference.c"
    assert [f.name for f in T.FORMATS] == ["strategylens", "acceleval"]


def test_inputs_come_from_the_tasks_format():
    class Constant(T.TaskFormat):
        name = "constant"

        def generate(self, task, size, seed_offset):
            return {"n": 3, "seen": (size, seed_offset)}

    task = _task("exact", "i32")
    task.sizes = {"small": {}}
    task.format = Constant()
    assert task.generate("small", 2) == {"n": 3, "seen": ("small", 2)}
    assert task.source == "constant"
    with pytest.raises(T.TaskError, match="no size 'large'"):
        task.generate("large")


def test_content_hash_covers_the_formats_files_in_order():
    import hashlib

    task = T.load_task("heat2d")
    h = hashlib.sha256()
    for name in ("task.yaml", "gen.py", "reference.c"):
        h.update(name.encode() + b"\0" + (task.path / name).read_bytes() + b"\0")
    assert task.content_hash() == h.hexdigest()


def test_threaded_comparison_gives_the_same_result():
    n = 5 * T._CHUNK + 7
    rng = np.random.default_rng(5)
    want = rng.random(n).astype(np.float32)
    got = want.copy()
    got[[3, T._CHUNK + 1, 4 * T._CHUNK, n - 1]] += np.float32(1.0)
    got[2 * T._CHUNK] = np.nan
    task = _task("numeric", atol=1e-3, rtol=1e-3)
    one, four = _cmp(task, got, want), _cmp(task, got, want, threads=4)
    assert one.as_dict() == four.as_dict()
    assert one.mismatches == 5 and one.detail.startswith(f"out: 5 of {n} differ: [3] ")
