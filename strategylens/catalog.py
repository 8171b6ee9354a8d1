"""The strategy catalog: entries as tested data.

Each entry is a folder ``<ID>-<slug>/`` holding ``strategy.yaml`` (checked against
``schemas/strategy.schema.json``), its detector ``detector.py``, ``positive/*.cu`` and
``negative/*.cu`` examples and ``cases/*.cu`` regression cases, whose line annotations
(``// expect: ID``, ``// ok: ID``, ``// todo-expect: ID``) say what a detector must and must not
report. Where a folder sits registers it: there is no list to keep in sync.

Catalog folders (folders of entries) come from the entry-point group ``strategylens.catalogs``,
where the built-in catalog registers itself as an external package would (an entry point names a
folder, a list of folders, or a function returning them), then from the ``STRATEGYLENS_CATALOG``
environment variable (paths joined by ``:``) and ``--catalog DIR``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from collections.abc import Callable, Iterable

import yaml

from strategylens import REPO_ROOT
from strategylens.resources import CATALOG_DIR

BUILTIN_CATALOG = CATALOG_DIR
ENV_VAR = "STRATEGYLENS_CATALOG"
GROUP = "strategylens.catalogs"
SCHEMA_PATH = Path(__file__).parent / "schemas" / "strategy.schema.json"
FAMILIES = ("MEM", "CMP", "PAR", "LBL", "HST", "AP")
MIN_EXAMPLES = 2


class CatalogError(Exception):
    """A problem in one catalog file: names the file, the field and how to fix it."""

    def __init__(self, file: Path | str, field: str, problem: str, fix: str) -> None:
        self.file, self.field, self.problem, self.fix = str(file), field, problem, fix
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.file}: field '{self.field}': {self.problem}. Fix: {self.fix}"

    def as_dict(self) -> dict:
        return {"file": self.file, "field": self.field, "problem": self.problem, "fix": self.fix}


@dataclass(frozen=True)
class Annotation:
    line: int  # 1-based line the annotation applies to
    kind: str  # "expect", "ok" or "todo-expect"
    id: str


@dataclass
class Entry:
    id: str
    slug: str
    name: str
    family: str
    kind: str
    structural: bool | None
    status: str
    summary: str
    why_faster: str
    detection: str
    intensity: dict | None
    references: list[dict]
    path: Path
    query: str | None = None
    positives: list[Path] = field(default_factory=list)
    negatives: list[Path] = field(default_factory=list)
    cases: list[Path] = field(default_factory=list)

    @property
    def examples(self) -> list[Path]:
        """The documented examples (positive and negative)."""
        return self.positives + self.negatives

    @property
    def annotated(self) -> list[Path]:
        """Every annotated file the catalog test scores: the examples and the cases."""
        return self.positives + self.negatives + self.cases

    @property
    def detector(self) -> Path | None:
        """The entry's ``detector.py``, if it has one."""
        path = self.path / "detector.py"
        return path if path.is_file() else None

    def summary_row(self) -> dict:
        return {
            "id": self.id,
            "slug": self.slug,
            "name": self.name,
            "family": self.family,
            "kind": self.kind,
            "structural": self.structural,
            "status": self.status,
            "intensity": self.intensity["measure"] if self.intensity else None,
            "examples": f"{len(self.positives)}+/{len(self.negatives)}-",
            "cases": len(self.cases),
            "path": str(self.path),
        }


@dataclass
class Catalog:
    entries: list[Entry]
    errors: list[CatalogError]
    dirs: list[Path]

    def get(self, strategy_id: str) -> Entry:
        for entry in self.entries:
            if entry.id == strategy_id.upper():
                return entry
        raise KeyError(strategy_id)

    @property
    def ids(self) -> list[str]:
        return [e.id for e in self.entries]

    @cached_property
    def version(self) -> str:
        """Hash of every strategy.yaml: changes whenever any definition changes."""
        h = hashlib.sha256()
        for entry in sorted(self.entries, key=lambda e: e.id):
            h.update((entry.path / "strategy.yaml").read_bytes())
        return h.hexdigest()[:16]


@dataclass(frozen=True)
class ExampleOutcome:
    """One scored annotation or unannotated report (ast-grep's four outcomes)."""

    example: str
    id: str
    line: int
    outcome: str  # validated | reported | missing | noisy | todo


