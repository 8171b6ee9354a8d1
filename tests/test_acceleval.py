"""AccelEval tasks from a checkout: loading, generation in the cache, the reference through
task_io_cpu.c (the harness side is in test_acceleval_harness.py).

Everything runs on the miniature checkout of tests/acceleval_fixtures.py (no AccelEval file).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from strategylens import tasks as T
from strategylens.cli import app
from strategylens.tasks import acceleval_gen as G
from strategylens.tasks import acceleval_ref as R
from tests import acceleval_fixtures as F

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A miniature checkout and a cache of its own for the module."""
    base = tmp_path_factory.mktemp("acceleval")
    root = F.make_checkout(base / "AccelEval")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STRATEGYLENS_CACHE", str(base / "cache"))
        mp.delenv(T.ACCELEVAL_ENV, raising=False)
        yield root


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


# ----------------------------------------------------------------------------- loading

def test_every_task_folder_loads_with_its_domain(env):
    tasks, errors = T.scan_tasks(acceleval=env)
    assert errors == []
    assert {t.id: t.domain for t in tasks} == {
        "toy_scale": "hpc", "toy_fixed": "hpc",          # from the README table
        "toy_ctx": "finance", "toy_exact": "graph",      # from task.json categories
        "toy_missing": "operations-research", "toy_slow": "operations-research"}
    assert {t.source for t in tasks} == {"acceleval"}


def test_a_task_maps_its_files_onto_task(env):
    t = T.load_task("toy_scale", acceleval=env)
    assert t.signature == "void solution_compute(int N, const float* x, float a, float* y)"
    assert [(p.name, p.kind, p.dtype, p.direction) for p in t.params] == [
        ("N", "scalar", "i32", "in"), ("x", "array", "f32", "in"), ("a", "scalar", "f32", "in"),
        ("y", "array", "f32", "out")]
    assert (t.correctness.mode, t.correctness.atol, t.correctness.rtol) == ("numeric", 0.001,
                                                                              0.001)
    assert t.compared_outputs == ["output"]
    assert t.extra["timing"] == {"warmup": 3, "trials": 10, "timeout": 60}
    assert t.extra["files"] == ["cpu_reference.c", "task_io.cu", "task_io_cpu.c", "gen_data.py",
                                "gpu_baseline.cu"]
    # sizes are what gen_data.py makes
    assert t.sizes["small"] == {"N": 64}


def test_id_is_the_folder_and_exact_means_exact(env):
    t = T.load_task("toy_exact", acceleval=env)
    assert t.id == "toy_exact" and t.extra["task_json_id"] == "toy_rank"
    assert (t.correctness.mode, t.correctness.atol, t.correctness.rtol) == ("exact", 0.0, 0.0)
    assert any("names task_id 'toy_rank'" in n for n in t.extra["notes"])
    fixed = T.load_task("toy_fixed", acceleval=env)
    assert (fixed.correctness.atol, fixed.correctness.rtol) == (0.001, 0.01)
    assert any("no rtol" in n for n in fixed.extra["notes"])


def test_checkout_from_the_environment_and_bad_paths(env, monkeypatch, tmp_path):
    monkeypatch.setenv(T.ACCELEVAL_ENV, str(env / "tasks"))  # the tasks/ folder works too
    assert T.load_task("toy_ctx").path == (env / "tasks" / "toy_ctx").resolve()
    assert T.suite_dir() == (env / "tasks")
    with pytest.raises(T.TaskError, match="not an AccelEval checkout"):
        T.checkout_root(tmp_path)


def test_cli_lists_and_shows_acceleval_tasks(env):
    res = CliRunner().invoke(app, ["tasks", "list", "--acceleval", str(env), "-f", "json"])
    assert res.exit_code == 0, res.output
    assert sorted(r["id"] for r in json.loads(res.stdout)) == sorted(F.TASK_JSON)
    show = CliRunner().invoke(app, ["tasks", "show", "toy_exact", "--acceleval", str(env)])
    assert show.exit_code == 0, show.output
    assert "AccelEval task toy_rank" in show.stdout and "correctness: exact" in show.stdout
    missing = CliRunner().invoke(app, ["tasks", "show", "nosuch", "--acceleval", str(env)])
    assert missing.exit_code == 2 and "nosuch/task.yaml: no such task file" in missing.stderr


