"""AccelEval's LLM analyser output (`agent_pattern_analysis.json`) as a rater's labels.

The file sits in a run folder (``runs/<model>_l<L>_<stamp>/``) and holds, per task, the patterns
one LLM found in that task's analysed sample: ``{task: {pattern_summaries: [{pattern_id,
pattern_name, code_evidence, ...}], _meta: {...}}}``. Pattern IDs (``PAT-001``...) are
AccelEval's own; a mapping file turns them (or their names) into catalog IDs. The default
mapping, ``acceleval_patterns.yaml`` beside this module, covers the IDs AccelEval's paper names
and common pattern names; copy it and edit it for your run (``--mapping FILE``). Patterns the
mapping does not cover are reported, never dropped silently.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from strategylens.labels.records import FileLabels, Label, LabelError, LabelSet
from strategylens.runfolders import sample_of

DEFAULT_MAPPING = Path(__file__).with_name("acceleval_patterns.yaml")
_SAMPLE = re.compile(r"sample_(\d+)\.cu$")


@dataclass
class Mapping:
    by_id: dict[str, list[str]] = field(default_factory=dict)
    by_name: dict[str, list[str]] = field(default_factory=dict)  # lower-case phrase -> IDs

    def ids_for(self, pattern_id: str | None, name: str | None) -> list[str]:
        if pattern_id and pattern_id in self.by_id:
            return self.by_id[pattern_id]
        low = (name or "").lower()
        for phrase, ids in self.by_name.items():
            if phrase in low:
                return ids
        return []


def load_mapping(path: Path | str | None = None, known: set[str] | None = None) -> Mapping:
    """Read a mapping file (``by_id: {PAT-001: [MEM-02]}``, ``by_name: {"warp shuffle":
    [PAR-03]}``); with ``known``, every target must be a catalog ID."""
    path = Path(path or DEFAULT_MAPPING)
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except OSError as exc:
        raise LabelError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise LabelError(f"{path}: not valid YAML: {exc}") from exc
    m = Mapping({str(k): _ids(v) for k, v in (data.get("by_id") or {}).items()},
                {str(k).lower(): _ids(v) for k, v in (data.get("by_name") or {}).items()})
    if known is not None:
        bad = sorted({i for ids in [*m.by_id.values(), *m.by_name.values()] for i in ids} - known)
        if bad:
            raise LabelError(f"{path}: not catalog IDs: {', '.join(bad)}")
    return m


def _ids(v) -> list[str]:
    return [v] if isinstance(v, str) else [str(x) for x in (v or [])]


def read_acceleval_analysis(path: Path | str, mapping: Mapping | None = None,
                            run_dir: Path | str | None = None) -> tuple[LabelSet, list[str]]:
    """Labels from an ``agent_pattern_analysis.json``, with the warnings met on the way.

    Each task entry is the analysed sample ``<run_dir>/<task>/sample_<k>.cu`` (``run_dir``
    defaults to the file's folder): ``k`` from ``_meta`` (``sample_id``, ``sample`` or a
    ``source_path``), else the task's only sample. Evidence lines are where the quoted
    ``code_evidence`` lines occur in that file.
    """
    path = Path(path)
    mapping = mapping or load_mapping()
    run_dir = Path(run_dir) if run_dir else path.parent
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise LabelError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise LabelError(f"{path}: not JSON: {exc.msg} (line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise LabelError(f"{path}: expected an object keyed by task")
    found = LabelSet(f"acceleval-analyser:{run_dir.name}")
    warnings: list[str] = []
    unmapped: dict[str, int] = {}
    for task, entry in sorted(data.items()):
        if not isinstance(entry, dict):
            warnings.append(f"{path}: task '{task}': not an object, skipped")
            continue
        sample, why = _sample_file(run_dir, task, entry.get("_meta") or {})
        if sample is None:
            warnings.append(f"{path}: task '{task}': {why}")
            continue
        try:
            source = sample.read_text(errors="replace").splitlines()
        except OSError:
            source = []
        found_sample = sample_of(sample)  # the model of the sample's meta, else the run folder
        fl = FileLabels(str(sample), task=task,
                        author=found_sample.model if found_sample else run_dir.name,
                        ok=not entry.get("parse_error"),
                        error="the analyser's reply did not parse" if entry.get("parse_error")
                        else None)
        for ps in entry.get("pattern_summaries") or []:
            ids = mapping.ids_for(ps.get("pattern_id"), ps.get("pattern_name"))
            if not ids:
                key = f"{ps.get('pattern_id')} {ps.get('pattern_name')}".strip()
                unmapped[key] = unmapped.get(key, 0) + 1
                continue
            lines = evidence_lines(source, ps.get("code_evidence") or "")
            for sid in ids:
                old = fl.labels.get(sid)
                fl.labels[sid] = Label(sid, tuple(sorted(set(lines) | set(old.lines if old else ()))),
                                       None, str(ps.get("pattern_name") or ""))
        found.add(fl)
    for key, n in sorted(unmapped.items()):
        warnings.append(f"{path}: pattern '{key}' ({n}x) has no catalog ID in the mapping; "
                        "add it to a copy of the mapping file (--mapping)")
    return found, warnings


def _sample_file(run_dir: Path, task: str, meta: dict) -> tuple[Path | None, str]:
    for key in ("sample_id", "sample"):
        if key in meta and str(meta[key]).isdigit():
            p = run_dir / task / f"sample_{int(meta[key])}.cu"
            return (p, "") if p.exists() else (None, f"{p} named by _meta.{key} does not exist")
    if meta.get("source_path"):
        p = Path(meta["source_path"])
        cand = run_dir / task / p.name
        if cand.exists():
            return cand, ""
    samples = sorted((run_dir / task).glob("sample_*.cu")) if (run_dir / task).is_dir() else []
    if len(samples) == 1:
        return samples[0], ""
    if not samples:
        return None, f"no sample_<k>.cu under {run_dir / task}"
    return None, (f"{len(samples)} samples under {run_dir / task} and _meta names none: "
                  "cannot tell which one was analysed")


def evidence_lines(source: list[str], quoted: str) -> list[int]:
    """1-based lines of ``source`` that a quoted evidence block reproduces (comments and
    whitespace ignored; lines shorter than 8 characters are too common to place)."""
    def norm(s: str) -> str:
        return re.sub(r"\s+", "", s.split("//")[0])

    index: dict[str, list[int]] = {}
    for n, line in enumerate(source, 1):
        key = norm(line)
        if len(key) >= 8:
            index.setdefault(key, []).append(n)
    out: set[int] = set()
    for q in quoted.splitlines():
        out.update(index.get(norm(q), []))
    return sorted(out)
