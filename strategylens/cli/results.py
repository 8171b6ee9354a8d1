"""`strategylens results`: read a results store."""

from __future__ import annotations

import io
import sys
from enum import Enum
from pathlib import Path

import typer

from strategylens.cli.common import (EXIT_FINDINGS, EXIT_OK, Format, FormatOption, emit, fail,
                                     info, out)

app = typer.Typer(help="Read and export a results store; import AccelEval's evaluations.",
                  no_args_is_help=True)


class ExportFormat(str, Enum):
    human = "human"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"
    parquet = "parquet"


HUMAN_COLUMNS = ["task", "solution", "size", "status", "speedup", "e2e_ms_median",
                 "e2e_ms_rel_iqr", "cpu_ms", "audit_flags"]


def json_records(df) -> list[dict]:
    """Rows as JSON-ready records: lists stay lists, the columns that hold JSON text (kernels,
    clocks, config, thresholds, ...) become their values; a row's own ``tool_version`` (the
    version that measured it) is ``measured_tool_version``, beside the exporter's."""
    import json

    rows = []
    for row in df.to_dict("records"):
        out = {}
        for k, v in row.items():
            if isinstance(v, str) and v[:1] in "[{":
                try:
                    v = json.loads(v)
                except ValueError:
                    pass
            out["measured_tool_version" if k == "tool_version" else k] = v
        rows.append(out)
    return rows


@app.command()
def export(
    store: Path = typer.Argument(..., help="Results store folder (written by `strategylens run`)."),
    fmt: ExportFormat = typer.Option(ExportFormat.csv, "--format", "-f",
                                     help="csv (default), human (the main columns), json, jsonl "
                                          "or parquet."),
    output: Path = typer.Option(None, "--output", "-o", help="File to write (default stdout)."),
    trials: bool = typer.Option(False, "--trials", help="Export every raw call instead of the summary."),
) -> None:
    """Export a store's results, one row per (task, solution, size), or every raw call.

    csv and parquet keep the store's columns (audit_flags joined by ';'); json and jsonl give
    one record per row with the metadata keys of docs/output-formats.md, lists as lists and the
    JSON-valued columns (kernels, clocks, config, thresholds) as objects.

    Examples:

      strategylens results export analyses/h200 --format csv > h200.csv

      strategylens results export analyses/h200 --format human

      strategylens results export analyses/h200 --format jsonl -o h200.jsonl

      strategylens results export analyses/h200 --trials --format parquet -o trials.parquet
    """
    import contextlib

    from strategylens.cli.common import check_output, writing
    from strategylens.store import read_results, read_trials

    if not store.is_dir():
        raise fail(f"{store}: no such store folder")
    if output is not None:
        check_output(output)
    df = read_trials(store) if trials else read_results(store)
    if df.empty:
        raise fail(f"{store}: no results found under {store / ('trials' if trials else 'results')}")
    if fmt in (ExportFormat.json, ExportFormat.jsonl, ExportFormat.human):
        kind = "results.trials" if trials else "results.export"
        rows = json_records(df)
        if fmt == ExportFormat.human:
            cols = [c for c in HUMAN_COLUMNS if c in df.columns] if not trials else None
            rows = [{k: (";".join(map(str, v)) if isinstance(v, list) else
                         round(v, 3) if isinstance(v, float) else v) for k, v in r.items()}
                    for r in rows]
        with writing(output or Path("<stdout>")):
            with (open(output, "w", encoding="utf-8") if output else
                  contextlib.nullcontext(sys.stdout)) as fh, \
                    contextlib.redirect_stdout(fh):
                emit(rows, Format(fmt.value), columns=cols if fmt == ExportFormat.human else None,
                     kind=kind)
        return
    if "audit_flags" in df:
        df = df.assign(audit_flags=df["audit_flags"].map(";".join))
    if fmt == ExportFormat.parquet:
        if output is None and sys.stdout.isatty():
            raise fail("parquet is binary: give --output FILE or redirect stdout")
        with writing(output or Path("<stdout>")):
            df.to_parquet(output if output else sys.stdout.buffer, index=False)
        return
    text = df.to_csv(index=False)
    if output:
        with writing(output):
            output.write_text(text)
    else:
        sys.stdout.write(text)