def registered_dirs(problems: list[CatalogError] | None = None) -> list[Path]:
    """Catalog folders named by the entry points of ``strategylens.catalogs`` (the built-in one
    first). An entry point that fails to load raises RuntimeError naming it, or, with
    ``problems``, is left out and added there as a :class:`CatalogError`."""
    from importlib.metadata import entry_points

    dirs: list[Path] = []
    eps = sorted(entry_points(group=GROUP), key=lambda ep: (ep.name != "builtin", ep.name))
    for ep in eps:
        try:
            value = ep.load()
            value = value() if callable(value) else value
            values = value if isinstance(value, (list, tuple)) else [value]
            dirs += [Path(v) for v in values]
        except Exception as exc:  # a broken plugin names itself instead of hiding the others
            message = (f"catalog entry point '{ep.name} = {ep.value}' failed to load: "
                       f"{type(exc).__name__}: {exc}")
            if problems is None:
                raise RuntimeError(message) from exc
            dist = getattr(getattr(ep, "dist", None), "name", None) or "?"
            problems.append(CatalogError(f"entry point {ep.name} (package {dist})",
                                         "strategylens.catalogs", message,
                                         f"install what the package needs, or uninstall {dist}"))
    return dirs


def catalog_dirs(extra: Iterable[Path | str] = (),
                 problems: list[CatalogError] | None = None) -> list[Path]:
    """The registered catalogs (entry points, the built-in one first, and the built-in one even
    when the package metadata is missing), then $STRATEGYLENS_CATALOG, then ``extra``."""
    dirs = registered_dirs(problems)
    if BUILTIN_CATALOG.resolve() not in [d.resolve() for d in dirs]:
        dirs.insert(0, BUILTIN_CATALOG)
    env = os.environ.get(ENV_VAR, "")
    dirs += [Path(p) for p in env.split(os.pathsep) if p]
    dirs += [Path(p) for p in extra]
    unique: list[Path] = []
    for d in dirs:
        d = d.resolve()
        if d not in unique:
            unique.append(d)
    return unique


_SCHEMA: dict | None = None


def _schema() -> dict:
    global _SCHEMA
    if _SCHEMA is None:
        _SCHEMA = json.loads(SCHEMA_PATH.read_text())
    return _SCHEMA


def _fix_for(error, schema: dict) -> tuple[str, str, str]:
    """(field, problem, fix) for one schema error, in words a contributor can act on."""
    path = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    props = schema.get("properties", {})
    if error.validator == "required":
        missing = re.findall(r"'([^']+)' is a required property", error.message)
        name = missing[0] if missing else "?"
        desc = props.get(name, {}).get("description", "")
        return name, "is missing", f"add `{name}:` to the file" + (f" ({desc})" if desc else "")
    if error.validator == "additionalProperties":
        extra = re.findall(r"'([^']+)'", error.message)
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        return (extra[0] if extra else path), "is not a known field", \
            f"remove it or correct its spelling; allowed fields: {allowed}"
    if error.validator == "enum":
        choices = ", ".join(map(str, error.validator_value))
        return path, f"value {error.instance!r} is not allowed", f"use one of: {choices}"
    if error.validator == "pattern":
        desc = props.get(path, {}).get("description", "")
        return path, f"value {error.instance!r} does not match {error.validator_value}", \
            desc or f"make it match the pattern {error.validator_value}"
    if error.validator == "type":
        return path, f"has type {type(error.instance).__name__}", \
            f"make it a {error.validator_value} (see the schema {SCHEMA_PATH.name})"
    if error.validator == "minLength":
        return path, "is too short", f"write at least {error.validator_value} characters"
    return path, error.message, f"see {SCHEMA_PATH}"


