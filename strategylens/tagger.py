"""Tag CUDA files with catalog strategies and anti-patterns.

``tag_file`` / ``tag_source`` build the program model of one file (:mod:`strategylens.model`), run
the detectors on it and merge their findings into one :class:`Label` per catalog ID.
``tag_paths`` walks files and folders (``.cu`` / ``.cuh``), tags them in worker processes and
yields results as they complete, with a per-file cache keyed by content hash, tool version and
catalog version.

A bad file never stops a run: it gets ``ok=False`` and an error that names the file and the
problem (empty, binary, not UTF-8, too large, unbalanced braces), or a degraded result with
warnings (unknown macros, parse errors around a construct, libclang missing).
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Iterator, Sequence

from strategylens import __version__
from strategylens.detectors import Detector, Evidence, Label, load_detectors

SIZE_LIMIT = 2 * 1024 * 1024
SUFFIXES = (".cu", ".cuh")
DEFAULT_CACHE = Path.home() / ".cache" / "strategylens" / "tag"


@dataclass
class FileResult:
    """Labels of one file, or why it could not be tagged."""

    path: str
    ok: bool
    error: str | None = None
    labels: list[Label] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    index_status: str | None = None
    cached: bool = False

    def as_dict(self) -> dict:
        """``{"path", "ok", "error", "labels": [...], "warnings"}``."""
        return {"path": self.path, "ok": self.ok, "error": self.error,
                "labels": [lb.as_dict() for lb in self.labels], "warnings": list(self.warnings)}

    @classmethod
    def from_dict(cls, d: dict, index_status: str | None = None) -> FileResult:
        labels = [Label(lb["id"], lb["kind"], lb["confidence"], lb["intensity"],
                        [Evidence(e["line_start"], e["line_end"], e["detector"], e.get("note", ""))
                         for e in lb["evidence"]], lb.get("probability"))
                  for lb in d.get("labels", [])]
        return cls(d["path"], d["ok"], d.get("error"), labels, list(d.get("warnings", [])),
                   index_status)

    def rows(self) -> list[dict]:
        """One flat row per (label, evidence) for csv / parquet; a tagged file without labels
        gives one row with ``id`` None so it still counts as tagged; a failed file none."""
        if self.ok and not self.labels:
            return [{"path": self.path, "id": None, "kind": None, "confidence": None,
                     "probability": None, "intensity": None, "line_start": None,
                     "line_end": None, "detector": None}]
        out = []
        for lb in self.labels:
            for ev in lb.evidence or [Evidence(0, 0, "")]:
                out.append({"path": self.path, "id": lb.id, "kind": lb.kind,
                            "confidence": round(lb.confidence, 3),
                            "probability": None if lb.probability is None
                            else round(lb.probability, 3), "intensity": lb.intensity,
                            "line_start": ev.line_start, "line_end": ev.line_end,
                            "detector": ev.detector})
        return out


# ---------------------------------------------------------------------------------------------
# detector sets

_CATALOGS: dict = {}
_DETECTOR_SETS: dict = {}
_CODE_VERSION = ""


def get_catalog(catalog=None):
    """A Catalog: the object given, or the one loaded from a folder (or the built-in one)."""
    if catalog is not None and not isinstance(catalog, (str, Path, list, tuple)):
        return catalog
    extra = [catalog] if isinstance(catalog, (str, Path)) else list(catalog or [])
    key = "catalog:" + "|".join(map(str, extra))
    if key not in _CATALOGS:
        from strategylens.catalog import load_catalog
        _CATALOGS[key] = load_catalog(extra, check_examples=False)
    return _CATALOGS[key]


def _kind_of(sid: str, catalog) -> str:
    try:
        return catalog.get(sid).kind
    except (KeyError, AttributeError):
        return "anti-pattern" if sid.startswith("AP-") else "strategy"


def resolve_detectors(detectors=None, catalog=None) -> dict[str, list[Detector]]:
    """Detectors by ID from ``None``/``'ast'`` (every registered detector and catalog query),
    ``'substring'`` (AccelEval's keyword rules), a dict, or a list of detectors."""
    if detectors is None or detectors == "ast":
        cat = get_catalog(catalog)
        key = ("ast", id(cat))
        if key not in _DETECTOR_SETS:
            _DETECTOR_SETS[key] = (cat, load_detectors(cat))  # keep cat alive with its id
        return _DETECTOR_SETS[key][1]
    if detectors == "substring":
        from strategylens.detectors.substring import DETECTORS
        out: dict[str, list[Detector]] = {}
        for d in DETECTORS:
            out.setdefault(d.id, []).append(d)
        return out
    if isinstance(detectors, dict):
        return detectors
    out = {}
    for d in detectors:
        d = d() if isinstance(d, type) else d
        out.setdefault(d.id, []).append(d)
    return out


# ---------------------------------------------------------------------------------------------
# one file

def check_bytes(data: bytes, path: str, size_limit: int = SIZE_LIMIT) -> str | None:
    """Why ``data`` cannot be tagged (an error naming the file), or None."""
    if len(data) > size_limit:
        return (f"{path}: file is {len(data)} bytes, over the size limit of {size_limit} bytes "
                "(raise it with size_limit / --max-bytes)")
    if not data.strip():
        return f"{path}: empty file, nothing to tag"
    nul = data.find(b"\0")
    if nul >= 0:
        return f"{path}: binary file (NUL byte at offset {nul}), not CUDA source"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (f"{path}: not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset "
                f"{exc.start}); re-encode the file as UTF-8")
    return None


_REFERENCES: dict[str, object] = {}


def reference_model(source: str | bytes | None, entry: str = "solution_compute"):
    """The program model of a task's C reference (built once per process), or None.

    Detectors read it as ``model.reference`` for the strategies the taxonomy defines against the
    reference (narrower types than the reference, work it does not skip)."""
    if source is None:
        return None
    data = source.encode("utf-8") if isinstance(source, str) else source
    key = hashlib.sha256(data + entry.encode()).hexdigest()
    if key not in _REFERENCES:
        from strategylens.model import build_model

        _REFERENCES[key] = build_model(data, "<reference>", entry=entry, index=False)
    return _REFERENCES[key]


def tag_source(text: str | bytes, path: str = "<string>", detectors=None,
               entry: str = "solution_compute", index: bool = True, catalog=None,
               size_limit: int = SIZE_LIMIT, reference: str | bytes | None = None) -> FileResult:
    """Tag CUDA source text.

    Parameters
    ----------
    text : str or bytes
        The source.
    path : str
        Name reported in the result and in error messages.
    detectors : None, 'ast', 'substring', dict or list
        Which detectors to run (see :func:`resolve_detectors`).
    entry : str
        Entry point for reachability.
    index : bool
        Run the libclang index pass for access strides.
    catalog : Catalog, path or None
        Catalog for declarative detectors and label kinds (the built-in one by default).
    reference : str or bytes, optional
        The task's C reference source; enables reference-relative evidence (MEM-10).

    Returns
    -------
    FileResult
    """
    from strategylens.model import build_model

    data = text.encode("utf-8") if isinstance(text, str) else text
    problem = check_bytes(data, path, size_limit)
    if problem:
        return FileResult(path, False, problem)
    dets = detectors if isinstance(detectors, dict) else resolve_detectors(detectors, catalog)
    try:
        model = build_model(data, path, entry=entry, index=index)
    except Exception as exc:  # a model bug must not end the run
        return FileResult(path, False, f"{path}: could not build the program model "
                                       f"({type(exc).__name__}: {exc})")
    model.reference = reference_model(reference, entry)
    warnings = [f"{path}: {w}" for w in model.warnings]
    why = model.unparseable()
    if why:
        return FileResult(path, False, f"{path}: does not parse as CUDA C++ ({why})",
                          warnings=warnings, index_status=model.index_status)
    if model.unbalanced_braces is not None:
        return FileResult(path, False, f"{path}: unbalanced braces: the '{{' or '}}' at line "
                                       f"{model.unbalanced_braces} has no partner",
                          warnings=warnings, index_status=model.index_status)
    if index and model.index_status != "ok":
        warnings.append(f"{path}: libclang index {model.index_status}; access strides come "
                        "from the tree-sitter estimate")
    cat = get_catalog(catalog) if (detectors is None or detectors == "ast"
                                   or catalog is not None) else None
    labels: dict[str, Label] = {}
    for sid, ds in dets.items():
        for det in ds:
            try:
                findings = list(det.detect(model))
            except Exception as exc:
                warnings.append(f"{path}: detector {det.name} ({sid}) failed: "
                                f"{type(exc).__name__}: {exc}")
                continue
            for f in findings:
                lb = labels.get(sid)
                if lb is None:
                    lb = labels[sid] = Label(sid, _kind_of(sid, cat), f.confidence, f.intensity)
                lb.confidence = max(lb.confidence, f.confidence)
                if f.intensity is not None:
                    lb.intensity = f.intensity if lb.intensity is None else max(
                        lb.intensity, f.intensity)
                ev = Evidence(f.line_start, f.line_end, det.name, f.note)
                if all((e.line_start, e.line_end, e.detector) !=
                       (ev.line_start, ev.line_end, ev.detector) for e in lb.evidence):
                    lb.evidence.append(ev)
    out = []
    for sid in sorted(labels):
        lb = labels[sid]
        lb.evidence.sort(key=lambda e: (e.line_start, e.line_end, e.detector))
        out.append(lb)
    result = FileResult(path, True, None, out, warnings, model.index_status)
    return result if detectors == "substring" else calibrate(result)


# ---------------------------------------------------------------------------------------------
# calibration

CALIBRATION = Path(__file__).with_name("calibration.json")
_CALIBRATION: dict = {}


def calibration_model(path: Path = CALIBRATION) -> dict | None:
    """The logistic model that maps a label's features to P(label correct), fitted on the gold
    labels by ``analyses/gold-eval/calibrate.py``; None if the file is missing."""
    key = str(path)
    if key not in _CALIBRATION:
        try:
            _CALIBRATION[key] = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            _CALIBRATION[key] = None
    return _CALIBRATION[key]


def label_features(confidence: float, n_evidence: int, anti_pattern: bool) -> list[float]:
    """The calibration's features: logit of the detector confidence (clipped to 0.01-0.99),
    log(1 + evidence spans), anti-pattern 0/1."""
    c = min(max(float(confidence), 0.01), 0.99)
    return [math.log(c / (1 - c)), math.log1p(n_evidence), float(anti_pattern)]


def calibrate(result: FileResult, model: dict | None = None) -> FileResult:
    """Set each label's ``probability`` from the calibration model (left None without one)."""
    model = model if model is not None else calibration_model()
    if not model or not result.ok:
        return result
    for lb in result.labels:
        x = label_features(lb.confidence, len(lb.evidence), lb.kind == "anti-pattern")
        z = model["intercept"] + sum(c * v for c, v in zip(model["coef"], x, strict=True))
        lb.probability = 1.0 / (1.0 + math.exp(-z))
    return result


def tag_file(path: str | Path, detectors=None, entry: str = "solution_compute",
             index: bool = True, catalog=None, size_limit: int = SIZE_LIMIT,
             reference: str | bytes | None = None) -> FileResult:
    """Tag one file; problems reading it become an error result, never an exception."""
    p = str(path)
    data = _read(p, size_limit)
    if isinstance(data, FileResult):
        return data
    return tag_source(data, p, detectors, entry, index, catalog, size_limit, reference)


def _read(path: str, size_limit: int) -> bytes | FileResult:
    """Up to ``size_limit + 1`` bytes of a file (one more tells that it is too large), or an
    error result naming the file."""
    try:
        with open(path, "rb") as fh:
            return fh.read(size_limit + 1)
    except OSError as exc:
        return FileResult(path, False, f"{path}: cannot read ({exc.strerror or exc})")


# ---------------------------------------------------------------------------------------------
# many files

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


def _code_version() -> str:
    """Hash of this package's analysis code and of registered detector modules, so edits to a
    detector invalidate the cache even when the version number did not change."""
    global _CODE_VERSION
    if _CODE_VERSION:
        return _CODE_VERSION
    h = hashlib.sha256(__version__.encode())
    here = Path(__file__).parent
    files = sorted([*here.glob("*.py"), *(here / "model").glob("*.py"),
                    *(here / "detectors").glob("*.py")])
    try:
        from strategylens.catalog import catalog_dirs
        for root in catalog_dirs():
            files += sorted(root.glob("*/detector.py"))
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
        self.folder = Path(folder or os.environ.get("STRATEGYLENS_CACHE") or DEFAULT_CACHE)
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
            f.parent.mkdir(parents=True, exist_ok=True)
            d = result.as_dict()
            d["_path"] = result.path
            d["index_status"] = result.index_status
            tmp = f.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(d))
            os.replace(tmp, f)
        except OSError:
            pass  # a read-only cache folder only costs speed


