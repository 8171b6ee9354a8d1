"""`strategylens catalog ...`: list, show, validate, document and test the strategy catalog."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from strategylens import catalog as cat
from strategylens.cli.common import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Format, FormatOption, emit,
                                     err, fail, out, warn)

app = typer.Typer(help="The strategy catalog: list, show, validate, docs, test.", no_args_is_help=True)

CatalogOption = typer.Option(
    None, "--catalog", "-c", envvar=None,
    help="An extra catalog folder (repeatable); also read from $STRATEGYLENS_CATALOG.")


def _load(extra: Optional[list[Path]], check_examples: bool = True,
          detectors: bool = False) -> cat.Catalog:
    """The catalog; with ``detectors``, entries whose detector.py fails to load are left out
    and reported among its errors."""
    c = cat.load_catalog(extra or [], check_examples=check_examples)
    if detectors:
        from strategylens.tag import without_broken_detectors

        c = without_broken_detectors(c)
    return c


@app.command("list")
def list_(
    fmt: Format = FormatOption,
    catalog: Optional[list[Path]] = CatalogOption,
    family: Optional[str] = typer.Option(None, help="Only this family (MEM, CMP, PAR, LBL, HST, AP)."),
) -> None:
    """List catalog entries.

    Examples:
      strategylens catalog list
      strategylens catalog list --format json --family MEM
    """
    c = _load(catalog, check_examples=False)
    rows = [e.summary_row() for e in c.entries if not family or e.family == family.upper()]
    emit(rows, fmt, columns=["id", "name", "slug", "family", "kind", "structural", "status",
                             "examples", "intensity"], title="strategylens catalog")
    for e in c.errors:
        err.print(f"[red]error:[/] {e}", highlight=False)
    raise typer.Exit(EXIT_FINDINGS if c.errors else EXIT_OK)


def find_entry(c: cat.Catalog, key: str):
    """The entry with this ID, slug or folder name (``MEM-01``, ``coalesced-access``,
    ``MEM-01-coalesced-access``; any case), or None."""
    key = key.strip().lower()
    for e in c.entries:
        if key in (e.id.lower(), e.slug.lower(), f"{e.id}-{e.slug}".lower()):
            return e
    return None


@app.command()
def show(
    strategy_id: str = typer.Argument(..., metavar="ID",
                                      help="A catalog ID or slug: MEM-02, shared-memory-tiling, "
                                           "MEM-02-shared-memory-tiling."),
    fmt: Format = FormatOption,
    catalog: Optional[list[Path]] = CatalogOption,
) -> None:
    """Show one entry in full.

    Examples:
      strategylens catalog show MEM-02
      strategylens catalog show warp-shuffle-collectives
    """
    c = _load(catalog, check_examples=False)
    e = find_entry(c, strategy_id)
    if e is None:
        raise fail(f"no catalog entry '{strategy_id}' (an ID such as MEM-02 or a slug such as "
                   "coalesced-access); see `strategylens catalog list`") from None
    data = {**e.summary_row(), "summary": e.summary, "why_faster": e.why_faster,
            "detection": e.detection, "intensity": e.intensity, "references": e.references,
            "positives": [str(p) for p in e.positives], "negatives": [str(p) for p in e.negatives]}
    if fmt != Format.human:
        emit([data], fmt)
        return
    sm = "" if e.structural is None else (" structural" if e.structural else " micro")
    out.print(f"[bold]{e.id} {e.slug}[/]: {escape(e.name)} ({e.kind}{sm}, {e.status})", highlight=False)
    for key in ("summary", "why_faster", "detection"):
        out.print(f"\n[bold]{key.replace('_', ' ')}[/]\n{escape(data[key])}", highlight=False)
    if e.intensity:
        out.print(f"\n[bold]intensity[/]: {escape(e.intensity['measure'])} ({escape(e.intensity['unit'])})")
    out.print("\n[bold]examples[/]")
    for p in e.examples:
        out.print(f"  {p}", highlight=False)
    for r in e.references:
        out.print(escape(f"  ref: {r['title']} {r.get('url', '')}"), highlight=False)


@app.command()
def validate(
    fmt: Format = FormatOption,
    catalog: Optional[list[Path]] = CatalogOption,
) -> None:
    """Check every entry against the schema and the catalog rules.

    Exit code 1 when any entry has an error; each error names the file, the field and the fix.

    Example:
      strategylens catalog validate --catalog ~/my-strategies
    """
    c = _load(catalog, detectors=True)
    n = cat.counts(c)
    if fmt != Format.human:
        emit([{**n, "errors": [e.as_dict() for e in c.errors]}], fmt)
    else:
        for e in c.errors:
            err.print(f"[red]error:[/] {e}", highlight=False)
        out.print(f"{n['strategies']} strategies ({n['structural']} structural, {n['micro']} micro), "
                  f"{n['anti_patterns']} anti-patterns, {n['retired']} retired; "
                  f"{n['errors']} error(s) in {', '.join(map(str, c.dirs))}", highlight=False)
    raise typer.Exit(EXIT_FINDINGS if c.errors else EXIT_OK)


@app.command()
def docs(
    output: Path = typer.Option(Path("docs/catalog.md"), "--out", "-o", help="Markdown file to write."),
    catalog: Optional[list[Path]] = CatalogOption,
    check: bool = typer.Option(False, "--check",
                               help="Write nothing; exit 1 when the file differs from what "
                                    "would be written (for CI)."),
    fmt: Format = typer.Option(Format.human, "--format", "-f",
                               help="human (a line on stderr), or json, jsonl, csv: one record "
                                    "{path, entries, lines, current} on stdout."),
) -> None:
    """Write the catalog documentation (fixed sections, tested examples).

    Examples:
      strategylens catalog docs --out docs/catalog.md
      strategylens catalog docs --check     # CI: is docs/catalog.md current?
    """
    from strategylens.cli.common import check_output, info, writing

    c = _load(catalog)
    for e in c.errors:
        warn(str(e))
    text = cat.render_docs(c)
    if check:
        try:
            current = output.read_text(encoding="utf-8")
        except OSError as exc:
            raise fail(f"{output}: cannot read ({exc.strerror or exc})") from None
        if fmt != Format.human:
            emit([{"path": str(output), "entries": len(c.entries), "lines": text.count("\n"),
                   "current": current == text}], fmt)
        if current != text:
            old, new = current.count("\n"), text.count("\n")
            raise fail(f"{output} is out of date ({old} lines; `strategylens catalog docs` "
                       f"writes {new}); run `strategylens catalog docs --out {output}`",
                       EXIT_FINDINGS)
        info(f"{output} is current ({len(c.entries)} entries)")
        return
    check_output(output)
    with writing(output):
        output.write_text(text, encoding="utf-8")
    info(f"wrote {output} ({len(c.entries)} entries)")
    if fmt != Format.human:
        emit([{"path": str(output), "entries": len(c.entries), "lines": text.count("\n"),
               "current": True}], fmt)


@app.command("test")
def test_(
    only: Optional[str] = typer.Option(None, help="Comma-separated IDs to test (default: all)."),
    fmt: Format = FormatOption,
    details: bool = typer.Option(False, "--details", help="List every annotation's outcome."),
    no_index: bool = typer.Option(False, "--no-index", help="Skip libclang index analysis."),
    catalog: Optional[list[Path]] = CatalogOption,
) -> None:
    """Run the detectors on every catalog example and case and score each annotation.

    Outcomes: reported (expect line found), missing (expect line not found), validated (ok line
    not reported), noisy (ok line reported, or a report on no annotated line). Prints precision
    and recall per ID; exit code 1 when anything is missing or noisy.

    Examples:
      strategylens catalog test
      strategylens catalog test --only MEM-02,PAR-04 --details
    """
    from strategylens.tag import tag_example
    from strategylens.detectors import load_detectors

    c = _load(catalog, detectors=True)
    for e in c.errors:
        warn(str(e))
    ids = [i.strip() for i in only.split(",")] if only else []
    unknown = [i for i in ids if i.upper() not in c.ids]
    if unknown:
        raise fail(f"unknown ID(s): {', '.join(unknown)}")
    detectors = load_detectors(c)

    from strategylens.cli.common import Steps

    wanted = [e for e in c.entries if not ids or e.id in {i.upper() for i in ids}]
    total = sum(len(e.examples) for e in wanted)
    steps = Steps("catalog test", max(total, 1))

    def tag(path: Path) -> list:
        steps(Path(path).name)
        result = tag_example(path, detectors=detectors, index=not no_index, catalog=c)
        if not result.ok:
            err.print(f"[red]error:[/] {path}: {result.error}", highlight=False)
        return result.labels

    with steps:
        outcomes = cat.test_catalog(c, tag, only=ids)
    bad = [o for o in outcomes if o.outcome in ("missing", "noisy")]
    if details or fmt != Format.human:
        emit([o.__dict__ for o in outcomes if details or o.outcome in ("missing", "noisy")]
             if fmt == Format.human else [o.__dict__ for o in outcomes], fmt,
             columns=["id", "outcome", "line", "example"], title="annotations")
        if fmt != Format.human:
            raise typer.Exit(EXIT_FINDINGS if bad else EXIT_OK)
    for o in bad:
        err.print(f"{o.outcome}: {o.id} at {o.example}:{o.line}", highlight=False)
    emit(cat.precision_recall(outcomes), Format.human,
         columns=["id", "reported", "validated", "missing", "noisy", "todo", "precision", "recall"],
         title="catalog test")
    raise typer.Exit(EXIT_FINDINGS if bad else EXIT_OK)


__all__ = ["app", "EXIT_USAGE"]
