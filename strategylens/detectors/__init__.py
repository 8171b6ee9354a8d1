"""Detector API and registry.

A detector reads a :class:`strategylens.model.ProgramModel` and yields :class:`Finding` objects for
one catalog ID. Detectors are found through the entry-point group ``strategylens.detectors``; an
entry point may name a Detector subclass, an instance, or a list of either. The built-in families
register themselves the same way (see ``pyproject.toml``), so an external package adds strategies
without forking::

    [project.entry-points."strategylens.detectors"]
    mine = "my_package.detectors:DETECTORS"

Catalog entries may also carry a declarative ``query`` (a tree-sitter-cuda query); its ``@evidence``
captures in reachable code become findings (see :class:`QueryDetector`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING
from collections.abc import Iterable, Iterator

if TYPE_CHECKING:  # pragma: no cover
    from strategylens.model import ProgramModel

GROUP = "strategylens.detectors"


@dataclass(frozen=True)
class Finding:
    """One place where a strategy is present. Lines are 1-based and inclusive."""

    line_start: int
    line_end: int
    confidence: float = 0.9
    intensity: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Evidence:
    line_start: int
    line_end: int
    detector: str
    note: str = ""


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
                 **({"note": e.note} if e.note else {})}
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


def load_detectors(catalog=None) -> dict[str, list[Detector]]:
    """All registered detectors by catalog ID: entry points plus declarative catalog queries.

    Errors in a plugin are reported with the entry point's name instead of hiding all detectors.
    """
    found: dict[str, list[Detector]] = {}
    for ep in entry_points(group=GROUP):
        try:
            loaded = ep.load()
            detectors = list(_expand(loaded))
        except Exception as exc:  # a broken plugin must not break tagging
            raise RuntimeError(
                f"detector entry point '{ep.name} = {ep.value}' failed to load: {exc}") from exc
        for det in detectors:
            found.setdefault(det.id, []).append(det)
    if catalog is not None:
        for entry in catalog.entries:
            if entry.query:
                found.setdefault(entry.id, []).append(QueryDetector(entry.id, entry.query))
    return found
