"""Where strategylens finds its bundled data and keeps its cache.

The catalog, the task suite and the harness's native sources sit at the top of a source checkout
(``catalog/``, ``tasks/``, ``harness/``) and inside the package as ``strategylens/_data/<name>`` in
an installed wheel. Every module asks here instead of walking up from its own file.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SOURCE_ROOT = PACKAGE_DIR.parent  # the checkout, when the package runs from one


def bundled(name: str) -> Path:
    """The bundled folder ``name`` (catalog, tasks, harness): package data first, then the
    checkout the package runs from."""
    inside = PACKAGE_DIR / "_data" / name
    return inside if inside.is_dir() else SOURCE_ROOT / name


CATALOG_DIR = bundled("catalog")
TASKS_DIR = bundled("tasks")
HARNESS_DIR = bundled("harness")


def cache_root() -> Path:
    """The one cache root: ``$STRATEGYLENS_CACHE``, else ``~/.cache/strategylens``. Subsystems
    keep their own folder under it (builds, native, ref, expected, tag, ...)."""
    env = os.environ.get("STRATEGYLENS_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "strategylens"


def private_name(path: Path, suffix: str = "") -> Path:
    """A hidden name beside ``path`` that no other process or thread uses (pid and thread id),
    for building something there and renaming it into place."""
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}{suffix}")


def atomic_write(path: Path | str, data: bytes | str, fsync: bool = False) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename, so a
    reader never sees a half-written file. Creates the parent folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
