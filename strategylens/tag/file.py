"""Tagging one file: build its program model, run the detectors, merge their findings into one
:class:`Label` per catalog ID, and give each label its calibrated probability.

A bad file never raises: it gets ``ok=False`` and an error that names the file and the problem
(empty, binary, not UTF-8, too large, unbalanced braces), or a degraded result with warnings
(unknown macros, parse errors around a construct, libclang missing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from strategylens.detectors import Detector, Evidence, Label, load_detectors
from strategylens.resources import PACKAGE_DIR

SIZE_LIMIT = 2 * 1024 * 1024


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
    notes: list[str] = field(default_factory=list)  # the model's assumptions and missing evidence
    combined: dict | None = None  # {"by": "combiner"|"rule", "sources": [...]} (--with-annotations)

    def as_dict(self) -> dict:
        """``{"path", "ok", "error", "labels": [...], "warnings", "notes"}`` (and ``combined``)."""
        out = {"path": self.path, "ok": self.ok, "error": self.error,
               "labels": [lb.as_dict() for lb in self.labels], "warnings": list(self.warnings),
               "notes": list(self.notes)}
        if self.combined is not None:
            out["combined"] = self.combined
        return out

    @classmethod
    def from_dict(cls, d: dict, index_status: str | None = None) -> FileResult:
        labels = [Label(lb["id"], lb["kind"], lb["confidence"], lb["intensity"],
                        [Evidence(e["line_start"], e["line_end"], e["detector"], e.get("note", ""),
                                  e.get("kernel", ""))
                         for e in lb["evidence"]], lb.get("probability"))
                  for lb in d.get("labels", [])]
        return cls(d["path"], d["ok"], d.get("error"), labels, list(d.get("warnings", [])),
                   index_status, notes=list(d.get("notes", [])), combined=d.get("combined"))

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


def get_catalog(catalog=None):
    """A Catalog: the object given, or the one loaded from a folder (or the built-in one)."""
    if catalog is not None and not isinstance(catalog, (str, Path, list, tuple)):
        return catalog
    extra = [catalog] if isinstance(catalog, (str, Path)) else list(catalog or [])
    key = "catalog:" + "|".join(map(str, extra))
    if key not in _CATALOGS:
        from strategylens.catalog import load_catalog
        _CATALOGS[key] = without_broken_detectors(load_catalog(extra, check_examples=False))
    return _CATALOGS[key]


def without_broken_detectors(catalog):
    """The catalog without the entries whose ``detector.py`` fails to load (an import error, a
    wrong ``id``); each such failure becomes one of its errors, naming the file, so the other
    detectors still run and ``catalog validate`` reports it."""
    from dataclasses import replace

    from strategylens.catalog import CatalogError
    from strategylens.detectors import entry_detectors

    kept, errors = [], list(catalog.errors)
    for entry in catalog.entries:
        try:
            entry_detectors(entry.path, entry.id)
        except RuntimeError as exc:
            text = str(exc).removeprefix(f"{Path(entry.path).resolve() / 'detector.py'}: ")
            errors.append(CatalogError(Path(entry.path) / "detector.py", "(detector)", text,
                                       f"fix the detector, or remove {entry.path}; {entry.id} "
                                       "is not tagged until then"))
            continue
        kept.append(entry)
    if len(kept) == len(catalog.entries):
        return catalog
    return replace(catalog, entries=kept, errors=errors)


def kind_of(sid: str, catalog) -> str:
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

def size_text(n: int) -> str:
    """Bytes for people: ``5.0 MiB``, ``300 bytes``.

    >>> size_text(5 * 2**20), size_text(300), size_text(2048)
    ('5.0 MiB', '300 bytes', '2.0 KiB')
    """
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def too_large(path: str, size: int, size_limit: int) -> str:
    exact = f" ({size} bytes)" if size >= 1024 else ""
    return (f"{path}: not tagged: {size_text(size)}{exact} is over the "
            f"{size_text(size_limit)} limit for one file; raise it with --max-bytes BYTES "
            "(or max-bytes in the [tag] table of strategylens.toml)")


def check_bytes(data: bytes, path: str, size_limit: int = SIZE_LIMIT) -> str | None:
    """Why ``data`` cannot be tagged (an error naming the file), or None."""
    if len(data) > size_limit:
        return too_large(path, len(data), size_limit)
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
               size_limit: int = SIZE_LIMIT, reference: str | bytes | None = None,
               include_dirs: Sequence[str] = (), defines: Mapping[str, str] | None = None
               ) -> FileResult:
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
    include_dirs, defines
        ``-I`` folders and ``-D`` macros, as the compiler would be given them (see
        :func:`strategylens.model.build_model`).

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
        model = build_model(data, path, entry=entry, index=index, include_dirs=include_dirs,
                            defines=defines)
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
                    lb = labels[sid] = Label(sid, kind_of(sid, cat), f.confidence, f.intensity)
                lb.confidence = max(lb.confidence, f.confidence)
                if f.intensity is not None:
                    lb.intensity = f.intensity if lb.intensity is None else max(
                        lb.intensity, f.intensity)
                ev = Evidence(f.line_start, f.line_end, det.name, f.note,
                              _device_function_at(model, f.line_start))
                if all((e.line_start, e.line_end, e.detector) !=
                       (ev.line_start, ev.line_end, ev.detector) for e in lb.evidence):
                    lb.evidence.append(ev)
    out = []
    for sid in sorted(labels):
        lb = labels[sid]
        lb.evidence.sort(key=lambda e: (e.line_start, e.line_end, e.detector))
        out.append(lb)
    result = FileResult(path, True, None, out, warnings, model.index_status,
                        notes=list(model.notes))
    return result if detectors == "substring" else calibrate(result)


def _device_function_at(model, line: int) -> str:
    """The innermost kernel or device function whose lines hold ``line`` ('' when none)."""
    best = None
    for fn in model.kernels + model.device_functions:
        if fn.line_start <= line <= fn.line_end and (
                best is None or fn.line_start >= best.line_start):
            best = fn
    return best.name if best is not None else ""


def tag_file(path: str | Path, detectors=None, entry: str = "solution_compute",
             index: bool = True, catalog=None, size_limit: int = SIZE_LIMIT,
             reference: str | bytes | None = None, include_dirs: Sequence[str] = (),
             defines: Mapping[str, str] | None = None) -> FileResult:
    """Tag one file; problems reading it become an error result, never an exception."""
    p = str(path)
    data = read_source(p, size_limit)
    if isinstance(data, FileResult):
        return data
    return tag_source(data, p, detectors, entry, index, catalog, size_limit, reference,
                      include_dirs, defines)


def tag_example(path: str | Path, detectors=None, index: bool = True, catalog=None) -> FileResult:
    """Tag a catalog example or case as ``strategylens catalog test`` does: with the task
    reference its header names (``// reference: FILE``), if any."""
    from strategylens.catalog import case_reference

    ref = case_reference(Path(path))
    return tag_file(path, detectors=detectors, index=index, catalog=catalog,
                    reference=ref.read_bytes() if ref is not None else None)


def read_source(path: str, size_limit: int) -> bytes | FileResult:
    """The bytes of a regular file, or an error result naming the file: missing, a broken or
    looping symlink, not a regular file (a FIFO would block), over ``size_limit`` (its real
    size), unreadable."""
    import os
    import stat

    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return FileResult(path, False, f"{path}: broken symlink (to {os.readlink(path)})")
        return FileResult(path, False, f"{path}: no such file or folder")
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            return FileResult(path, False, f"{path}: symlink loop (the link points back to "
                                           "itself); fix or remove the link")
        return FileResult(path, False, f"{path}: cannot read ({exc.strerror or exc})")
    if not stat.S_ISREG(st.st_mode):
        what = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if (
            stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)) else "a socket" if \
            stat.S_ISSOCK(st.st_mode) else "not a regular file"
        return FileResult(path, False, f"{path}: not tagged: {what}, not a source file")
    if st.st_size > size_limit:
        return FileResult(path, False, too_large(path, st.st_size, size_limit))
    try:
        with open(path, "rb") as fh:
            return fh.read(size_limit + 1)
    except OSError as exc:
        return FileResult(path, False, f"{path}: cannot read ({exc.strerror or exc})")


# ---------------------------------------------------------------------------------------------
# calibration

CALIBRATION = PACKAGE_DIR / "calibration.json"
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
