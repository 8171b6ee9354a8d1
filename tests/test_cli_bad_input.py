"""Bad input, table-driven: each case is the input, the command, the exit code, a fragment of
the message on stderr, and what else still got processed. No case may end in a traceback."""

from __future__ import annotations

import builtins
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from strategylens.cli import app
from strategylens.resources import PACKAGE_DIR, TASKS_DIR

GOOD = TASKS_DIR / "bfs" / "solutions" / "baseline.cu"
PLUGIN = PACKAGE_DIR.parent / "examples" / "strategylens-tensorcore" / "strategylens_tensorcore" \
    / "catalog"
UNWRITABLE = Path("/sys/strategylens-test")  # not writable even by root


@dataclass
class Case:
    name: str
    args: list[str]  # {d}: the case's folder, {good}: a CUDA file that tags
    code: int
    message: str  # must appear on stderr
    processed: list[str] = field(default_factory=list)  # tagged files in the jsonl output
    unreadable: str | None = None  # a path whose open() fails with EACCES
    env: dict = field(default_factory=dict)


def setup(d: Path) -> None:
    """The inputs the cases name, in one folder."""
    shutil.copy(GOOD, d / "good.cu")
    (d / "loop.cu").symlink_to(d / "loop.cu")
    (d / "dangling.cu").symlink_to(d / "gone.cu")
    os.mkfifo(d / "fifo.cu")
    (d / "secret.cu").write_text("__global__ void k() {}\n")
    (d / "big.cu").write_text("__global__ void k(float *x) { x[0] = 1; }\n" * 4000)
    (d / "a_file").write_text("not a folder\n")
    (d / "a_folder").mkdir()
    (d / "empty_store" / "results").mkdir(parents=True)
    (d / "no_results_store").mkdir()
    (d / "labels.jsonl").write_text(json.dumps({"path": "good.cu", "ok": True, "error": None,
                                                "labels": [], "warnings": []}) + "\n")
    (d / "sim.csv").write_text("task,solution,speedup,MEM-02\nt,a,2.0,1\nt,b,1.0,0\n")
    broken = d / "broken_catalog"
    shutil.copytree(PLUGIN, broken)
    (broken / "CMP-X01-tensor-core-mma" / "detector.py").write_text("import no_such_module_xyz\n")
    dist = d / "site" / "badplug-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: badplug\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[strategylens.catalogs]\nbad = badplug_missing:CATALOG\n")


TAG = ["tag", "-f", "jsonl", "--no-cache", "-j", "1"]
STORE_ARGS = ["--labels", "{d}/labels.jsonl"]