# ----------------------------------------------------------------------------- generation

def test_inputs_come_from_gen_data_in_the_cache_never_the_checkout(env):
    before = _tree(env)
    t = T.load_task("toy_scale", acceleval=env)
    inputs = t.generate("small")
    assert sorted(inputs) == ["N", "a", "a_x1000", "x"]
    assert inputs["x"].dtype == np.float32 and inputs["x"].size == 64
    assert inputs["a"] == 2.5  # the float the scaled integer stands for
    folder = G.input_folder(t, "small", 0)
    assert G.gen_record(folder)["magic"] == "ACCELEVA"  # the writer's magic, read anyway
    assert folder.is_relative_to(Path(G.cache_root()))
    assert [p.name for p in G.side_files(folder)] == ["requests.txt"]
    assert _tree(env) == before  # nothing written, not even __pycache__


def test_threads_of_one_process_make_the_shadow_and_inputs_once(env, tmp_path, monkeypatch):
    # references run in threads (one pid): their private temporary folders must not collide
    # (the H200 run of 2026-12-02 lost every reference to a shared one)
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("STRATEGYLENS_CACHE", str(tmp_path / "cache"))
    t = T.load_task("toy_scale", acceleval=env)
    with ThreadPoolExecutor(8) as pool:
        shadows = set(pool.map(lambda _: G.shadow_tree(t), range(16)))
        folders = set(pool.map(lambda k: G.input_folder(t, "small", k % 2), range(16)))
    assert len(shadows) == 1 and (next(iter(shadows)) / ".complete").exists()
    assert len(folders) == 2 and all((f / "input.bin").exists() for f in folders)
    assert not [p for p in (tmp_path / "cache").rglob(".*") if p.is_dir()]  # no leftovers


def test_other_seeds_give_other_inputs_where_the_generator_is_seeded(env):
    scale = T.load_task("toy_scale", acceleval=env)
    a, b = scale.generate("small", 0)["x"], scale.generate("small", 1)["x"]
    assert not np.array_equal(a, b)
    assert np.array_equal(a, scale.generate("small", 0)["x"])   # deterministic per offset
    assert G.same_as_first(scale, "small", 1) is False
    fixed = T.load_task("toy_fixed", acceleval=env)
    assert G.same_as_first(fixed, "small", 1) is True
    for tid in ("toy_ctx", "toy_exact"):  # RandomState and np.random.seed are shifted too
        t = T.load_task(tid, acceleval=env)
        assert G.same_as_first(t, "small", 1) is False


def test_a_task_that_cannot_generate_says_why(env, monkeypatch):
    missing = T.load_task("toy_missing", acceleval=env)
    with pytest.raises(T.TaskError) as info:
        missing.generate("small")
    msg = str(info.value)
    assert msg.startswith(f"{missing.path / 'gen_data.py'}: size small: gen_data.py failed")
    assert f"CSV not found: {missing.path}/data/instances/legs.csv" in msg  # the user's path
    monkeypatch.setenv(G.TIME_LIMIT_ENV, "2")
    slow = T.load_task("toy_slow", acceleval=env)
    with pytest.raises(T.TaskError, match="ran over the time limit of 2 s"):
        slow.generate("small")


