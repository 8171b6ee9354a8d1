"""One shape for every rater's labels, and readers for the places labels come from.

A *rater* is anything that says which catalog IDs a file uses: the detectors (`strategylens tag
--format jsonl`), an LLM (`strategylens annotate`), AccelEval's keyword rules (`tag --detectors
substring`), a hand labeller (a gold `labels.yaml`), an expert's CSV or JSONL, or AccelEval's
analyser (`agent_pattern_analysis.json`). Each reader returns a :class:`LabelSet`: per file, the
IDs present with their lines, the rater's confidence where it gave one, and the IDs the rater
left undecided (a gold file's `unsure`), which comparisons skip.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml


class LabelError(Exception):
    """A labels file that cannot be read: names the file and the problem."""


@dataclass(frozen=True)
class Label:
    id: str
    lines: tuple[int, ...] = ()
    confidence: float | None = None
    reason: str = ""


@dataclass
class FileLabels:
    path: str
    labels: dict[str, Label] = field(default_factory=dict)
    unsure: frozenset[str] = frozenset()
    task: str | None = None
    author: str | None = None
    ok: bool = True
    error: str | None = None

    @property
    def ids(self) -> set[str]:
        return set(self.labels)


@dataclass
class LabelSet:
    """What one rater said about a set of files, keyed by path."""

    rater: str
    files: dict[str, FileLabels] = field(default_factory=dict)

    def add(self, fl: FileLabels) -> None:
        self.files[fl.path] = fl

    def lookup(self, path: str) -> FileLabels | None:
        """The entry for ``path``: the same string, else the same resolved file, else the one
        entry whose path ends with the same components (for labels written from another
        folder)."""
        if path in self.files:
            return self.files[path]
        return self.files.get(match_path(path, self.files))


def match_path(path: str, candidates) -> str | None:
    """The candidate naming the same file as ``path``: equal resolved paths first, then the
    longest common trailing run of path components, when exactly one candidate has it."""
    resolved = _resolve(path)
    for c in candidates:
        if _resolve(c) == resolved:
            return c
    parts = Path(path).parts
    best, best_n, tie = None, 0, False
    for c in candidates:
        cp = Path(c).parts
        n = 0
        while n < min(len(parts), len(cp)) and parts[-1 - n] == cp[-1 - n]:
            n += 1
        if n > best_n:
            best, best_n, tie = c, n, False
        elif n == best_n and n:
            tie = True
    return None if tie or best_n == 0 else best


def _resolve(p: str) -> str:
    try:
        return str(Path(p).resolve())
    except OSError:
        return p


def _lines(spans) -> tuple[int, ...]:
    out: set[int] = set()
    for s in spans or []:
        if isinstance(s, int):
            out.add(s)
        elif isinstance(s, (list, tuple)) and len(s) == 2:
            a, b = int(s[0]), int(s[1])
            out.update(range(min(a, b), max(a, b) + 1))
        elif isinstance(s, dict) and "line_start" in s:
            out.update(range(int(s["line_start"]), int(s.get("line_end", s["line_start"])) + 1))
    return tuple(sorted(out))


# ------------------------------------------------------------------------- readers

def read_tag_jsonl(path: Path | str, rater: str | None = None) -> LabelSet:
    """Records of `strategylens tag --format jsonl` or `strategylens annotate` (one JSON object
    per file: ``path``, ``ok``, ``labels`` with ``evidence`` spans). The rater's name is the
    records' ``rater`` field, else ``rater``, else the file's stem."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise LabelError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    found = LabelSet(rater or "")
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelError(f"{path}:{n}: not JSON: {exc.msg}") from exc
        if not isinstance(rec, dict) or "path" not in rec:
            raise LabelError(f"{path}:{n}: a record needs a 'path' field")
        if not found.rater:
            found.rater = str(rec.get("rater") or path.stem)
        labels = {}
        for lab in rec.get("labels") or []:
            conf = lab.get("probability")
            conf = lab.get("confidence") if conf is None else conf
            labels[lab["id"]] = Label(lab["id"], _lines(lab.get("evidence") or lab.get("lines")),
                                      None if conf is None else float(conf),
                                      "; ".join(e.get("note", "") for e in lab.get("evidence") or []
                                                if isinstance(e, dict) and e.get("note")))
        found.add(FileLabels(str(rec["path"]), labels, ok=bool(rec.get("ok", True)),
                             error=rec.get("error"), task=rec.get("task"),
                             author=rec.get("author")))
    return found


