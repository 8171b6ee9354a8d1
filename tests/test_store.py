"""Results store: append, resume, read back and export with the issue's columns."""

from __future__ import annotations

import io
import json

import pandas as pd
from typer.testing import CliRunner

from strategylens import harness as H
from strategylens import store
from strategylens.cli import app
from strategylens.resources import SOURCE_ROOT
from strategylens.tasks import load_task

from .test_harness import FIXTURE, honest_trace

REQUIRED = ["task", "solution", "size", "compiled", "correct", "e2e_ms_median", "e2e_ms_iqr",
            "n_trials", "cpu_ms", "speedup", "audit_flags", "gpu_name", "kernel_launches",
            "h2d_bytes", "d2h_bytes", "kernel_ms", "nvcc_flags", "registers_max", "floor_ratio",
            "driver", "nvcc", "clocks", "commit", "tool_version", "utc"]


def _row(tmp_path, source="tests/fixtures/harness_task/saxpy/solutions/baseline.cu",
         size="small", flags=None):
    task = load_task(FIXTURE)
    build = H.BuildResult(source=str(SOURCE_ROOT / source), compiled=True, so_path="x.so",
                          arch="sm_90", flags=["-O3"], libraries=[],
                          kernels=[{"kernel": "k", "registers": 12, "smem_bytes": 0,
                                    "spill_stores": 0, "spill_loads": 0}])
    trace = honest_trace(status="ok", mem_after_load=0)
    device = {"gpu_name": "NVIDIA H200", "driver": "580.159.04", "nvcc": "V13.0.88",
              "clocks": {"clocks.sm": "1980"}, "commit": "abc", "tool_version": "0.1.0",
              "bandwidth": {"pinned_h2d": 50e9, "pinned_d2h": 50e9, "pageable_h2d": 9e9,
                            "pageable_d2h": 16e9}}
    cpu = {"median_s": 0.004, "trials_s": [0.004, 0.0041, 0.0039], "cpu_model": "Xeon"}
    flags = flags or {}
    return H.result_row(task, build, size, trace, cpu, device, H.RunConfig(), (32768, 16384),
                        flags, 1.5), trace


def test_result_row_has_the_issue_columns(tmp_path):
    row, _ = _row(tmp_path)
    assert set(REQUIRED) <= set(row)
    assert row["e2e_ms_median"] == 1.0 and row["timing_source"] == "inside"
    assert row["speedup"] == 4.0 and row["correct"] is True
    assert row["floor_ratio"] == 1.0 / ((32768 + 16384) / 50e9 * 1e3)
    assert row["kernel_launches"] == 1 and row["registers_max"] == 12


def test_tampered_row_uses_the_outside_clock(tmp_path):
    row, _ = _row(tmp_path, flags={"timer-tamper": "x"})
    assert row["timing_source"] == "outside" and row["e2e_ms_median"] == 1.2
    assert row["audit_flags"] == ["timer-tamper"]


def test_append_resume_and_read(tmp_path):
    row, trace = _row(tmp_path)
    trials = [dict(t, index=i, profile=json.dumps(t.get("profile")))
              for i, t in enumerate(trace["trials"])]
    store.append(tmp_path, row, trials, trace)
    row2, _ = _row(tmp_path, size="medium", flags={"nan-output": "y"})
    store.append(tmp_path, row2)
    assert store.done_keys(tmp_path) == {
        ("saxpy", "tests/fixtures/harness_task/saxpy/solutions/baseline.cu", "small"),
        ("saxpy", "tests/fixtures/harness_task/saxpy/solutions/baseline.cu", "medium")}
    df = store.read_results(tmp_path)
    assert list(df["size"]) == ["medium", "small"]
    assert list(df["audit_flags"]) == [["nan-output"], []]
    assert len(store.read_trials(tmp_path)) == len(trace["trials"])
    assert not list(tmp_path.rglob(".*.tmp"))


def test_row_files_are_lean_and_read_back_the_same(tmp_path):
    import pyarrow.parquet as pq

    row, trace = _row(tmp_path)
    trials = [dict(t, index=i, profile=json.dumps(t.get("profile")))
              for i, t in enumerate(trace["trials"])]
    store.append(tmp_path, row, trials, trace)
    (f,) = (tmp_path / "results").glob("*.parquet")
    meta = pq.read_metadata(f)
    assert meta.metadata is None  # no pandas or Arrow schema copy in the footer
    assert not any(meta.row_group(0).column(i).is_stats_set for i in range(meta.num_columns))
    got = store.read_results(tmp_path).iloc[0]
    want = pd.DataFrame([row]).iloc[0]
    for col in want.index:
        a, b = got[col], want[col]
        assert (list(a) == list(b)) if isinstance(b, list) else (a == b or (pd.isna(a) and pd.isna(b))), col
    back = store.read_trials(tmp_path)
    assert len(back) == len(trials) and list(back["index"]) == list(range(len(trials)))


def test_damaged_file_is_skipped_with_a_warning(tmp_path, capsys):
    row, _ = _row(tmp_path)
    store.append(tmp_path, row)
    (tmp_path / "results" / "broken.parquet").write_bytes(b"not parquet")
    df = store.read_results(tmp_path)
    assert len(df) == 1
    assert "broken.parquet: unreadable results file skipped" in capsys.readouterr().err


