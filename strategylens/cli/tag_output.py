"""How `strategylens tag` shows its results: the human view grouped by file, SARIF 2.1.0 for
code scanning, and the ``--fail-on`` check for CI."""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from rich.markup import escape

from strategylens.cli.common import out

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
HELP = {
    "ID": "catalog ID (MEM/CMP/PAR/LBL/HST: strategies; AP: anti-patterns)",
    "name": "the catalog entry's name (`strategylens catalog show ID` explains it)",
    "lines": "lines of the evidence; 'run' is evidence from harness runs (--store)",
    "p": "calibrated probability that the label is right, fitted on hand-labelled files "
         "(strategylens/calibration.json); empty where no calibration applies",
    "confidence": "the detector's own certainty (0-1) before calibration",
}


def spans(label) -> str:
    """Evidence lines of a label: ``12, 40-42``; harness evidence reads ``run``."""
    parts = []
    for e in label.evidence:
        if e.detector == "harness":
            text = "run"
        elif e.line_start == e.line_end:
            text = str(e.line_start)
        else:
            text = f"{e.line_start}-{e.line_end}"
        if text not in parts:
            parts.append(text)
    return ", ".join(parts)


def entry_name(catalog, sid: str) -> str:
    try:
        return catalog.get(sid).name
    except (KeyError, AttributeError):
        return ""


def notes_of(result) -> list[str]:
    """The file's notes (what the tagger assumed, what evidence was unavailable), as text."""
    notes = getattr(result, "notes", None) or []
    text = []
    for n in notes:
        if isinstance(n, dict):
            text.append("; ".join(f"{k}: {v}" for k, v in n.items()))
        else:
            text.append(str(n))
    return text


def human(results: Sequence, catalog, show_evidence: bool = False,
          confidence: bool = False) -> None:
    """Ruff-style: each path once, then one line per label (ID, name, lines, p)."""
    color = out.is_terminal
    lines: list[str] = []
    for r in results:
        lines.append(f"[bold]{escape(r.path)}[/]" if color else r.path)
        if not r.ok:
            msg = (r.error or "failed").removeprefix(f"{r.path}: ")
            lines.append(f"  [red]error[/]: {escape(msg)}" if color else f"  error: {msg}")
        elif not r.labels:
            lines.append("  (no strategy or anti-pattern found)")
        names = {lb.id: entry_name(catalog, lb.id) for lb in r.labels}
        wid = max((len(n) for n in names.values()), default=0)
        wspan = max((len(spans(lb)) for lb in r.labels), default=0)
        for lb in r.labels:
            p = "" if lb.probability is None else f"p {lb.probability:.2f}"
            conf = f"  confidence {lb.confidence:.2f}" if confidence else ""
            sid = f"{lb.id:<7}"
            if color:
                sid = f"[{'yellow' if lb.kind == 'anti-pattern' else 'cyan'}]{sid}[/]"
            lines.append(f"  {sid} {escape(names[lb.id]):<{wid}}  {escape(spans(lb)):<{wspan}}"
                         f"  {p}{conf}".rstrip())
            if show_evidence:
                for e in lb.evidence:
                    where = "run" if e.detector == "harness" else (
                        f"{e.line_start}" if e.line_start == e.line_end
                        else f"{e.line_start}-{e.line_end}")
                    note = f": {e.note}" if e.note else ""
                    text = f"      {where:<9} {e.detector}{note}"
                    lines.append(f"[dim]{escape(text)}[/]" if color else text)
        for n in notes_of(r):
            lines.append(f"  [dim]note: {escape(n)}[/]" if color else f"  note: {n}")
        lines.append("")
    if color:
        for line in lines:
            out.print(line, highlight=False)
    else:
        sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))


# ---------------------------------------------------------------------------------------------
# --fail-on

def parse_patterns(values: Iterable[str] | None) -> list[str]:
    """``--fail-on AP-*,MEM-02 --fail-on flag:timer-tamper`` -> the patterns, upper-cased IDs."""
    found = []
    for v in values or []:
        for p in str(v).split(","):
            p = p.strip()
            if p:
                found.append(p if p.lower().startswith("flag:") else p.upper())
    return found


def check_patterns(patterns: Sequence[str], catalog, flag_names: Iterable[str]) -> list[str]:
    """Patterns that can never match: no catalog ID and no audit flag fits them."""
    ids = list(getattr(catalog, "ids", []) or [])
    flags = list(flag_names)
    bad = []
    for p in patterns:
        if p.lower().startswith("flag:"):
            if not fnmatch.filter(flags, p[5:]):
                bad.append(p)
        elif not fnmatch.filter(ids, p):
            bad.append(p)
    return bad