@app.command()
def reaudit(
    store: Path = typer.Argument(..., help="Results store folder (written by `strategylens run`)."),
    fmt: Format = typer.Option(Format.human, "--format", "-f",
                                 help="human, json, jsonl or csv: one record per changed row "
                                      "(task, solution, size, before, after)."),
) -> None:
    """Recompute every row's audit flags from its recorded trace under the current thresholds.

    No GPU is needed: the raw trials and traces are kept as they were measured; only the
    summary rows change. Prints the rows whose flags changed and those that gained a mismatch
    summary (where a wrong answer is wrong).

    Example:

      strategylens results reaudit analyses/h200
    """
    from strategylens.harness import reaudit as recompute
    from strategylens.store import read_results

    if not store.is_dir():
        raise fail(f"{store}: no such store folder")
    before = read_results(store)
    if before.empty:
        raise fail(f"{store}: no results found under {store / 'results'}")
    old = {(r.task, r.solution, r.size): list(r.audit_flags) for r in before.itertuples()}
    old_mismatch = {(r["task"], r["solution"], r["size"]): r.get("mismatch") or None
                    for r in before.to_dict("records")}
    rows = recompute(store)
    changed = [(r, old.get((r["task"], r["solution"], r["size"]), [])) for r in rows
               if list(r["audit_flags"]) != old.get((r["task"], r["solution"], r["size"]), [])]
    if fmt != Format.human:
        emit([{"task": r["task"], "solution": r["solution"], "size": r["size"],
               "before": list(was), "after": list(r["audit_flags"])} for r, was in changed],
             fmt, columns=["task", "solution", "size", "before", "after"])
        info(f"{len(rows)} row(s) re-audited, {len(changed)} changed")
        return
    for r, was in changed:
        out.print(f"{r['task']} {r['solution']} {r['size']}: "
                  f"{';'.join(was) or '-'} -> {';'.join(r['audit_flags']) or '-'}", highlight=False)
    described = [r for r in rows if r.get("mismatch")
                 and r["mismatch"] != old_mismatch.get((r["task"], r["solution"], r["size"]))]
    for r in described:
        out.print(f"{r['task']} {r['solution']} {r['size']}: wrong answer: "
                  f"{r['mismatch'][:160]}", highlight=False)
    out.print(f"{len(rows)} row(s) re-audited, {len(changed)} changed, {len(described)} with a "
              "new mismatch summary", highlight=False)


IMPORT_COLUMNS = ["task", "sample", "size", "ae_correct", "sl_correct", "ae_e2e_ms", "sl_e2e_ms",
                  "ae_speedup", "sl_speedup", "sl_speedup_on_ae_cpu", "sl_flags", "disagreement"]


@app.command("import")
def import_cmd(
    run: Path = typer.Argument(..., help="An AccelEval run folder (its eval_results_*.json) or "
                                         "one eval_results file."),
    store: Path = typer.Option(None, "--store", help="A strategylens results store with runs of "
                                                     "the same samples (`strategylens run`)."),
    output: Path = typer.Option(None, "--output", "-o",
                                help="Also write the table (.csv, .json or .parquet)."),
    fmt: Format = FormatOption,
) -> None:
    """AccelEval's figures beside strategylens's for the same samples: correctness and speedup
    as each measured them, strategylens's time against AccelEval's stored CPU time, and where
    they disagree.

    The store gets the imported table as imports/acceleval/<run>.parquet. Exit code 1 when any
    sample's verdicts disagree or strategylens raised an audit flag.

    Examples:

      strategylens results import ~/AccelEval/runs/gpt-5_l3_20260101_1200 --store runs/gpt5

      strategylens results import eval_results_20260101_130000.json --format csv
    """
    import pandas as pd

    from strategylens.runfolders import RunFolderError, read_eval_results, side_by_side
    from strategylens.store import read_results

    try:
        ae = read_eval_results(run)
    except RunFolderError as exc:
        raise fail(str(exc)) from None
    sl = []
    if store is not None:
        if not (store / "results").is_dir():
            raise fail(f"{store}: not a results store (no results/ folder)")
        sl = read_results(store).to_dict("records")
    rows = side_by_side(ae, sl)
    frame = pd.DataFrame(rows)
    if store is not None and rows:
        from strategylens.resources import atomic_write

        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        name = (run if run.is_dir() else run.parent).name
        atomic_write(store / "imports" / "acceleval" / f"{name}.parquet", buf.getvalue())
    if output is not None:
        try:
            if output.suffix == ".parquet":
                frame.to_parquet(output, index=False)
            elif output.suffix == ".json":
                output.write_text(frame.to_json(orient="records", indent=1) + "\n")
            else:
                output.write_text(frame.to_csv(index=False))
        except OSError as exc:
            raise fail(f"{output}: cannot write: {exc.strerror or exc}") from None
    emit(rows, fmt, IMPORT_COLUMNS, title=f"AccelEval vs strategylens: {run.name}")
    differ = [r for r in rows if r["disagreement"]]
    raise typer.Exit(EXIT_FINDINGS if differ else EXIT_OK)
