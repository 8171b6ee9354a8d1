"""Where a number was measured: machine and code facts recorded beside every result."""

from __future__ import annotations

import hashlib
import platform
import subprocess
from pathlib import Path

from strategylens.resources import HARNESS_DIR, PACKAGE_DIR, SOURCE_ROOT


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
    None outside a git checkout (an installed wheel)."""
    if not (SOURCE_ROOT / ".git").exists():
        return None
    try:
        rev = subprocess.run(["git", "-C", str(SOURCE_ROOT), "rev-parse",
                              *(["--short"] if short else []), "HEAD"],
                             capture_output=True, text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(SOURCE_ROOT), "status", "--porcelain", "strategylens"],
                               capture_output=True, text=True, check=False, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (rev + ("+uncommitted" if dirty else "")) or None


def tool_sha() -> str:
    """SHA-256 (first 12 hex digits) of the package's and the harness's sources.

    Names the code that measured a result even where git cannot: a copied working tree, a
    checkout with local changes. To match one, compute it on a checkout of a commit.
    """
    h = hashlib.sha256()
    files = [(Path("strategylens") / f.relative_to(PACKAGE_DIR), f)
             for f in PACKAGE_DIR.rglob("*.py") if "_data" not in f.relative_to(PACKAGE_DIR).parts]
    files += [(Path("harness") / f.name, f) for f in HARNESS_DIR.glob("*.c")]
    for name, f in sorted(files):  # the names a checkout has, so a wheel gives the same hash
        h.update(str(name).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]
