"""GPU tests of the harness: every cheat raises its flags, honest solutions raise none.

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


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    from strategylens.harness import RunConfig, benchmark
    from strategylens.store import read_results
    from strategylens.tasks import load_task

    store = tmp_path_factory.mktemp("store")
    benchmark(load_task(FIXTURE), HONEST + CHEATS, ["small"], store,
              RunConfig(warmup_s=0.1, measure_s=0.5))
    df = read_results(store)
    return {Path(s).name: row for s, row in zip(df["solution"], df.to_dict("records"), strict=False)}


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
