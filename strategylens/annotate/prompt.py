"""The versioned prompt and the reply schema of `strategylens annotate`.

The prompt is built from the catalog's definitions (ID, name, one-line summary, kind), the
taxonomy's labelling rules, the solution with line numbers, the task's C reference when known,
and the detectors' evidence as hints. The model must answer with JSON matching
:func:`reply_schema`: the IDs it finds, each with line spans and a one-line reason. Changing any
text here changes what a model is asked, so bump :data:`PROMPT_VERSION` (it keys the cache and
names the rater).
"""

from __future__ import annotations

import hashlib
import json

PROMPT_VERSION = "sl-annotate-1"
MAX_SOURCE_CHARS = 60_000
MAX_REFERENCE_CHARS = 12_000

RULES = """\
Labelling rules:
- A strategy is present when the code implements it on a path the entry point executes for the
  task's inputs; dead code, comments and unused helpers do not count.
- Library calls count once for the library family (HST-06 vendor math library, HST-07 Thrust/CUB)
  and also for what the call implements only when the solution itself arranges it.
- Anti-patterns (AP-*) are flags: report them where the code shows them.
- Evidence is line spans in the numbered solution below. A label without evidence is not a label.
- Report only IDs from the catalog list. When unsure, leave the ID out.
- The detector hints come from static analysis and can be wrong or incomplete: check them
  against the code; do not copy them."""


def reply_schema(ids: list[str]) -> dict:
    """JSON Schema of a valid reply, with the catalog's IDs as the allowed values."""
    return {
        "type": "object",
        "required": ["labels"],
        "additionalProperties": True,
        "properties": {
            "labels": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "lines", "reason"],
                    "properties": {
                        "id": {"type": "string", "enum": sorted(ids)},
                        "lines": {
                            "type": "array", "minItems": 1,
                            "items": {"type": "array", "minItems": 2, "maxItems": 2,
                                      "items": {"type": "integer", "minimum": 1}},
                        },
                        "reason": {"type": "string", "minLength": 1, "maxLength": 400},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    },
                },
            },
        },
    }


def catalog_text(catalog) -> str:
    lines = []
    for e in sorted(catalog.entries, key=lambda e: e.id):
        if getattr(e, "status", "active") == "retired":
            continue
        summary = " ".join(str(e.summary).split())
        lines.append(f"{e.id} ({e.kind}) {e.name}: {summary}")
    return "\n".join(lines)


def numbered(source: str) -> str:
    return "\n".join(f"{n:4d}| {line}" for n, line in enumerate(source.splitlines(), 1))


def build_messages(catalog, source: str, reference: str | None = None,
                   hints: list[dict] | None = None) -> tuple[str, list[dict]]:
    """(system prompt, messages) for one solution.

    ``hints`` are the detectors' labels (``{"id", "evidence": [{"line_start", "line_end"}]}``).
    Over-long sources and references are cut with a marker saying so.
    """
    ids = [e.id for e in catalog.entries]
    system = (
        "You label CUDA solutions with the optimisation strategies and anti-patterns of a fixed "
        "catalog, as an expert GPU performance engineer would.\n\n"
        f"Catalog:\n{catalog_text(catalog)}\n\n{RULES}\n\n"
        "Reply with one JSON object and nothing else, matching this JSON Schema:\n"
        + json.dumps(reply_schema(ids)))
    parts = []
    if reference:
        parts.append("The task's single-threaded C reference (what the solution must compute):\n"
                     "```c\n" + _cut(reference, MAX_REFERENCE_CHARS) + "\n```")
    parts.append("The CUDA solution, with line numbers:\n```cuda\n"
                 + _cut(numbered(source), MAX_SOURCE_CHARS) + "\n```")
    if hints:
        hint_lines = []
        for h in hints:
            spans = ", ".join(f"{e['line_start']}-{e['line_end']}" for e in h.get("evidence", []))
            hint_lines.append(f"- {h['id']} at lines {spans or '?'}")
        parts.append("Detector hints (static analysis; verify them):\n" + "\n".join(hint_lines))
    parts.append('Label the solution. Reply as {"labels": [{"id": ..., "lines": [[start, end]], '
                 '"reason": "...", "confidence": 0.0-1.0}]}.')
    return system, [{"role": "user", "content": "\n\n".join(parts)}]


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... [cut: {len(text) - limit} more characters not shown]"


def request_key(provider: str, model: str, system: str, messages: list[dict],
                params: dict | None = None) -> str:
    """Cache key of one request: provider, model, prompt version and everything sent (so the
    catalog text, the file, the reference and the hints all take part)."""
    h = hashlib.sha256()
    for part in (provider, model, PROMPT_VERSION, system,
                 json.dumps(messages, sort_keys=True), json.dumps(params or {}, sort_keys=True)):
        h.update(part.encode() + b"\0")
    return h.hexdigest()