_WORKER: dict = {}


def _worker_init(detectors, entry, index, catalog, size_limit, reference=None) -> None:
    _WORKER.update(dets=resolve_detectors(detectors, catalog), entry=entry, index=index,
                   catalog=catalog, size_limit=size_limit, spec=detectors, reference=reference)


def _worker_tag(items: list[tuple[str, bytes]]) -> list[FileResult]:
    w = _WORKER
    out = []
    for path, data in items:
        r = tag_source(data, path, w["dets"], w["entry"], w["index"], w["catalog"],
                       w["size_limit"], w.get("reference"))
        out.append(r)
    return out


def tag_paths(paths: Sequence[str | Path], jobs: int | None = None, detectors=None,
              entry: str = "solution_compute", index: bool = True, catalog=None,
              cache: bool | str | Path = True, size_limit: int = SIZE_LIMIT,
              chunk: int = 8, reference: str | bytes | None = None) -> Iterator[FileResult]:
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
        Use the per-file cache (a folder, or $STRATEGYLENS_CACHE, or ~/.cache/strategylens/tag).
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
                             ref_hash])
        store = Cache(None if cache is True else cache, settings)
    todo: list[tuple[str, bytes]] = []
    for f in files:
        p = str(f)
        data = _read(p, size_limit)
        if isinstance(data, FileResult):
            yield data
            continue
        if len(data) > size_limit:
            yield FileResult(p, False, check_bytes(data, p, size_limit))
            continue
        hit = store.get(data, p) if store else None
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
            r = tag_source(data, p, dets, entry, index, catalog, size_limit, reference)
            if store:
                store.put(data, r)
            yield r
        return
    chunk = max(chunk, len(todo) // (jobs * 16))  # many small chunks keep workers busy
    chunks = [todo[i:i + chunk] for i in range(0, len(todo), chunk)]
    with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), initializer=_worker_init,
                             initargs=(detectors, entry, index, catalog, size_limit,
                                       reference)) as ex:
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
                                       reference)
                        r.warnings.append(f"{p}: worker failed ({type(exc).__name__}: {exc}); "
                                          "tagged again without the libclang index")
                        results.append(r)
                for r in results:
                    if store:
                        store.put(data_of[r.path], r)
                    yield r


