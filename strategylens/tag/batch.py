"""Tagging many files: walk files and folders, tag them in worker processes, yield results as
they complete, and keep a per-file cache (``<cache root>/tag``) keyed by content hash, tool and
detector code version, catalog version and options."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from collections.abc import Iterable, Iterator, Mapping, Sequence

from strategylens import __version__
from strategylens.model.preproc import header_bytes
from strategylens.resources import PACKAGE_DIR, atomic_write, cache_root
from strategylens.tag.file import (SIZE_LIMIT, FileResult, calibrate, check_bytes, get_catalog,
                                   read_source, reference_model, resolve_detectors, tag_source)
from strategylens.tag.workers import Bounds, run_bounded

SUFFIXES = (".cu", ".cuh")


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files named directly, plus .cu/.cuh files under folders (sorted). Raises
    FileNotFoundError for a path that does not exist."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file())
        elif p.exists():
            out.append(p)
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")
    return out


def find_files(paths: Iterable[str | Path]) -> tuple[list[Path], list[FileResult]]:
    """Like :func:`expand_paths`, but a path that cannot be used is an error result naming it
    (missing, a broken or looping symlink, a folder that cannot be listed) and the other
    paths still count."""
    found: list[Path] = []
    problems: list[FileResult] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            try:
                found += sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file())
            except OSError as exc:
                problems.append(FileResult(str(p), False, f"{p}: cannot list the folder "
                                                          f"({exc.strerror or exc})"))
        elif p.exists():
            found.append(p)  # read_source says what is wrong with a FIFO or a device
        elif p.is_symlink():  # broken or looping: read_source names which
            problems.append(read_source(str(p), SIZE_LIMIT))
        else:
            problems.append(FileResult(str(p), False, f"{p}: no such file or folder"))
    return found, problems


_CODE_VERSION = ""


def _code_version() -> str:
    """Hash of this package's analysis code and of registered detector modules, so edits to a
    detector invalidate the cache even when the version number did not change."""
    global _CODE_VERSION
    if _CODE_VERSION:
        return _CODE_VERSION
    h = hashlib.sha256(__version__.encode())
    files = [f for sub in ("", "model", "detectors", "tag") for f in (PACKAGE_DIR / sub).glob("*.py")]
    try:
        from strategylens.catalog import catalog_dirs
        for root in catalog_dirs():
            files += root.glob("*/detector.py")
    except Exception:
        pass
    for f in sorted(set(files)):
        try:
            h.update(f.read_bytes())
        except OSError:
            pass
    _CODE_VERSION = h.hexdigest()[:16]
    return _CODE_VERSION


class Cache:
    """Per-file results on disk keyed by content hash, tool version, catalog version and options."""

    def __init__(self, folder: str | Path | None = None, settings: str = "") -> None:
        self.folder = Path(folder) if folder else cache_root() / "tag"
        self.settings = settings

    def key(self, data: bytes) -> str:
        h = hashlib.sha256(data)
        h.update(b"\0" + self.settings.encode())
        return h.hexdigest()

    def get(self, data: bytes, path: str) -> FileResult | None:
        f = self.folder / self.key(data)[:2] / (self.key(data) + ".json")
        try:
            d = json.loads(f.read_text())
        except (OSError, ValueError):
            return None
        d["path"] = path
        if d.get("error"):
            d["error"] = d["error"].replace(d.get("_path", path), path)
        r = FileResult.from_dict(d, d.get("index_status"))
        r.warnings = [w.replace(d.get("_path", path), path) for w in r.warnings]
        r.cached = True
        return r

    def put(self, data: bytes, result: FileResult) -> None:
        k = self.key(data)
        f = self.folder / k[:2] / (k + ".json")
        try:
            d = result.as_dict()
            d["_path"] = result.path
            d["index_status"] = result.index_status
            atomic_write(f, json.dumps(d))
        except OSError:
            pass  # a read-only cache folder only costs speed


def tag_paths(paths: Sequence[str | Path], jobs: int | None = None, detectors=None,
              entry: str = "solution_compute", index: bool = True, catalog=None,
              cache: bool | str | Path = True, size_limit: int = SIZE_LIMIT,
              reference: str | bytes | None = None, bounds: Bounds | None = None,
              include_dirs: Sequence[str] = (), defines: Mapping[str, str] | None = None
              ) -> Iterator[FileResult]:
    """Tag files and folders (recursive over .cu/.cuh), yielding results as they complete.

    Parameters
    ----------
    paths : sequence of str or Path
        Files and folders; one that cannot be used (missing, a symlink loop, a FIFO) gets an
        error result and the others are tagged.
    jobs : int, optional
        Worker processes (default: the number of CPUs).
    detectors, entry, index, catalog, size_limit
        As for :func:`tag_source`.
    cache : bool or path
        Use the per-file cache: a folder, or ``<cache root>/tag`` ($STRATEGYLENS_CACHE/tag or
        ~/.cache/strategylens/tag).
    include_dirs, defines
        ``-I`` folders and ``-D`` macros for every file (the cache key covers them and the
        bytes of the local headers each file includes).
    bounds : Bounds, optional
        Per-file time and memory limits (default ``Bounds()``: 60 s, 2048 MiB); each file is
        tagged in a worker process that is killed when it goes over. ``Bounds(None, None)``
        with ``jobs=1`` tags in this process.

    Yields
    ------
    FileResult
    """
    files, problems = find_files(paths)
    yield from problems
    jobs = jobs or os.cpu_count() or 1
    bounds = Bounds() if bounds is None else bounds
    store = None
    if cache:
        cat = get_catalog(catalog) if detectors != "substring" else None
        ref_hash = hashlib.sha256(reference.encode() if isinstance(reference, str)
                                  else reference).hexdigest()[:16] if reference else "-"
        settings = "|".join([__version__, _code_version(), getattr(cat, "version", "-"),
                             str(detectors or "ast"), entry, str(bool(index)), str(size_limit),
                             ref_hash, ":".join(map(str, include_dirs)),
                             repr(sorted((defines or {}).items()))])
        store = Cache(None if cache is True else cache, settings)
    todo: list[tuple[str, bytes]] = []
    for f in files:
        p = str(f)
        data = read_source(p, size_limit)
        if isinstance(data, FileResult):
            yield data
            continue
        if len(data) > size_limit:
            yield FileResult(p, False, check_bytes(data, p, size_limit))
            continue
        hit = store.get(data + header_bytes(data, p, include_dirs), p) if store else None
        if hit is not None:
            yield hit if detectors == "substring" else calibrate(hit)
        else:
            todo.append((p, data))
    if not todo:
        return
    data_of = dict(todo)
    dets = resolve_detectors(detectors, catalog)
    if reference is not None:
        reference_model(reference, entry)  # built once here, inherited by the workers

    def tag(path: str, data: bytes, with_index: bool) -> FileResult:
        return tag_source(data, path, dets, entry, with_index, catalog, size_limit, reference,
                          include_dirs, defines)

    if jobs <= 1 and not bounds.any:
        results = (tag(p, data, index) for p, data in todo)
    else:
        results = run_bounded(todo, tag, min(jobs, len(todo)), bounds, index)
    for r in results:
        if store and (r.ok or not r.error.startswith(f"{r.path}: not tagged:")):
            # a limit hit is not cached: limits may change
            store.put(data_of[r.path] + header_bytes(data_of[r.path], r.path, include_dirs), r)
        yield r