def fail_on(results: Sequence, patterns: Sequence[str], flags_of=None) -> list[tuple[str, str]]:
    """(path, what) for every label ID or audit flag the patterns select. ``flags_of(path)``
    gives the audit flags the harness recorded for a file (``--store``)."""
    hits = []
    id_pats = [p for p in patterns if not p.lower().startswith("flag:")]
    flag_pats = [p[5:] for p in patterns if p.lower().startswith("flag:")]
    for r in results:
        for lb in r.labels if r.ok else []:
            if any(fnmatch.fnmatchcase(lb.id, p) for p in id_pats):
                hits.append((r.path, lb.id))
        if flag_pats and flags_of is not None:
            for flag in sorted(set(flags_of(r.path))):
                if any(fnmatch.fnmatchcase(flag, p) for p in flag_pats):
                    hits.append((r.path, f"flag:{flag}"))
    return hits


# ---------------------------------------------------------------------------------------------
# SARIF 2.1.0

def _uri(path: str) -> tuple[str, str | None]:
    """A file's URI: relative to the current folder (with uriBaseId %SRCROOT%) when under it,
    else an absolute file URI."""
    p = Path(path).resolve()
    cwd = Path.cwd().resolve()
    if p.is_relative_to(cwd):
        return p.relative_to(cwd).as_posix(), "%SRCROOT%"
    return p.as_uri(), None


def _location(path: str, e=None) -> dict:
    uri, base = _uri(path)
    artifact = {"uri": uri, **({"uriBaseId": base} if base else {})}
    loc: dict = {"artifactLocation": artifact}
    if e is not None and e.line_start >= 1:
        loc["region"] = {"startLine": e.line_start, "endLine": max(e.line_end, e.line_start)}
    return {"physicalLocation": loc}


def _rule(entry) -> dict:
    sm = "" if entry.structural is None else (" structural" if entry.structural else " micro")
    return {
        "id": entry.id,
        "name": "".join(w.capitalize() for w in entry.slug.split("-")),
        "shortDescription": {"text": entry.name},
        "fullDescription": {"text": entry.summary},
        "help": {"text": f"{entry.summary}\n\nWhy it is faster: {entry.why_faster}\n\n"
                         f"How it is detected: {entry.detection}",
                 "markdown": f"**{entry.name}** ({entry.kind}{sm})\n\n{entry.summary}\n\n"
                             f"**Why it is faster.** {entry.why_faster}\n\n"
                             f"**How it is detected.** {entry.detection}"},
        "defaultConfiguration": {"level": "warning" if entry.kind == "anti-pattern"
                                 else "note"},
        "properties": {"family": entry.family, "kind": entry.kind,
                       "structural": entry.structural, "status": entry.status,
                       "tags": [entry.family, entry.kind, *([sm.strip()] if sm else [])]},
    }


def sarif_log(results: Sequence, catalog, *, tool_version: str, catalog_version: str | None,
              schema_version: int, arguments: Sequence[str] = ()) -> dict:
    """A SARIF 2.1.0 log: the catalog as the tool's rules, one result per label with a location
    per evidence span, failed files (level error) and each file's notes (level note) as tool
    execution notifications."""
    entries = list(getattr(catalog, "entries", []) or [])
    rules = [_rule(e) for e in entries]
    index = {e.id: i for i, e in enumerate(entries)}
    found = []
    for r in results:
        if not r.ok:
            continue
        for lb in r.labels:
            name = entry_name(catalog, lb.id)
            notes = "; ".join(dict.fromkeys(e.note for e in lb.evidence if e.note))
            text = f"{lb.id} {name}".strip() + (f": {notes}" if notes else "")
            res = {"ruleId": lb.id,
                   "level": "warning" if lb.kind == "anti-pattern" else "note",
                   "message": {"text": text},
                   "locations": [_location(r.path, e) for e in lb.evidence
                                 if e.line_start >= 1] or [_location(r.path)],
                   "properties": {"confidence": round(lb.confidence, 3),
                                  "probability": None if lb.probability is None
                                  else round(lb.probability, 3),
                                  "intensity": lb.intensity,
                                  "detectors": sorted({e.detector for e in lb.evidence})}}
            if lb.id in index:
                res["ruleIndex"] = index[lb.id]
            found.append(res)
    failures = [{"level": "error", "message": {"text": r.error or f"{r.path}: failed"},
                 "locations": [_location(r.path)]} for r in results if not r.ok]
    notes = [{"level": "note", "message": {"text": f"{r.path}: {n}"},
              "locations": [_location(r.path)]} for r in results for n in notes_of(r)]
    invocation = {"executionSuccessful": not failures,
                  "arguments": list(arguments),
                  "workingDirectory": {"uri": Path.cwd().resolve().as_uri() + "/"}}
    if failures or notes:
        invocation["toolExecutionNotifications"] = failures + notes
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "strategylens", "version": tool_version,
                                "semanticVersion": tool_version,
                                "rules": rules}},
            "invocations": [invocation],
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
            "results": found,
            "properties": {"schema_version": schema_version,
                           "catalog_version": catalog_version},
        }],
    }