def _check_entry(folder: Path, data: object) -> tuple[Entry | None, list[CatalogError]]:
    yml = folder / "strategy.yaml"
    errors: list[CatalogError] = []
    if not isinstance(data, dict):
        return None, [CatalogError(yml, "(top level)", "is not a mapping of fields",
                                   "write `key: value` lines as in any other entry")]
    import jsonschema  # imported here so commands that never validate run without it

    schema = _schema()
    validator = jsonschema.Draft202012Validator(schema)
    for error in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
        errors.append(CatalogError(yml, *_fix_for(error, schema)))
    if errors:
        return None, errors

    sid, slug, family, kind = data["id"], data["slug"], data["family"], data["kind"]
    if folder.name != f"{sid}-{slug}":
        errors.append(CatalogError(yml, "id", f"folder is named '{folder.name}'",
                                   f"rename the folder to '{sid}-{slug}' or correct id/slug"))
    if sid.split("-")[0] != family:
        errors.append(CatalogError(yml, "family", f"'{family}' does not match the id prefix of {sid}",
                                   f"set family: {sid.split('-')[0]} or correct the id"))
    if (family == "AP") != (kind == "anti-pattern"):
        want = "anti-pattern" if family == "AP" else "strategy"
        errors.append(CatalogError(yml, "kind", f"'{kind}' does not fit family {family}",
                                   f"set kind: {want}"))
    if kind == "anti-pattern" and data["structural"] is not None:
        errors.append(CatalogError(yml, "structural", "is set on an anti-pattern",
                                   "set structural: null (the S/m flag is for strategies)"))
    if kind == "strategy" and data["structural"] is None:
        errors.append(CatalogError(yml, "structural", "is null on a strategy",
                                   "set structural: true (S, structural) or false (m, micro)"))
    if data.get("query"):
        try:
            import tree_sitter
            import tree_sitter_cuda

            tree_sitter.Query(tree_sitter.Language(tree_sitter_cuda.language()), data["query"])
        except Exception as exc:  # tree-sitter's QueryError and friends
            errors.append(CatalogError(yml, "query", f"is not a valid tree-sitter-cuda query ({exc})",
                                       "test the query with `strategylens catalog test --only "
                                       f"{sid}` and capture the reported node as @evidence"))

    entry = Entry(
        id=sid, slug=slug, name=data["name"], family=family, kind=kind,
        structural=data["structural"], status=data["status"], summary=data["summary"].strip(),
        why_faster=data["why_faster"].strip(), detection=data["detection"].strip(),
        intensity=data.get("intensity"), references=data.get("references", []), path=folder,
        query=data.get("query"),
        positives=sorted((folder / "positive").glob("*.cu")),
        negatives=sorted((folder / "negative").glob("*.cu")),
        cases=sorted((folder / "cases").glob("*.cu")),
    )
    if data["status"] != "retired":
        for label, files in (("positive", entry.positives), ("negative", entry.negatives)):
            if len(files) < MIN_EXAMPLES:
                errors.append(CatalogError(
                    folder / label, "examples", f"has {len(files)} {label} example(s)",
                    f"add at least {MIN_EXAMPLES} {label}/*.cu files with "
                    f"`// {'expect' if label == 'positive' else 'ok'}: {sid}` annotations"))
    return entry, errors


