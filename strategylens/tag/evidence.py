"""Evidence from the harness (``strategylens tag --store``): what a solution's recorded runs say
about catalog IDs (audit flags, bytes copied back per call), merged into its labels."""

from __future__ import annotations

import json
import numbers
from pathlib import Path
from collections.abc import Sequence

from strategylens.detectors import Evidence, Label
from strategylens.tag.file import FileResult, kind_of, calibrate

from strategylens.harness.audit import FLAG_LABELS  # anti-patterns the audit flags show


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
            lb = by_id[sid] = Label(sid, kind_of(sid, catalog), conf, None, [])
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
