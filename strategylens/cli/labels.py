"""`strategylens labels ...`: compare raters, import raters, train and evaluate the combiner."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Optional

import typer

from strategylens.cli.common import EXIT_OK, Format, FormatOption, emit, err, fail, warn

app = typer.Typer(help="Raters' labels: agreement, imports, the label combiner.",
                  no_args_is_help=True)

SOURCE_HELP = ("A rater as NAME=FILE (repeatable): tag or annotate JSONL, a gold labels.yaml, "
               "or an expert CSV/JSONL. The name 'detectors' marks the detectors' labels.")


def _read(spec: str):
    from strategylens.labels.records import LabelError, read_labels

    name, _, file = spec.partition("=") if "=" in spec else ("", "", spec)
    try:
        return read_labels(Path(file), name or None)
    except LabelError as exc:
        raise fail(str(exc)) from None


def _round(rows: list[dict]) -> list[dict]:
    return [{k: (round(v, 3) if isinstance(v, float) and not math.isnan(v) else
                 (None if isinstance(v, float) else v)) for k, v in r.items()} for r in rows]


@app.command()
def agree(
    raters: list[str] = typer.Argument(..., metavar="RATER...",
                                       help="Two or more labels files (optionally NAME=FILE)."),
    fmt: Format = FormatOption,
    only: Optional[str] = typer.Option(None, "--only", help="Comma-separated IDs."),
    show: bool = typer.Option(False, "--disagreements",
                              help="List each file and ID where two raters disagree."),
) -> None:
    """Agreement per strategy: Cohen's kappa with a 95% file-bootstrap interval, and precision
    and recall of the second rater against the first; Fleiss' kappa for three or more.

    Examples:
      strategylens labels agree gold/labels.yaml gold/labels-second.yaml
      strategylens labels agree gold/labels.yaml detectors=tags.jsonl --disagreements
      strategylens labels agree a.yaml b.yaml c.yaml
    """
    from strategylens.labels import agree as ag

    sets = [_read(r) for r in raters]
    if len(sets) < 2:
        raise fail("give at least two raters")
    ids = only.split(",") if only else _catalog_ids()[0]
    if len(sets) == 2:
        if show:
            emit(ag.disagreements(sets[0], sets[1], ids), fmt, ["path", "id", "only", "lines"])
            return
        frame = ag.pairwise(sets[0], sets[1], ids)
        emit(_round(frame.to_dict("records")), fmt,
             ["id", "files", "both", "only_a", "only_b", "kappa", "kappa_lo", "kappa_hi",
              "precision", "recall"],
             title=f"{sets[0].rater} (A) vs {sets[1].rater} (B)")
        return
    frame = ag.fleiss(sets, ids)
    emit(_round(frame.to_dict("records")), fmt, ["id", "files", "raters", "units", "fleiss_kappa"])


@app.command()
def evaluate(
    gold: list[Path] = typer.Option(..., "--gold", help="Gold labels.yaml (repeatable)."),
    source: list[str] = typer.Option(..., "--source", help=SOURCE_HELP),
    solo: Optional[list[str]] = typer.Option(None, "--solo",
                                             help="A rater scored alone on the files it labelled "
                                                  "(e.g. a second labeller), NAME=FILE."),
    fmt: Format = FormatOption,
    summary: bool = typer.Option(False, "--summary", help="Only the 'all' rows and macro-F1."),
) -> None:
    """Precision, recall and F1 per strategy for each source alone, the documented rule, and the
    combiner under leave-one-task-out cross-validation.

    Example:
      strategylens labels evaluate --gold tests/fixtures/gold-independent-a/labels.yaml \\
          --source detectors=tags.jsonl --source substring=substring.jsonl
    """
    from strategylens.labels import combine as cb

    gold_sets = [_read(str(g)) for g in gold]
    sources = {s.rater if "=" not in spec else spec.split("=", 1)[0]: s
               for spec in source for s in [_read(spec)]}
    solos = {spec.split("=", 1)[0] if "=" in spec else s.rater: s
             for spec in solo or [] for s in [_read(spec)]}
    ids, covered = _catalog_ids()
    try:
        frame = cb.evaluate(gold_sets, sources, ids, covered, solos)
    except ValueError as exc:
        raise fail(str(exc)) from None
    rows = frame.to_dict("records")
    if summary:
        rows = [r for r in rows if r["id"] == "all"]
        for r in rows:
            r["macro_f1"] = cb.macro_f1(frame, r["source"])
    emit(_round(rows), fmt, ["source", "id", "tp", "fp", "fn", "precision", "recall", "f1",
                             *(["macro_f1"] if summary else [])])


@app.command()
def train(
    gold: list[Path] = typer.Option(..., "--gold", help="Gold labels.yaml (repeatable)."),
    source: list[str] = typer.Option(..., "--source", help=SOURCE_HELP),
    out: Path = typer.Option(..., "--out", "-o", help="Where to write the combiner (JSON)."),
) -> None:
    """Train the per-strategy combiner on gold labels; `tag --with-annotations` uses it."""
    from strategylens.labels import combine as cb

    gold_sets = [_read(str(g)) for g in gold]
    sources = {spec.split("=", 1)[0] if "=" in spec else s.rater: s
               for spec in source for s in [_read(spec)]}
    ids, covered = _catalog_ids()
    table = cb.unit_table(gold_sets, sources, ids)
    comb = cb.Combiner.train(table, list(sources), covered)
    try:
        out.write_text(json.dumps(comb.to_json(), indent=1) + "\n")
    except OSError as exc:
        raise fail(f"{out}: cannot write: {exc.strerror or exc}") from None
    kinds = {}
    for c in comb.choices.values():
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    err.print(f"wrote {out}: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))


@app.command("import-acceleval")
def import_acceleval(
    file: Path = typer.Argument(..., help="An AccelEval agent_pattern_analysis.json."),
    mapping: Optional[Path] = typer.Option(None, "--mapping",
                                           help="Pattern -> catalog ID mapping (YAML); default "
                                                "the bundled one (copy it to edit)."),
    run_dir: Optional[Path] = typer.Option(None, "--run-dir",
                                           help="The run folder with <task>/sample_<k>.cu "
                                                "(default: the file's folder)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write JSONL here."),
) -> None:
    """AccelEval's analyser output as a rater's labels (JSONL in the shape of `tag`)."""
    from strategylens.labels.acceleval import load_mapping, read_acceleval_analysis
    from strategylens.labels.records import LabelError, to_record

    ids, _ = _catalog_ids()
    try:
        labels, warnings = read_acceleval_analysis(file, load_mapping(mapping, set(ids)), run_dir)
    except LabelError as exc:
        raise fail(str(exc)) from None
    for w in warnings:
        warn(w)
    lines = [json.dumps(to_record(fl, labels.rater)) + "\n" for fl in labels.files.values()]
    if out:
        out.write_text("".join(lines))
    else:
        sys.stdout.write("".join(lines))
    raise typer.Exit(EXIT_OK)


def _catalog_ids() -> tuple[list[str], set[str]]:
    from strategylens.labels.combine import catalog_ids

    return catalog_ids()
