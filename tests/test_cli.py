"""The command line as a whole: nouns registered, exit codes, and graceful missing dependencies."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from strategylens.cli import app

runner = CliRunner()


def test_every_noun_is_registered():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for noun in ("catalog", "tasks", "tag", "run", "results", "stats", "report"):
        assert f" {noun} " in result.output


def test_unknown_command_is_usage_error():
    assert runner.invoke(app, ["frobnicate"]).exit_code == 2


def test_missing_dependency_disables_only_its_noun():
    # Without numpy the task suite cannot load; `tasks` must say why and the catalog must still work.
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from typer.testing import CliRunner\n"
        "from strategylens.cli import app\n"
        "r = CliRunner()\n"
        "tasks = r.invoke(app, ['tasks', 'list'])\n"
        "cat = r.invoke(app, ['catalog', 'list', '--format', 'json'])\n"
        "print(tasks.exit_code, cat.exit_code)\n"
        "print(tasks.output)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    first, rest = proc.stdout.split("\n", 1)
    assert first == "2 0"
    assert "`strategylens tasks` needs the Python package 'numpy'" in rest
