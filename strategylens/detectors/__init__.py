"""Detector API and registry.

A detector reads a :class:`strategylens.model.ProgramModel` and yields :class:`Finding` objects for
one catalog ID. Each lives in its strategy's folder, ``catalog/<ID>-<slug>/detector.py``, beside
the definition and the examples; :func:`load_detectors` imports the ``detector.py`` of every
catalog entry and takes the :class:`Detector` subclasses it defines (or its ``DETECTORS`` list).
Catalog folders are found through the entry-point group ``strategylens.catalogs`` (the built-in
catalog registers itself the same way, see ``pyproject.toml``), ``$STRATEGYLENS_CATALOG`` and
``--catalog``, so an external package adds strategies with one entry point::

    [project.entry-points."strategylens.catalogs"]
    mine = "my_package:CATALOG"      # a folder of <ID>-<slug>/ entries

A detector imports only from :mod:`strategylens.model` and this module, never from another
detector. Catalog entries may also carry a declarative ``query`` (a tree-sitter-cuda query); its
``@evidence`` captures in reachable code become findings (see :class:`QueryDetector`).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from collections.abc import Iterable, Iterator

if TYPE_CHECKING:  # pragma: no cover
    from tree_sitter import Node

    from strategylens.model import ProgramModel

DETECTOR_FILE = "detector.py"


@dataclass(frozen=True)
class Finding:
    """One place where a strategy is present. Lines are 1-based and inclusive."""

    line_start: int
    line_end: int
    confidence: float = 0.9
    intensity: float | None = None
    note: str = ""

    @classmethod
    def at(cls, node: Node, confidence: float, intensity: float | None = None,
           note: str = "") -> Finding:
        """A one-line finding at the first line of ``node``."""
        line = node.start_point[0] + 1
        return cls(line, line, confidence=confidence, intensity=intensity, note=note)


@dataclass(frozen=True)
class Evidence:
    line_start: int
    line_end: int
    detector: str
    note: str = ""
    kernel: str = ""  # the kernel or device function the evidence lies in, if any


@dataclass
class Label:
    """A catalog ID present in a file, with its evidence."""

    id: str
    kind: str  # "strategy" or "anti-pattern"
    confidence: float
    intensity: float | None
    evidence: list[Evidence] = field(default_factory=list)
    probability: float | None = None  # calibrated on gold labels (strategylens/calibration.json)

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "confidence": round(self.confidence, 3),
            "probability": None if self.probability is None else round(self.probability, 3),
            "intensity": self.intensity,
            "evidence": [
                {"line_start": e.line_start, "line_end": e.line_end, "detector": e.detector,
                 **({"note": e.note} if e.note else {}),
                 **({"kernel": e.kernel} if e.kernel else {})}
                for e in self.evidence
            ],
        }


class Detector:
    """Base class: set ``id`` and implement :meth:`detect`.

    ``name`` defaults to the class name and is what evidence records as its detector.
    ``needs_index`` marks detectors that use libclang index analysis (``model.index``); they must
    still work, at lower confidence, when the index is missing.
    """

    id: str = ""
    name: str = ""
    needs_index: bool = False

    def __init__(self) -> None:
        if not self.name:
            self.name = type(self).__name__

    def detect(self, model: ProgramModel) -> Iterable[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError


class LineDetector(Detector):
    """A detector whose :meth:`find` may report a line more than once (several calls or
    variables on one line); :meth:`detect` keeps one finding per line span, the surest."""

    def detect(self, model: ProgramModel) -> list[Finding]:
        best: dict[tuple[int, int], Finding] = {}
        for f in self.find(model):
            key = (f.line_start, f.line_end)
            if key not in best or f.confidence > best[key].confidence:
                best[key] = f
        return sorted(best.values(), key=lambda f: f.line_start)

    def find(self, model: ProgramModel) -> Iterator[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError


class QueryDetector(Detector):
    """A declarative detector from a catalog entry's ``query``: each ``@evidence`` capture in
    reachable code is a finding."""

    def __init__(self, strategy_id: str, query: str) -> None:
        self.id = strategy_id
        self.name = f"query:{strategy_id}"
        self.query = query

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for node in model.query(self.query, capture="evidence"):
            yield Finding(node.start_point[0] + 1, node.end_point[0] + 1, confidence=0.8)


def _expand(obj) -> Iterator[Detector]:
    if isinstance(obj, Detector):
        yield obj
    elif isinstance(obj, type) and issubclass(obj, Detector):
        yield obj()
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _expand(item)
    else:
        raise TypeError(f"not a Detector, Detector class or list of them: {obj!r}")


_MODULES: dict[Path, object] = {}


def detector_module(path: Path):
    """Import a catalog entry's ``detector.py`` (once per process) under the module name
    ``strategylens_catalog.<folder>``. Raises RuntimeError naming the file when it fails."""
    path = Path(path).resolve()
    if path not in _MODULES:
        name = "strategylens_catalog." + re.sub(r"\W", "_", path.parent.name)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise RuntimeError(f"{path}: the detector failed to load: "
                               f"{type(exc).__name__}: {exc}") from exc
        _MODULES[path] = module
    return _MODULES[path]


def entry_detectors(folder: Path, strategy_id: str) -> list[Detector]:
    """The detectors of one catalog entry: its ``detector.py``'s ``DETECTORS`` list, else every
    Detector subclass the file defines; none when the entry has no ``detector.py``. Raises
    RuntimeError naming the file when a detector's ``id`` is not the entry's."""
    path = Path(folder) / DETECTOR_FILE
    if not path.is_file():
        return []
    module = detector_module(path)
    if hasattr(module, "DETECTORS"):
        found = list(_expand(module.DETECTORS))
    else:
        found = [obj() for obj in vars(module).values()
                 if isinstance(obj, type) and issubclass(obj, Detector)
                 and obj.__module__ == module.__name__ and obj.id]
    for det in found:
        if det.id != strategy_id:
            raise RuntimeError(f"{path}: detector {det.name} has id {det.id!r}; a detector in "
                               f"this folder must have id {strategy_id!r}")
    return found


def load_detectors(catalog=None) -> dict[str, list[Detector]]:
    """All detectors by catalog ID: each entry's ``detector.py`` plus declarative queries.

    ``catalog`` is a :class:`strategylens.catalog.Catalog` (the default catalog folders when
    None). A detector that fails to load raises RuntimeError naming its file.
    """
    if catalog is None:
        from strategylens.catalog import load_catalog

        catalog = load_catalog(check_examples=False)
    found: dict[str, list[Detector]] = {}
    for entry in catalog.entries:
        for det in entry_detectors(entry.path, entry.id):
            found.setdefault(det.id, []).append(det)
    for entry in catalog.entries:
        if entry.query:
            found.setdefault(entry.id, []).append(QueryDetector(entry.id, entry.query))
    return found