def read_gold(path: Path | str, rater: str | None = None) -> LabelSet:
    """A hand-labelled ``labels.yaml``: ``file.cu: {task, author, present: {ID: [lines]},
    unsure: [IDs], path}``. Paths are made relative to the yaml's folder (``path``, when given,
    says where the file lies). A task folder's
    ``labels.yaml`` (no ``task`` field) takes the task from the folder holding ``solutions/``."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except OSError as exc:
        raise LabelError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise LabelError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise LabelError(f"{path}: expected a mapping of file name to labels")
    found = LabelSet(rater or f"gold:{path.parent.name}/{path.stem}")
    for name, spec in data.items():
        if not isinstance(spec, dict):
            raise LabelError(f"{path}: entry '{name}': expected a mapping")
        present = spec.get("present") or {}
        if not isinstance(present, dict):
            raise LabelError(f"{path}: entry '{name}': 'present' must map IDs to line lists")
        file = path.parent / spec.get("path", name)
        for sub in ("solutions", "files"):  # a task folder; a public set's fetched files
            if not file.exists() and (path.parent / sub / name).exists():
                file = path.parent / sub / name
        task = spec.get("task") or (path.parent.name if (path.parent / "solutions").is_dir()
                                    else None)
        found.add(FileLabels(
            str(file), {sid: Label(sid, _lines(lines)) for sid, lines in present.items()},
            unsure=frozenset(spec.get("unsure") or []), task=task, author=spec.get("author")))
    return found


def read_table(path: Path | str, rater: str | None = None) -> LabelSet:
    """Expert labels as CSV (columns ``path, id`` and optionally ``lines`` as ``12;14-20``,
    ``confidence``, ``reason``) or JSONL (objects with the same keys, ``lines`` a list). One row
    per file and ID; a row with an empty ``id`` records a file with no labels."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise LabelError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if path.suffix == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
    else:
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise LabelError(f"{path}:{n}: not JSON: {exc.msg}") from exc
    found = LabelSet(rater or path.stem)
    for n, row in enumerate(rows, 2):
        if "path" not in row or "id" not in row:
            raise LabelError(f"{path}: row {n}: needs 'path' and 'id' columns")
        fl = found.files.get(row["path"]) or FileLabels(str(row["path"]))
        found.add(fl)
        if not row["id"]:
            continue
        lines = row.get("lines") or ()
        if isinstance(lines, str):
            lines = [tuple(int(x) for x in part.split("-")) if "-" in part else int(part)
                     for part in lines.replace(",", ";").split(";") if part.strip()]
        conf = row.get("confidence")
        fl.labels[row["id"]] = Label(row["id"], _lines(lines),
                                     float(conf) if conf not in (None, "") else None,
                                     str(row.get("reason") or ""))
    return found


def read_labels(path: Path | str, rater: str | None = None) -> LabelSet:
    """Any supported labels file, by its name: ``*.yaml`` gold, ``*.csv`` expert table,
    ``agent_pattern_analysis*.json`` needs :func:`read_acceleval_analysis` (a mapping), other
    ``*.jsonl`` tag or annotate records or an expert table."""
    path = Path(path)
    if path.suffix in (".yaml", ".yml"):
        return read_gold(path, rater)
    if path.suffix == ".csv":
        return read_table(path, rater)
    if path.suffix == ".json" and "pattern_analysis" in path.name:
        raise LabelError(f"{path}: an AccelEval analyser file: import it with a mapping "
                         "(strategylens labels import-acceleval)")
    first = next((ln for ln in _head(path) if ln.strip()), "")
    try:
        rec = json.loads(first) if first else {}
    except json.JSONDecodeError as exc:
        raise LabelError(f"{path}:1: not JSON: {exc.msg}") from exc
    if isinstance(rec, dict) and "labels" in rec:
        return read_tag_jsonl(path, rater)
    return read_table(path, rater)


def _head(path: Path) -> list[str]:
    try:
        with open(path) as fh:
            return [fh.readline() for _ in range(3)]
    except OSError as exc:
        raise LabelError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def write_jsonl(labels: LabelSet, out) -> None:
    """Write a LabelSet in the JSONL shape of `strategylens tag` (one object per file)."""
    for fl in labels.files.values():
        out.write(json.dumps(to_record(fl, labels.rater)) + "\n")


def to_record(fl: FileLabels, rater: str) -> dict:
    return {
        "path": fl.path, "ok": fl.ok, "error": fl.error, "rater": rater,
        "labels": [{
            "id": lab.id, "kind": "anti-pattern" if lab.id.startswith("AP-") else "strategy",
            "confidence": lab.confidence, "probability": None, "intensity": None,
            "evidence": [{"line_start": a, "line_end": b, "detector": rater,
                          **({"note": lab.reason} if lab.reason else {})}
                         for a, b in spans(lab.lines)],
        } for lab in sorted(fl.labels.values(), key=lambda x: x.id)],
    }


def spans(lines) -> list[tuple[int, int]]:
    """Consecutive lines joined into (start, end) spans."""
    out: list[tuple[int, int]] = []
    for ln in sorted(set(lines)):
        if out and ln == out[-1][1] + 1:
            out[-1] = (out[-1][0], ln)
        else:
            out.append((ln, ln))
    return out