def test_cli_gen_reports_the_input_file(env):
    res = CliRunner().invoke(app, ["tasks", "gen", "toy_scale", "-s", "small", "--seed-offset",
                                   "1", "--acceleval", str(env), "-f", "json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)[0]
    assert row["magic"] == "ACCELEVA" and row["input_bin"].endswith("input.bin")
    assert "/small-s1-" in row["input_bin"]


# ----------------------------------------------------------------------------- reference

def test_reference_runs_through_task_io_cpu(env):
    before = _tree(env)
    t = T.load_task("toy_scale", acceleval=env)
    run = T.run_reference(t, "small", trials=3)
    x = t.generate("small")["x"]
    want = np.round(2.5 * x.astype(np.float64), 6)
    np.testing.assert_allclose(run.outputs["output"], want, atol=1e-6)
    np.testing.assert_array_equal(run.outputs["raw0"].view(np.float32), np.float32(2.5) * x)
    rec = run.record
    assert len(rec["trials_s"]) == 3 and rec["n_values"] == 64
    assert rec["buffers"] == [{"index": 0, "bytes": 256, "poisoned": True, "safe": True}]
    assert rec["poisoned"] == [0] and rec["values_not_in_buffers"] == 0
    assert rec["magic"] == "ACCELEVA" and rec["mutated"] == []
    assert T.run_reference(t, "small", trials=3).cached
    assert _tree(env) == before


def test_outputs_held_in_the_context_are_seen_as_such(env):
    t = T.load_task("toy_ctx", acceleval=env)
    run = T.run_reference(t, "small", trials=2)
    x = t.generate("small")["x"].astype(np.float64)
    np.testing.assert_allclose(run.outputs["output"], [x.sum(), x.max()], rtol=1e-9)
    assert run.record["buffers"] == [] and run.record["values_not_in_buffers"] == 2


def test_a_zero_buffer_that_is_an_input_is_not_poisoned(env, tmp_path):
    # toy_scale with an extra zero "bias" buffer the reference reads: poisoning it changes the
    # answer, so --classify keeps it out of the poisoned set.
    root = F.make_checkout(tmp_path / "ae", ("toy_scale",))
    d = root / "tasks" / "toy_scale"
    for name in ("task_io_cpu.c", "task_io.cu"):
        src = (d / name).read_text()
        src = src.replace("typedef struct { int N; const float* x; float a; float* y; } Ctx;",
                          "typedef struct { int N; const float* x; float a; float* y; "
                          "float* bias; } Ctx;")
        src = src.replace("    return ctx;\n}", "    ctx->bias = (float*)calloc(4, sizeof(float));"
                          "\n    return ctx;\n}", 1)
        src = src.replace("solution_compute(c->N, c->x, c->a, c->y); }",
                          "solution_compute(c->N, c->x, c->a + c->bias[0], c->y); }")
        (d / name).write_text(src)
    t = T.load_task(d)
    run = T.run_reference(t, "small", trials=2)
    assert [(b["bytes"], b["safe"]) for b in run.record["buffers"]] == [(256, True), (16, False)]
    assert run.record["poisoned"] == [0]


def test_a_reference_with_state_between_calls_fails(env, tmp_path):
    root = F.make_checkout(tmp_path / "ae", ("toy_scale",))
    ref = root / "tasks" / "toy_scale" / "cpu_reference.c"
    ref.write_text("static int calls;\nvoid solution_compute(int N, const float* x, float a, "
                   "float* y) {\n  calls++;\n  for (int i = 0; i < N; i++) y[i] = a * x[i] + "
                   "calls;\n}\n")
    with pytest.raises(T.TaskError, match="calls of the reference disagree"):
        T.run_reference(T.load_task(root / "tasks" / "toy_scale"), "small", trials=2)


def test_parse_values_reads_every_number_and_names_bad_files(tmp_path):
    f = tmp_path / "out.txt"
    f.write_text("1.5 -2e-3\nnan\n7 8 9\n")
    np.testing.assert_array_equal(R.parse_values(f), [1.5, -2e-3, np.nan, 7, 8, 9])
    f.write_text("1.0\nnot-a-number\n")
    with pytest.raises(T.TaskError, match="out.txt: not a number: 'not-a-number'"):
        R.parse_values(f)