def test_export_csv_json_parquet(tmp_path):
    row, _ = _row(tmp_path, flags={"precision": "p", "nan-output": "n"})
    store.append(tmp_path, row)
    runner = CliRunner()
    res = runner.invoke(app, ["results", "export", str(tmp_path), "--format", "csv"])
    assert res.exit_code == 0, res.output
    df = pd.read_csv(io.StringIO(res.stdout))
    assert set(REQUIRED) <= set(df.columns)
    assert df.loc[0, "audit_flags"] == "nan-output;precision"
    res = runner.invoke(app, ["results", "export", str(tmp_path), "--format", "json"])
    assert json.loads(res.stdout)[0]["gpu_name"] == "NVIDIA H200"
    out = tmp_path / "x.parquet"
    res = runner.invoke(app, ["results", "export", str(tmp_path), "-f", "parquet", "-o", str(out)])
    assert res.exit_code == 0 and pd.read_parquet(out).loc[0, "task"] == "saxpy"


def test_export_of_an_empty_store_is_a_usage_error(tmp_path):
    res = CliRunner().invoke(app, ["results", "export", str(tmp_path)])
    assert res.exit_code == 2
    assert "no results found" in res.stderr


def test_reaudit_recomputes_flags_from_the_recorded_trace(tmp_path):
    row, trace = _row(tmp_path, flags={"timer-tamper": "stale verdict"})
    trials = [dict(t, index=i, profile=json.dumps(t["profile"]) if t.get("profile") else None)
              for i, t in enumerate(trace["trials"])]
    store.append(tmp_path, row, trials, trace)
    assert store.read_results(tmp_path).loc[0, "timing_source"] == "outside"
    (updated,) = H.reaudit(tmp_path)
    df = store.read_results(tmp_path)
    assert df.loc[0, "audit_flags"] == [] and df.loc[0, "timing_source"] == "inside"
    assert df.loc[0, "e2e_ms_median"] == 1.0 and updated["speedup"] == 4.0


def test_reaudit_command_reports_changed_rows(tmp_path):
    row, trace = _row(tmp_path, flags={"timer-tamper": "stale verdict"})
    trials = [dict(t, index=i, profile=json.dumps(t["profile"]) if t.get("profile") else None)
              for i, t in enumerate(trace["trials"])]
    store.append(tmp_path, row, trials, trace)
    res = CliRunner().invoke(app, ["results", "reaudit", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "timer-tamper -> -" in res.stdout and "1 row(s) re-audited, 1 changed" in res.stdout
    res = CliRunner().invoke(app, ["results", "reaudit", str(tmp_path)])
    assert "1 row(s) re-audited, 0 changed" in res.stdout


def test_reaudit_describes_a_wrong_answer_recorded_before_the_summary(tmp_path):
    # a row as the committed H200 store has them: every call wrong, flagged cross-call-state
    # because the fresh probes were wrong too, no mismatch column, no byte counts in the trace
    row, trace = _row(tmp_path, flags={"cross-call-state": "2 fresh input set(s) answered "
                                                           "wrongly after the timed calls"})
    for t in trace["trials"]:
        t.update(correct=False, mismatches=64, max_abs_err=2.5, poison_left=64, tight_ok=None,
                 compare_detail="out: 64 of 4096 differ: [4032] got 0.0 want 2.5")
    row.pop("mismatch")
    row["correct"] = False
    trials = [dict(t, index=i, profile=json.dumps(t["profile"]) if t.get("profile") else None)
              for i, t in enumerate(trace["trials"])]
    store.append(tmp_path, row, trials, trace)
    res = CliRunner().invoke(app, ["results", "reaudit", str(tmp_path)])
    assert res.exit_code == 0, res.output
    summary = ("16 of 16 calls wrong; timed call on set 0: 64 element(s) wrong; max abs error "
               "2.5; out: 64 of 4096 differ: [4032] got 0.0 want 2.5; 64 element(s) never written")
    assert res.stdout.splitlines() == [
        "saxpy tests/fixtures/harness_task/saxpy/solutions/baseline.cu small: cross-call-state "
        "-> partial-output",
        f"saxpy tests/fixtures/harness_task/saxpy/solutions/baseline.cu small: wrong answer: "
        f"{summary[:160]}",
        "1 row(s) re-audited, 1 changed, 1 with a new mismatch summary"]
    assert store.read_results(tmp_path).loc[0, "mismatch"] == summary


def test_tool_sha_names_the_code_and_changes_with_it(tmp_path, monkeypatch):
    from strategylens import provenance

    (tmp_path / "strategylens").mkdir()
    (tmp_path / "harness").mkdir()
    (tmp_path / "strategylens" / "a.py").write_text("x = 1\n")
    (tmp_path / "harness" / "d.c").write_text("int main(void) { return 0; }\n")
    monkeypatch.setattr(provenance, "PACKAGE_DIR", tmp_path / "strategylens")
    monkeypatch.setattr(provenance, "HARNESS_DIR", tmp_path / "harness")
    first = provenance.tool_sha()
    assert len(first) == 12 and first == provenance.tool_sha()
    (tmp_path / "harness" / "d.c").write_text("int main(void) { return 1; }\n")
    assert provenance.tool_sha() != first
