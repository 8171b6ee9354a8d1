"""Shared CLI plumbing: output formats, exit codes, stderr messages."""

from __future__ import annotations

import csv
import io
import json
import sys
from enum import Enum
from typing import Any
from collections.abc import Iterable, Sequence

import typer
from rich.console import Console
from rich.table import Table

# Exit codes scripts can trust.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


class Format(str, Enum):
    human = "human"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"


FormatOption = typer.Option(Format.human, "--format", "-f", help="human, json, jsonl or csv")


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print an error to stderr and return the Exit to raise."""
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def warn(message: str) -> None:
    err.print(f"[yellow]warning:[/] {message}", highlight=False)


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple, set)):
        return ";".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return value


def emit(rows: Sequence[dict], fmt: Format, columns: Sequence[str] | None = None,
         title: str | None = None) -> None:
    """Write rows to stdout in the chosen format. `columns` picks and orders the human/csv view."""
    rows = list(rows)
    if fmt == Format.json:
        sys.stdout.write(json.dumps(rows, indent=2, default=str) + "\n")
        return
    if fmt == Format.jsonl:
        for row in rows:
            sys.stdout.write(json.dumps(row, default=str) + "\n")
        return
    cols = list(columns or (rows[0].keys() if rows else []))
    if fmt == Format.csv:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: _plain(row.get(c)) for c in cols})
        sys.stdout.write(buf.getvalue())
        return
    table = Table(title=title, show_lines=False)
    for c in cols:
        table.add_column(c, overflow="fold")
    for row in rows:
        table.add_row(*("" if row.get(c) is None else str(_plain(row.get(c))) for c in cols))
    out.print(table)


def iter_progress(items: Iterable, total: int, description: str):
    """Progress bar on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield from items
        return
    from rich.progress import Progress

    # Take the first item before the bar's refresh thread starts: producers that fork worker
    # processes do so on their first item, and forking beside a running thread can deadlock.
    it = iter(items)
    done = object()
    first = next(it, done)
    if first is done:
        return
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task(description, total=total)
        yield first
        progress.advance(task)
        for item in it:
            yield item
            progress.advance(task)