CASES = [
    # one bad path among good ones: the good one is still tagged, exit 1
    Case("missing file", [*TAG, "{good}", "{d}/missing.cu"], 1,
         "missing.cu: no such file or folder", ["good.cu"]),
    Case("symlink loop", [*TAG, "{good}", "{d}/loop.cu"], 1, "loop.cu: symlink loop", ["good.cu"]),
    Case("broken symlink", [*TAG, "{good}", "{d}/dangling.cu"], 1, "dangling.cu: broken symlink",
         ["good.cu"]),
    Case("fifo", [*TAG, "{good}", "{d}/fifo.cu"], 1, "fifo.cu: not tagged: a FIFO", ["good.cu"]),
    Case("unreadable file", [*TAG, "{good}", "{d}/secret.cu"], 1,
         "secret.cu: cannot read (Permission denied)", ["good.cu"], unreadable="secret.cu"),
    Case("over the size limit", [*TAG, "--max-bytes", "100000", "{good}", "{d}/big.cu"], 1,
         "big.cu: not tagged: 164.1 KiB (168000 bytes) is over the 97.7 KiB limit for one file; "
         "raise it with --max-bytes", ["good.cu"]),
    Case("only bad paths", [*TAG, "{d}/missing.cu"], 2, "no file to tag"),
    Case("folder without CUDA files", [*TAG, "{d}/a_folder"], 2, "no .cu or .cuh files under"),
    Case("tag --out is a folder", [*TAG, "{good}", "--out", "{d}/a_folder"], 2,
         "a_folder: is a folder"),
    # a broken detector or catalog plugin: a warning, every file still tagged
    Case("detector fails to import", [*TAG, "{good}", "-c", "{d}/broken_catalog"], 0,
         "No module named 'no_such_module_xyz'", ["good.cu"]),
    Case("catalog validate sees it", ["catalog", "validate", "-c", "{d}/broken_catalog"], 1,
         "detector.py: field '(detector)': the detector failed to load"),
    Case("catalog entry point fails", [*TAG, "{good}"], 0,
         "catalog entry point 'bad = badplug_missing:CATALOG' failed to load", ["good.cu"],
         env={"PYTHONPATH": "{d}/site"}),
    Case("validate sees the entry point", ["catalog", "validate"], 1,
         "entry point bad (package badplug)", env={"PYTHONPATH": "{d}/site"}),
    # empty or missing stores
    Case("report, store without results/",
         ["report", "--store", "{d}/no_results_store", *STORE_ARGS, "--out", "{d}/r"], 2,
         "no_results_store: not a results store"),
    Case("report, missing store",
         ["report", "--store", "{d}/nowhere", *STORE_ARGS, "--out", "{d}/r"], 2,
         "nowhere: no such results store"),
    Case("effects, empty store", ["stats", "effects", "--store", "{d}/empty_store", *STORE_ARGS],
         2, "empty_store: the results store holds no results"),
    Case("table, empty store", ["stats", "table", "--store", "{d}/empty_store", *STORE_ARGS], 2,
         "empty_store: the results store holds no results"),
    Case("leaderboard, missing store",
         ["stats", "leaderboard", "--store", "{d}/nowhere", *STORE_ARGS], 2,
         "nowhere: no such results store"),
    # --out that is a file, a folder, under a file, or cannot be written
    Case("report --out is a file", ["report", "--data", "{d}/sim.csv", "--out", "{d}/a_file"], 2,
         "a_file: is a file; --out needs a folder"),
    Case("report --out under a file",
         ["report", "--data", "{d}/sim.csv", "--out", "{d}/a_file/report"], 2,
         "a_file is a file, not a folder"),
    Case("report --out unwritable",
         ["report", "--data", "{d}/sim.csv", "--out", str(UNWRITABLE)], 2,
         "strategylens-test: cannot create the folder"),
    Case("simulate --out is a folder", ["stats", "simulate", "--out", "{d}/a_folder"], 2,
         "a_folder: is a folder; --out needs a file name"),
    Case("simulate --out unwritable",
         ["stats", "simulate", "--out", f"{UNWRITABLE}/sim.csv"], 2,
         "sim.csv: cannot create the folder"),
    Case("simulate --out, missing parent is made",
         ["stats", "simulate", "--out", "{d}/new/sub/sim.csv", "-f", "json"], 0, "wrote"),
    Case("export -o is a folder", ["results", "export", "analyses/h200", "-o", "{d}/a_folder"], 2,
         "a_folder: is a folder"),
    Case("export -o under a file",
         ["results", "export", "analyses/h200", "-o", "{d}/a_file/x.csv"], 2,
         "a_file is a file, not a folder"),
    Case("export -o unwritable",
         ["results", "export", "analyses/h200", "-o", "/sys/strategylens-test.csv"], 2,
         "strategylens-test.csv: cannot write"),
    Case("tasks gen --out is a file", ["tasks", "gen", "bfs", "-s", "small", "--out", "{d}/a_file"], 2,
         "a_file: is a file; --out needs a folder"),
    Case("catalog docs --out is a folder", ["catalog", "docs", "--out", "{d}/a_folder"], 2,
         "a_folder: is a folder"),
    Case("catalog docs --out unwritable", ["catalog", "docs", "--out", f"{UNWRITABLE}/c.md"], 2,
         "c.md: cannot create the folder"),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    setup(d)
    return d


def fill(text: str, d: Path) -> str:
    return text.replace("{d}", str(d)).replace("{good}", str(d / "good.cu"))


def run(case: Case, d: Path, monkeypatch) -> tuple[int, str, str]:
    args = [fill(a, d) for a in case.args]
    env = {k: fill(v, d) for k, v in case.env.items()}
    if env:  # entry points are read from the environment of a fresh process
        proc = subprocess.run([sys.executable, "-m", "strategylens.cli", *args],
                              capture_output=True, text=True, cwd=PACKAGE_DIR.parent,
                              env={**os.environ, **env, "STRATEGYLENS_CACHE": str(d / "cache")},
                              timeout=600, check=False)
        return proc.returncode, proc.stdout, proc.stderr
    if case.unreadable:
        real_open = builtins.open
        target = str(d / case.unreadable)

        def deny(file, *a, **k):
            if str(file) == target:
                raise PermissionError(13, "Permission denied", target)
            return real_open(file, *a, **k)

        monkeypatch.setattr(builtins, "open", deny)
    monkeypatch.chdir(PACKAGE_DIR.parent)
    monkeypatch.setenv("STRATEGYLENS_CACHE", str(d / "cache"))
    result = CliRunner().invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"{case.name}: traceback: {result.exception!r}"
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case, folder, monkeypatch):
    code, stdout, stderr = run(case, folder, monkeypatch)
    assert "Traceback" not in stderr, stderr
    assert case.message in " ".join(stderr.split()), stderr
    assert code == case.code, stderr
    if case.args[:1] == ["tag"] and case.code != 2:
        records = [json.loads(line) for line in stdout.splitlines()]
        tagged = sorted(Path(r["path"]).name for r in records if r["ok"])
        assert tagged == sorted(case.processed)
        failed = {Path(r["path"]).name for r in records if not r["ok"]}
        assert len(failed) == (case.code == 1)  # the bad path is a record of its own