def _check_annotations(entry: Entry, known: set[str]) -> list[CatalogError]:
    errors: list[CatalogError] = []
    for path in entry.annotated:
        try:
            notes = parse_annotations(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            errors.append(CatalogError(path, "(file)", "is not UTF-8 text", "save it as UTF-8"))
            continue
        if path in entry.cases:
            ref = case_reference(path)
            if ref is not None and not ref.is_file():
                errors.append(CatalogError(path, "reference", f"names {ref.name}, which does not "
                                           "exist", "put the reference file beside the case or "
                                           "correct the name in `// reference: FILE`"))
        for note in notes:
            if note.id not in known:
                errors.append(CatalogError(path, f"line {note.line}",
                                           f"annotation names unknown ID {note.id}",
                                           "use an ID from `strategylens catalog list`"))
        own = [n for n in notes if n.id == entry.id]
        if path in entry.positives and not any(n.kind in ("expect", "todo-expect") for n in own):
            errors.append(CatalogError(path, "annotations", f"positive example has no `expect: {entry.id}`",
                                       f"add `// expect: {entry.id}` on the line the detector must report"))
        if path in entry.negatives:
            if any(n.kind == "expect" for n in own):
                errors.append(CatalogError(path, "annotations",
                                           f"negative example expects its own ID {entry.id}",
                                           "move the file to positive/ or change the annotation to `ok:`"))
            if not any(n.kind == "ok" for n in own):
                errors.append(CatalogError(path, "annotations", f"negative example has no `ok: {entry.id}`",
                                           f"add `// ok: {entry.id}` on the near-miss line"))
    return errors


def load_catalog(extra_dirs: Iterable[Path | str] = (), check_examples: bool = True) -> Catalog:
    """Load and check every entry of the built-in catalog and of the extra folders.

    Returns the valid entries and a list of :class:`CatalogError`; a broken entry does not stop
    the others from loading.

    Examples
    --------
    >>> cat = load_catalog()
    >>> cat.get("MEM-02").slug
    'shared-memory-tiling'
    """
    entries: list[Entry] = []
    errors: list[CatalogError] = []
    dirs = catalog_dirs(extra_dirs, errors)
    seen: dict[str, Path] = {}
    for root in dirs:
        if not root.is_dir():
            errors.append(CatalogError(root, "(folder)", "does not exist or is not a folder",
                                       "pass an existing catalog folder to --catalog"))
            continue
        for yml in sorted(root.glob("*/strategy.yaml")):
            folder = yml.parent
            try:
                data = yaml.safe_load(yml.read_text(encoding="utf-8"))
            except (yaml.YAMLError, UnicodeDecodeError) as exc:
                errors.append(CatalogError(yml, "(file)", f"is not valid YAML ({exc})",
                                           "fix the YAML syntax (indentation, quoting)"))
                continue
            entry, problems = _check_entry(folder, data)
            errors += problems
            if entry is None:
                continue
            if entry.id in seen:
                errors.append(CatalogError(yml, "id", f"duplicate ID {entry.id}, also in {seen[entry.id]}",
                                           "give one of them a new ID; IDs are never reused"))
                continue
            seen[entry.id] = yml
            entries.append(entry)
    if check_examples:
        known = set(seen)
        for entry in entries:
            errors += _check_annotations(entry, known)
    entries.sort(key=lambda e: (FAMILIES.index(e.family), e.id))
    return Catalog(entries=entries, errors=errors, dirs=dirs)


_REFERENCE = re.compile(r"^\s*//\s*reference:\s*(\S+)")


def case_reference(path: Path) -> Path | None:
    """The task reference a case is tagged against: ``// reference: FILE`` among the comment
    lines at the top of the file, FILE relative to the case's folder; None without one."""
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("//"):
            return None
        m = _REFERENCE.match(line)
        if m:
            return Path(path).parent / m.group(1)
    return None


_ANNOTATION = re.compile(r"//\s*(todo-expect|expect|ok)\s*:\s*([A-Z]{2,4}-[0-9A-Z]{2,5}(?:\s*,\s*[A-Z]{2,4}-[0-9A-Z]{2,5})*)")


def parse_annotations(text: str) -> list[Annotation]:
    """Annotations of a catalog example (fixture metadata, not solution analysis).

    A trailing annotation applies to its own line; one alone on a line applies to the next line
    that is neither blank nor a comment.

    Examples
    --------
    >>> src = "// expect: MEM-02\\n\\n__shared__ float t[32];\\nx = 1; // ok: MEM-05, CMP-04\\n"
    >>> [(a.line, a.kind, a.id) for a in parse_annotations(src)]
    [(3, 'expect', 'MEM-02'), (4, 'ok', 'MEM-05'), (4, 'ok', 'CMP-04')]
    """
    lines = text.splitlines()
    notes: list[Annotation] = []
    pending: list[tuple[str, str]] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        matches = _ANNOTATION.findall(line)
        own_line = stripped.startswith("//")
        if own_line:
            for kind, ids in matches:
                pending += [(kind, i.strip()) for i in ids.split(",")]
            continue
        if not stripped:
            continue
        for kind, ids in matches:
            notes += [Annotation(number, kind, i.strip()) for i in ids.split(",")]
        notes += [Annotation(number, kind, i) for kind, i in pending]
        pending = []
    return notes


def score_example(path: Path, own_id: str, labels: Iterable) -> list[ExampleOutcome]:
    """Score one example against reported labels (objects with ``id`` and ``evidence`` spans).

    The IDs checked are ``own_id`` plus every ID annotated in the file. For each, an ``expect``
    line covered by evidence is *reported*, uncovered is *missing*; an ``ok`` line left uncovered
    is *validated*, covered is *noisy*; evidence covering no ``expect`` line is *noisy*.
    """
    notes = parse_annotations(path.read_text(encoding="utf-8"))
    checked = {own_id} | {n.id for n in notes}
    spans: dict[str, list[tuple[int, int]]] = {}
    for label in labels:
        if label.id in checked:
            spans.setdefault(label.id, []).extend((e.line_start, e.line_end) for e in label.evidence)
    name = str(path)
    out: list[ExampleOutcome] = []
    for sid in sorted(checked):
        mine = [n for n in notes if n.id == sid]
        expect_lines = {n.line for n in mine if n.kind == "expect"}
        todo_lines = {n.line for n in mine if n.kind == "todo-expect"}
        ok_lines = {n.line for n in mine if n.kind == "ok"}
        sid_spans = spans.get(sid, [])
        covered = lambda line, sid_spans=sid_spans: any(a <= line <= b for a, b in sid_spans)
        for line in sorted(expect_lines):
            out.append(ExampleOutcome(name, sid, line, "reported" if covered(line) else "missing"))
        for line in sorted(todo_lines):
            out.append(ExampleOutcome(name, sid, line, "todo"))
        for line in sorted(ok_lines):
            out.append(ExampleOutcome(name, sid, line, "noisy" if covered(line) else "validated"))
        for a, b in sorted(set(spans.get(sid, []))):
            hits_expected = any(a <= line <= b for line in expect_lines | todo_lines | ok_lines)
            if not hits_expected:
                out.append(ExampleOutcome(name, sid, a, "noisy"))
    return out


def test_catalog(catalog: Catalog, tag: Callable[[Path], list], only: Iterable[str] = ()) -> list[ExampleOutcome]:
    """Run ``tag(path) -> labels`` over every example and case of the selected entries and score
    them."""
    wanted = {i.upper() for i in only}
    outcomes: list[ExampleOutcome] = []
    for entry in catalog.entries:
        if wanted and entry.id not in wanted:
            continue
        for path in entry.annotated:
            outcomes += score_example(path, entry.id, tag(path))
    return outcomes


test_catalog.__test__ = False  # not a pytest test


def precision_recall(outcomes: Iterable[ExampleOutcome]) -> list[dict]:
    """Per-ID counts of the four outcomes with precision and recall on annotated lines."""
    table: dict[str, dict] = {}
    for o in outcomes:
        row = table.setdefault(o.id, {"id": o.id, "reported": 0, "validated": 0, "missing": 0,
                                      "noisy": 0, "todo": 0})
        row[o.outcome] += 1
    rows = []
    for sid in sorted(table):
        row = table[sid]
        tp, fp, fn = row["reported"], row["noisy"], row["missing"]
        row["precision"] = round(tp / (tp + fp), 3) if tp + fp else None
        row["recall"] = round(tp / (tp + fn), 3) if tp + fn else None
        rows.append(row)
    return rows


_DOCS = """\
# Strategy catalog

Generated by `strategylens catalog docs` from `catalog/*/strategy.yaml`; the examples shown are the
tested ones (`strategylens catalog test`). Do not edit by hand.

{{ counts }}

| ID | name | family | kind | S/m | intensity |
|---|---|---|---|---|---|
{% for e in entries -%}
| [{{ e.id }}](#{{ e.id | lower }}-{{ e.slug }}) | {{ e.name }} | {{ e.family }} | {{ e.kind }} | {{ sm(e) }} | {{ e.intensity.measure if e.intensity else "" }} |
{% endfor %}
{% for e in entries %}
## {{ e.id }} {{ e.slug }}

**{{ e.name }}** ({{ e.kind }}, {{ sm(e) }}, status {{ e.status }})

### What it is
{{ e.summary }}

### Why it is faster
{{ e.why_faster }}

### How it is detected
{{ e.detection }}
{% if e.intensity %}
Intensity: {{ e.intensity.measure }} ({{ e.intensity.unit }}).
{% endif %}
### Example
`{{ rel(e.positives[0]) }}`
```cuda
{{ read(e.positives[0]) }}
```

### Counter-example
`{{ rel(e.negatives[0]) }}`
```cuda
{{ read(e.negatives[0]) }}
```
{% if e.references %}
### References
{% for r in e.references -%}
- {% if r.url %}[{{ r.title }}]({{ r.url }}){% else %}{{ r.title }}{% endif %}
{% endfor %}{% endif %}
{% endfor %}
"""


def render_docs(catalog: Catalog) -> str:
    """Markdown documentation of every entry, in fixed sections, with its first tested examples."""
    import jinja2

    def sm(entry: Entry) -> str:
        return "" if entry.structural is None else ("S" if entry.structural else "m")

    def rel(path: Path) -> str:
        try:
            return str(path.relative_to(REPO_ROOT))
        except ValueError:
            return str(path)

    entries = [e for e in catalog.entries if e.positives and e.negatives]
    c = counts(catalog)
    text = (f"{c['strategies']} strategies ({c['structural']} structural, {c['micro']} micro) and "
            f"{c['anti_patterns']} anti-patterns.")
    env = jinja2.Environment(keep_trailing_newline=True, trim_blocks=False)
    return env.from_string(_DOCS).render(
        entries=entries, counts=text, sm=sm, rel=rel,
        read=lambda p: p.read_text(encoding="utf-8").rstrip())


def counts(catalog: Catalog) -> dict:
    active = [e for e in catalog.entries if e.status != "retired"]
    strategies = [e for e in active if e.kind == "strategy"]
    return {
        "strategies": len(strategies),
        "structural": sum(1 for e in strategies if e.structural),
        "micro": sum(1 for e in strategies if e.structural is False),
        "anti_patterns": sum(1 for e in active if e.kind == "anti-pattern"),
        "retired": len(catalog.entries) - len(active),
        "errors": len(catalog.errors),
    }
