"""Where a number was measured: machine and code facts recorded beside every result."""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

from strategylens import REPO_ROOT


def cpu_model() -> str:
    """CPU model name from /proc/cpuinfo (platform facts as a fallback)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def git_commit(short: bool = True) -> str | None:
    """The repository's HEAD, marked ``+uncommitted`` when the package has local changes;
    None outside a git checkout."""
    try:
        rev = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse",
                              *(["--short"] if short else []), "HEAD"],
                             capture_output=True, text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO_ROOT), "status", "--porcelain", "strategylens"],
                               capture_output=True, text=True, check=False, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (rev + ("+uncommitted" if dirty else "")) or None
