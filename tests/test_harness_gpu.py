"""GPU tests of the harness: every cheat raises its flags, honest solutions raise none, and a
failing solution's row says what went wrong.

Run on a machine with an NVIDIA GPU: ``pytest -m gpu tests/test_harness_gpu.py``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from strategylens.harness.audit import FLAG_NAMES

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "harness_task" / "saxpy"
CHEATS = sorted((ROOT / "tests" / "cheats").glob("*.cu"))
FAILING = sorted((ROOT / "tests" / "failing").glob("*.cu"))
HONEST = sorted((FIXTURE / "solutions").glob("*.cu"))
CHEAT_FLAGS = set(FLAG_NAMES)  # an honest solution raises none of them


def _gpu() -> bool:
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


if not _gpu():
    pytest.skip("no NVIDIA GPU visible", allow_module_level=True)


def expected_flags(path: Path) -> set[str]:
    m = re.match(r"//\s*expect-flags:\s*(.*)", path.read_text().splitlines()[0])
    return {f.strip() for f in m.group(1).split(",")}


def expected_failure(path: Path) -> str:
    m = re.match(r"//\s*expect-failure:\s*(\w+)", path.read_text().splitlines()[0])
    return m.group(1)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    from strategylens.harness import RunConfig, benchmark
    from strategylens.store import read_results, read_trials
    from strategylens.tasks import load_task

    store = tmp_path_factory.mktemp("store")
    benchmark(load_task(FIXTURE), HONEST + CHEATS + FAILING, ["small"], store,
              RunConfig(warmup_s=0.1, measure_s=0.5))
    df = read_results(store)
    rows = {Path(s).name: row for s, row in zip(df["solution"], df.to_dict("records"), strict=False)}
    rows["_trials"] = read_trials(store)
    return rows


@pytest.mark.parametrize("cheat", CHEATS, ids=lambda p: p.stem)
def test_cheat_raises_its_flags(small_run, cheat):
    row = small_run[cheat.name]
    assert expected_flags(cheat) <= set(row["audit_flags"]), row["audit_detail"]


@pytest.mark.parametrize("honest", HONEST, ids=lambda p: p.stem)
def test_honest_fixture_solution_is_clean(small_run, honest):
    row = small_run[honest.name]
    assert row["correct"], row["status_detail"]
    assert set(row["audit_flags"]) & CHEAT_FLAGS == set(), row["audit_detail"]
    assert row["timing_source"] == "inside"
    assert abs(row["outside_ms_median"] - row["inside_ms_median"]) <= row["tamper_bound_ms"]


@pytest.mark.parametrize("failing", FAILING, ids=lambda p: p.stem)
def test_failing_solution_says_what_went_wrong(small_run, failing):
    row = small_run[failing.name]
    assert not row["correct"]
    assert "cross-call-state" not in row["audit_flags"], row["audit_detail"]
    if expected_failure(failing) == "wrong":
        assert row["status"] == "ok", row["status_detail"]
        assert re.search(r"out: \d+ of 4096 elements wrong \(\d+\.\d%\), first at \d+",
                         row["mismatch"]), row["mismatch"]
        if "smem" in failing.stem:  # the launch that failed, by name
            assert "saxpy_staged" in row["mismatch"] and \
                "failed: cudaErrorInvalidValue" in row["mismatch"], row["mismatch"]
    else:
        assert row["status"] == "exit"
        detail = row["status_detail"]
        assert detail.startswith("child exited with status 1 mid-run; CUDA: "), detail
        # the stub's symbol (hidden since CUDA 13: named from the library's symbol table)
        assert re.search(r"saxpy_staged\S* <<<\(16,1,1\), \(256,1,1\), 307200 B shared>>> "
                         r"failed: cudaErrorInvalidValue", detail), detail
        assert "stdout: CUDA error at " in detail, detail


def test_work_after_return_is_seen_at_the_return(small_run):
    """The checks at return ran on the GPU: honest calls complete, the async cheats not."""
    trials = small_run["_trials"]
    checked = trials[trials["return_checked"].fillna(0) > 0]
    honest = checked[checked["solution"].str.contains("harness_task/saxpy/solutions")]
    assert len(honest) and (honest["return_changed"] == 0).all()
    timed = trials[(trials["phase"] == "timed")
                   & trials["solution"].str.contains("harness_task/saxpy/solutions")]
    print("honest timed calls with work queued at return:",
          int(timed["return_pending"].fillna(False).sum()), "of", len(timed))
    assert timed["return_pending"].fillna(False).mean() < 0.5
    for name in ("async_registered", "async_per_thread", "async_nonblocking", "after_return"):
        mine = checked[checked["solution"].str.endswith(f"{name}.cu")]
        assert (mine["return_changed"] > 0).any(), name


def test_timer_tamper_falls_back_to_outside_clock(small_run):
    row = small_run["timer_tamper.cu"]
    assert row["timing_source"] == "outside"
    assert row["inside_ms_median"] < 0.5 * row["outside_ms_median"]


def test_every_task_baseline_is_clean(tmp_path):
    from strategylens.harness import RunConfig, benchmark
    from strategylens.store import read_results, read_trials
    from strategylens.tasks import list_tasks

    for task in list_tasks():
        benchmark(task, sorted((task.path / "solutions").glob("*.cu")), ["small"], tmp_path,
                  RunConfig(warmup_s=0.1, measure_s=0.3))
    df = read_results(tmp_path)
    assert len(df) >= 1
    trials = read_trials(tmp_path)  # the probe calls, for the log: drift shows here
    timed = trials[trials["phase"] == "timed"].groupby("task")["outside_ms"].median()
    probes = trials[trials["phase"].str.startswith("probe")]
    for task_id, g in probes.groupby("task"):
        print(task_id, f"timed median {timed[task_id]:.3f} ms;",
              " ".join(f"{p}/s{s}={ms:.3f}" for p, s, ms in zip(g["phase"], g["set"],
                                                                 g["outside_ms"], strict=True)))
    for row in df.to_dict("records"):
        assert row["correct"], (row["task"], row["status_detail"])
        assert set(row["audit_flags"]) & CHEAT_FLAGS == set(), (row["task"], row["audit_detail"])
