"""The command line run from an interactive shell: stdin and stderr on a pseudo-terminal,
stdout redirected to a file (``strategylens tag ... -f jsonl > out.jsonl``). The results must
land in the file and the terminal must show only progress and messages."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from strategylens.resources import TASKS_DIR

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")

FILES = sorted(str(p) for p in (TASKS_DIR / "bfs" / "solutions").glob("*.cu"))[:2]


def run_in_terminal(args: list[str], stdout_path: Path, env: dict | None = None,
                    timeout: float = 300) -> tuple[int, str]:
    """Run the CLI with stdin and stderr on a pty and stdout into ``stdout_path``; the exit
    code and what the terminal showed."""
    master, slave = pty.openpty()
    with open(stdout_path, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "strategylens.cli", *args],
                                stdin=slave, stdout=fh, stderr=slave,
                                env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "100",
                                     **(env or {})})
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            proc.kill()
            raise TimeoutError(f"{args} did not finish")
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return proc.wait(timeout=timeout), shown.decode(errors="replace")


def test_tag_jsonl_redirected_from_a_terminal_goes_to_the_file(tmp_path):
    out = tmp_path / "out.jsonl"
    code, shown = run_in_terminal(["tag", *FILES, "-f", "jsonl", "--no-cache", "-j", "1"], out,
                                  env={"STRATEGYLENS_CACHE": str(tmp_path / "cache")})
    assert code == 0, shown
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["path"] for r in records) == FILES
    assert all(r["record_type"] == "tag" and r["ok"] for r in records)
    assert '"labels"' not in shown  # nothing of the records reached the terminal


def test_human_tag_redirected_from_a_terminal_goes_to_the_file(tmp_path):
    out = tmp_path / "out.txt"
    code, shown = run_in_terminal(["tag", FILES[0], "--no-cache"], out,
                                  env={"STRATEGYLENS_CACHE": str(tmp_path / "cache")})
    assert code == 0, shown
    text = out.read_text()
    assert text.splitlines()[0] == FILES[0]
    assert "\x1b[" not in text  # no colour codes in a file
    assert FILES[0] not in shown


def test_catalog_list_piped_keeps_one_line_per_row(tmp_path):
    out = tmp_path / "list.txt"
    code, shown = run_in_terminal(["catalog", "list"], out, env={"COLUMNS": "80"})
    assert code == 0, shown
    lines = out.read_text().splitlines()
    mem01 = [ln for ln in lines if ln.startswith("MEM-01")]
    assert len(mem01) == 1 and "Coalesced global memory access" in mem01[0]
    assert not any(ln.strip() in ("1", "MEM-0") for ln in lines)  # no IDs wrapped at 80


def test_report_from_a_terminal_prints_only_the_path_to_stdout(tmp_path):
    from strategylens import stats

    data = tmp_path / "sim.csv"
    stats.simulate_corpus(n_tasks=6, n_authors=3, samples=2, seed=3).frame.to_csv(data,
                                                                                  index=False)
    out = tmp_path / "stdout.txt"
    code, shown = run_in_terminal(["report", "--data", str(data), "--out",
                                   str(tmp_path / "rep"), "--bootstrap", "0"], out)
    assert code == 0, shown
    assert out.read_text() == f"{tmp_path / 'rep' / 'report.html'}\n"
    assert "wrote" in shown