# ---------------------------------------------------------------------------------------------
# dynamic evidence from the harness

# Anti-patterns that audit flags show directly.
FLAG_LABELS = {"cross-call-state": "AP-04", "stale-output": "AP-04", "host-compute": "AP-05"}
ITERATIVE_LAUNCHES = 3  # kernel launches per call from which a call counts as iterative


def harness_findings(rows: Sequence[dict]) -> list[tuple[str, float, str, bool]]:
    """What a solution's harness rows (one per size) say about catalog IDs.

    Returns ``(id, confidence, note, may_add)`` tuples: ``may_add`` is True where the harness
    alone is enough to give the label (the audit's flags; bytes copied back beyond the outputs
    in an iterative call, AP-02), False where it only supports a label the code already has
    (HST-04: many launches, nothing copied back but the outputs).
    """
    out = []
    for r in rows:
        size = r.get("size", "?")
        try:
            detail = json.loads(r.get("audit_detail") or "{}")
        except (TypeError, ValueError):
            detail = {}
        flags = list(r.get("audit_flags") or [])
        for flag in flags:
            if flag == "cross-call-state" and not r.get("correct"):
                continue  # a wrong solution answers fresh inputs wrongly too: no sign of state
            if flag == "host-compute" and "timer-tamper" in flags:
                continue  # host time is measured with the clock the solution patched
            if flag in FLAG_LABELS:
                out.append((FLAG_LABELS[flag], 0.95, f"harness, {size}: {flag}: "
                            f"{str(detail.get(flag, ''))[:200]}", True))
        launches, d2h, need = r.get("kernel_launches"), r.get("d2h_bytes"), r.get("bytes_out")
        if not all(isinstance(v, numbers.Real) and v == v for v in (launches, d2h, need)):
            continue  # no profile (CUPTI missing) or a failed run
        extra = int(d2h - need)
        if launches >= ITERATIVE_LAUNCHES and 0 < extra <= max(4096, need // 100):
            out.append(("AP-02", 0.7, f"harness, {size}: {extra} bytes copied back beyond the "
                        f"{int(need)} output bytes, over {int(launches)} kernel launches per "
                        "call: a small per-iteration read-back", True))
        elif launches >= ITERATIVE_LAUNCHES and extra <= 0 < d2h:
            out.append(("HST-04", 0.0, f"harness, {size}: {int(launches)} kernel launches per "
                        "call and nothing copied back but the outputs", False))
    return out


def add_harness_evidence(result: FileResult, rows: Sequence[dict], catalog=None) -> FileResult:
    """Merge the harness's evidence (:func:`harness_findings`) into one file's labels.

    Harness evidence has line 0 and detector ``harness``. It raises a label's confidence to its
    own, adds the labels it may add, and warns where the code shows AP-04 or AP-05 and none of
    the runs did.
    """
    if not result.ok or not rows:
        return result
    by_id = {lb.id: lb for lb in result.labels}
    findings = harness_findings(rows)
    for sid, conf, note, may_add in findings:
        lb = by_id.get(sid)
        if lb is None:
            if not may_add:
                continue
            lb = by_id[sid] = Label(sid, _kind_of(sid, catalog), conf, None, [])
            result.labels.append(lb)
        if not any(e.note == note for e in lb.evidence):
            lb.evidence.append(Evidence(0, 0, "harness", note))
        lb.confidence = max(lb.confidence, conf)
    seen = {sid for sid, *_ in findings}
    sizes = ", ".join(sorted({str(r.get("size")) for r in rows}))
    for sid in ("AP-04", "AP-05"):
        if sid in by_id and sid not in seen:
            result.warnings.append(f"{result.path}: {sid} is in the code but no harness run "
                                   f"({sizes}) showed it")
    result.labels.sort(key=lambda lb: lb.id)
    return calibrate(result)


def rows_for(path: str | Path, rows: Sequence[dict]) -> list[dict]:
    """The harness rows whose ``solution`` is the file at `path`: the same file once resolved
    (store solutions are relative to the repository), else the same trailing path components."""
    from strategylens import REPO_ROOT  # noqa: PLC0415

    p = Path(path).resolve()
    same = [r for r in rows if (REPO_ROOT / str(r.get("solution", ""))).resolve() == p]
    if same:
        return same
    tail = Path(path).as_posix().lstrip("./")
    found = [r for r in rows if str(r.get("solution", "")).replace("\\", "/").endswith("/" + tail)
             or tail.endswith("/" + str(r.get("solution", "")).lstrip("./"))]
    return found if len({r.get("solution") for r in found}) == 1 else []  # ambiguous: none
