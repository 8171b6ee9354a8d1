"""Tagging many files: walk files and folders, tag them in worker processes, yield results as
they complete, and keep a per-file cache (``<cache root>/tag``) keyed by content hash, tool and
detector code version, catalog version and options."""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from collections.abc import Iterable, Iterator, Mapping, Sequence

from strategylens import __version__
from strategylens.model.preproc import header_bytes
from strategylens.resources import PACKAGE_DIR, atomic_write, cache_root
from strategylens.tag.file import (SIZE_LIMIT, FileResult, calibrate, check_bytes, get_catalog,
                                   read_source, resolve_detectors, tag_source)

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


_WORKER: dict = {}


def _worker_init(detectors, entry, index, catalog, size_limit, reference=None,
                 include_dirs=(), defines=None) -> None:
    _WORKER.update(dets=resolve_detectors(detectors, catalog), entry=entry, index=index,
                   catalog=catalog, size_limit=size_limit, spec=detectors, reference=reference,
                   include_dirs=include_dirs, defines=defines)


def _worker_tag(items: list[tuple[str, bytes]]) -> list[FileResult]:
    w = _WORKER
    out = []
    for path, data in items:
        r = tag_source(data, path, w["dets"], w["entry"], w["index"], w["catalog"],
                       w["size_limit"], w.get("reference"), w.get("include_dirs", ()),
                       w.get("defines"))
        out.append(r)
    return out


def tag_paths(paths: Sequence[str | Path], jobs: int | None = None, detectors=None,
              entry: str = "solution_compute", index: bool = True, catalog=None,
              cache: bool | str | Path = True, size_limit: int = SIZE_LIMIT,
              chunk: int = 8, reference: str | bytes | None = None,
              include_dirs: Sequence[str] = (), defines: Mapping[str, str] | None = None
              ) -> Iterator[FileResult]:
    """Tag files and folders (recursive over .cu/.cuh), yielding results as they complete.

    Parameters
    ----------
    paths : sequence of str or Path
        Files and folders; a missing path raises FileNotFoundError before any work starts.
    jobs : int, optional
        Worker processes (default: the number of CPUs); 1 tags in this process.
    detectors, entry, index, catalog, size_limit
        As for :func:`tag_source`; ``detectors`` must be None, 'ast' or 'substring' when
        ``jobs > 1``.
    cache : bool or path
        Use the per-file cache: a folder, or ``<cache root>/tag`` ($STRATEGYLENS_CACHE/tag or
        ~/.cache/strategylens/tag).
    include_dirs, defines
        ``-I`` folders and ``-D`` macros for every file (the cache key covers them and the
        bytes of the local headers each file includes).
    chunk : int
        Least number of files sent to a worker at a time (larger runs send about sixteen
        chunks per worker).

    Yields
    ------
    FileResult
    """
    files = expand_paths(paths)
    jobs = jobs or os.cpu_count() or 1
    if not isinstance(detectors, (str, type(None))):
        jobs = 1  # detector objects may not pickle
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
    if jobs <= 1 or len(todo) <= chunk:
        dets = resolve_detectors(detectors, catalog)
        for p, data in todo:
            r = tag_source(data, p, dets, entry, index, catalog, size_limit, reference,
                           include_dirs, defines)
            if store:
                store.put(data + header_bytes(data, p, include_dirs), r)
            yield r
        return
    chunk = max(chunk, len(todo) // (jobs * 16))  # many small chunks keep workers busy
    chunks = [todo[i:i + chunk] for i in range(0, len(todo), chunk)]
    with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), initializer=_worker_init,
                             initargs=(detectors, entry, index, catalog, size_limit,
                                       reference, tuple(include_dirs), defines)) as ex:
        chunk_of = {ex.submit(_worker_tag, c): c for c in chunks}
        pending = set(chunk_of)
        dets = None
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                try:
                    results = fut.result()
                except Exception as exc:  # a worker died (e.g. a crash inside libclang)
                    dets = dets or resolve_detectors(detectors, catalog)
                    results = []
                    for p, data in chunk_of[fut]:
                        r = tag_source(data, p, dets, entry, False, catalog, size_limit,
                                       reference, include_dirs, defines)
                        r.warnings.append(f"{p}: worker failed ({type(exc).__name__}: {exc}); "
                                          "tagged again without the libclang index")
                        results.append(r)
                for r in results:
                    if store:
                        store.put(data_of[r.path] + header_bytes(data_of[r.path], r.path,
                                                                 include_dirs), r)
                    yield r
