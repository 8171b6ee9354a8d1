"""AccelEval run folders: samples with their model, level and stage for `run` and `tag`, and
`results import` of eval_results files beside strategylens's results (miniature folders written
for the tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from strategylens import runfolders as RF
from strategylens import store
from strategylens.cli import app
from tests import acceleval_fixtures as F


def test_run_names():
    assert RF.parse_run_name("gpt-5_l3_20260101_1200") == {
        "model": "gpt-5", "level": 3, "stage": "s1", "stamp": "20260101_1200", "tag": None}
    assert RF.parse_run_name("gemini-3.1-pro_l3s2_20260102_0930")["stage"] == "s2"
    assert RF.parse_run_name("gemini-3.1-pro_l3s2c_20260102_0930")["stage"] == "s2c"
    agent = RF.parse_run_name("claude_l2_agent_mt_20260103_1010")
    assert (agent["model"], agent["level"], agent["tag"]) == ("claude", 2, "agent_mt")
    assert RF.parse_run_name("results") is None
    assert RF.parse_run_name("model_l3_2026") is None


def test_samples_take_model_level_and_stage(tmp_path):
    run = F.make_run(tmp_path, model="org/coder-1", level=2, stage="s2",
                     samples={"toy_scale": {0: "//a\n", 3: "//b\n"}})
    got = RF.samples_by_path(sorted(run.rglob("*.cu")))
    rows = sorted((s.task, s.sample, s.model, s.level, s.stage, s.run) for s in got.values())
    assert rows == [("toy_scale", 0, "org/coder-1", 2, "s2", run.name),
                    ("toy_scale", 3, "org/coder-1", 2, "s2", run.name)]
    # no meta: the model comes from the folder names, nested below runs/
    nested = tmp_path / "runs" / "org" / "coder-2_l3s2c_20260101_1200" / "toy_ctx"
    nested.mkdir(parents=True)
    (nested / "sample_1.cu").write_text("//\n")
    (nested / "sample_1_meta.json").write_text("{not json")
    s = RF.sample_of(nested / "sample_1.cu")
    assert (s.model, s.level, s.stage, s.sample) == ("org/coder-2", 3, "s2c", 1)
    assert RF.sample_of(tmp_path / "elsewhere" / "sample_0.cu") is None
    assert RF.sample_of(run / "toy_scale" / "solution.cu") is None


def _eval(run: Path, name: str, entries: dict) -> Path:
    f = run / name
    f.write_text(json.dumps(entries))
    return f


def _entry(correct: bool, mean: float, cpu: float, size: str = "small") -> dict:
    return {"compiled": True, "compile_error": "", "correct": correct,
            "correctness_detail": {size: correct},
            "benchmark": {"e2e_time_ms": {"mean": mean, "std": 0.0, "min": mean * 0.9,
                                          "max": mean * 1.1, "num_trials": 5},
                          "kernel_time_ms": None, "cpu_baseline_ms": cpu,
                          "speedup_e2e": cpu / mean, "speedup_kernel": -1.0, "size_name": size,
                          "hardware": "NVIDIA H200"},
            "error": "" if correct else "Output mismatch on 'small': value 3: diff 1.0e+00"}


@pytest.fixture
def run_with_results(tmp_path):
    run = F.make_run(tmp_path, samples={"toy_scale": {0: "//0\n", 1: "//1\n", 2: "//2\n"},
                                        "toy_exact": {0: "//e\n"}})
    _eval(run, "eval_results_20260101_130000.json", {
        "toy_scale_sample_0": _entry(True, 2.0, 100.0),
        "toy_scale_sample_1": _entry(False, 1.0, 100.0),
        "toy_exact_sample_0": _entry(True, 4.0, 40.0)})
    _eval(run, "eval_results_20260101_140000.json", {   # the later evaluation wins
        "toy_scale_sample_1": _entry(True, 1.0, 100.0),
        "toy_scale_sample_2": _entry(True, 0.5, 100.0)})
    return run


def test_eval_results_are_read_per_sample(run_with_results):
    rows = RF.read_eval_results(run_with_results)
    assert [(r["task"], r["sample"], r["eval_file"], r["correct"]) for r in rows] == [
        ("toy_exact", 0, "eval_results_20260101_130000.json", True),
        ("toy_scale", 0, "eval_results_20260101_130000.json", True),
        ("toy_scale", 1, "eval_results_20260101_140000.json", True),
        ("toy_scale", 2, "eval_results_20260101_140000.json", True)]
    r = rows[1]
    assert (r["e2e_ms_mean"], r["cpu_baseline_ms"], r["speedup_e2e"], r["trials"]) == (
        2.0, 100.0, 50.0, 5)
    assert r["speedup_kernel"] is None  # AccelEval's -1
    assert r["path"] == str((run_with_results / "toy_scale" / "sample_0.cu").resolve())


def test_bad_eval_results_name_the_file(tmp_path):
    with pytest.raises(RF.RunFolderError, match="no eval_results"):
        RF.read_eval_results(tmp_path)
    f = _eval(tmp_path, "eval_results_x.json", {"no-sample-key": {}})
    with pytest.raises(RF.RunFolderError, match="eval_results_x.json: entry 'no-sample-key'"):
        RF.read_eval_results(f)
    f.write_text("[1, 2")
    with pytest.raises(RF.RunFolderError, match="eval_results_x.json: not readable JSON"):
        RF.read_eval_results(f)


def _store_rows(run: Path, store_dir: Path) -> None:
    def row(task, k, correct, med, cpu, flags, status="ok"):
        return {"task": task, "solution": str(run / task / f"sample_{k}.cu"), "size": "small",
                "status": status, "correct": correct, "e2e_ms_median": med, "cpu_ms": cpu,
                "speedup": cpu / med if correct else None, "audit_flags": flags}
    for r in (row("toy_scale", 0, True, 2.2, 80.0, []),
              row("toy_scale", 1, False, 0.1, 80.0, ["stale-output"]),
              row("toy_exact", 0, True, 20.0, 40.0, [])):
        store.append(store_dir, r)


def test_side_by_side_says_where_they_disagree(run_with_results, tmp_path):
    _store_rows(run_with_results, tmp_path / "store")
    sl = store.read_results(tmp_path / "store").to_dict("records")
    rows = {(r["task"], r["sample"]): r for r in RF.side_by_side(
        RF.read_eval_results(run_with_results), sl)}
    agree = rows[("toy_scale", 0)]
    assert agree["disagreement"] == ""
    assert (agree["ae_speedup"], agree["sl_speedup"]) == (50.0, pytest.approx(80.0 / 2.2))
    assert agree["sl_speedup_on_ae_cpu"] == pytest.approx(100.0 / 2.2)
    cheat = rows[("toy_scale", 1)]
    assert cheat["disagreement"] == ("AccelEval passes, strategylens fails (wrong answer); "
                                     "strategylens audit: stale-output; GPU time differs 0.10x "
                                     "(strategylens median / AccelEval mean)")
    assert rows[("toy_exact", 0)]["disagreement"] == ("GPU time differs 5.00x (strategylens "
                                                      "median / AccelEval mean)")
    assert rows[("toy_scale", 2)]["disagreement"] == "not run by strategylens at this size"


def test_results_import_cli_writes_the_table_into_the_store(run_with_results, tmp_path):
    _store_rows(run_with_results, tmp_path / "store")
    res = CliRunner().invoke(app, ["results", "import", str(run_with_results), "--store",
                                   str(tmp_path / "store"), "-o", str(tmp_path / "t.csv"),
                                   "-f", "json"])
    assert res.exit_code == 1, res.output   # samples disagree
    rows = json.loads(res.stdout)
    assert [(r["task"], r["sample"]) for r in rows] == [("toy_exact", 0), ("toy_scale", 0),
                                                        ("toy_scale", 1), ("toy_scale", 2)]
    saved = pd.read_parquet(tmp_path / "store" / "imports" / "acceleval" /
                            f"{run_with_results.name}.parquet")
    assert list(saved["sample"]) == [0, 0, 1, 2]
    assert pd.read_csv(tmp_path / "t.csv")["ae_correct"].tolist() == [True] * 4
    bad = CliRunner().invoke(app, ["results", "import", str(tmp_path / "nothing")])
    assert bad.exit_code == 2 and "no eval_results_*.json" in bad.stderr


def test_run_takes_a_run_folder_with_its_authors(tmp_path, monkeypatch):
    from strategylens import harness

    checkout = F.make_checkout(tmp_path / "AccelEval", ("toy_scale", "toy_exact"))
    run = F.make_run(tmp_path, model="acme/coder", level=3, stage="s2c",
                     samples={"toy_scale": {0: "//\n", 1: "//\n"}, "toy_exact": {4: "//\n"}})
    calls = []

    def fake_benchmark(task, files, sizes, store_dir, cfg, **kw):
        meta = kw["solution_meta"]
        calls.append((task.id, task.source, sorted(
            (Path(f).name, meta[str(Path(f).resolve())]["author"],
             meta[str(Path(f).resolve())]["stage"]) for f in files)))
        return [{"task": task.id, "solution": str(f), "size": sizes[0], "correct": True,
                 "audit_flags": []} for f in files]

    monkeypatch.setattr(harness, "benchmark", fake_benchmark)
    res = CliRunner().invoke(app, ["run", str(run), "--acceleval", str(checkout), "--sizes",
                                   "small", "--store", str(tmp_path / "s"), "-f", "json"])
    assert res.exit_code == 0, res.output
    assert sorted(calls) == [
        ("toy_exact", "acceleval", [("sample_4.cu", "acme/coder", "s2c")]),
        ("toy_scale", "acceleval", [("sample_0.cu", "acme/coder", "s2c"),
                                    ("sample_1.cu", "acme/coder", "s2c")])]


def test_tag_records_carry_the_run_folder(tmp_path):
    run = F.make_run(tmp_path, model="acme-coder", level=3,
                     samples={"toy_scale": {2: F.MODERN_SOLUTION}})
    res = CliRunner().invoke(app, ["tag", str(run), "--format", "jsonl", "--no-index",
                                   "--no-cache", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    rec = json.loads(res.stdout.splitlines()[0])
    assert {k: rec[k] for k in ("author", "level", "stage", "sample", "task", "run")} == {
        "author": "acme-coder", "level": 3, "stage": "s1", "sample": 2, "task": "toy_scale",
        "run": run.name}
