"""Shared CLI plumbing: output formats, exit codes, stderr messages, progress, output paths.

Results go to stdout; progress, warnings and errors to stderr. ``--format jsonl`` writes one
record a line, ``--format json`` a list of the same records; each record starts with the
metadata keys of :func:`metadata` (``schema_version``, ``record_type``, tool and catalog
versions). The shapes are documented in ``docs/output-formats.md``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

# Exit codes scripts can trust.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2

# Version of the JSON / JSONL record shapes (docs/output-formats.md); bump on a breaking change.
SCHEMA_VERSION = 1

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


@dataclass
class Verbosity:
    """Set by the root options ``-q`` / ``-v``."""

    quiet: bool = False
    verbose: int = 0


STATE = Verbosity()


class Format(str, Enum):
    human = "human"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"


FormatOption = typer.Option(Format.human, "--format", "-f", help="human, json, jsonl or csv")


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print an error to stderr and return the Exit to raise."""
    err.print(f"[bold red]error:[/] {_escape(message)}", highlight=False)
    return typer.Exit(code)


def warn(message: str) -> None:
    """A warning on stderr (hidden by ``-q``)."""
    if not STATE.quiet:
        err.print(f"[yellow]warning:[/] {_escape(message)}", highlight=False)


def info(message: str) -> None:
    """A status line on stderr ("wrote ..."), hidden by ``-q``."""
    if not STATE.quiet:
        err.print(_escape(message), highlight=False)


def debug(message: str) -> None:
    """Detail shown only with ``-v``."""
    if STATE.verbose and not STATE.quiet:
        err.print(f"[dim]{_escape(message)}[/]", highlight=False)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(str(text))


# ---------------------------------------------------------------------------------------------
# output paths

def check_output(path: Path, kind: str = "file") -> Path:
    """Make sure ``path`` can be written as a file (``kind="file"``) or a folder before any
    work starts; create missing parent folders. Raises the Exit of a usage error naming the
    path and the problem."""
    path = Path(path)
    if kind == "file" and path.is_dir():
        raise fail(f"{path}: is a folder; --out needs a file name here")
    if kind == "folder" and path.exists() and not path.is_dir():
        raise fail(f"{path}: is a file; --out needs a folder here")
    folder = path if kind == "folder" else path.parent
    for above in [folder, *folder.parents]:
        if above.exists():
            if not above.is_dir():
                raise fail(f"{path}: cannot write: {above} is a file, not a folder")
            break
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"{path}: cannot create the folder {folder} ({exc.strerror or exc})") from None
    if not os.access(folder, os.W_OK) or (kind == "file" and path.exists()
                                            and not os.access(path, os.W_OK)):
        raise fail(f"{path}: cannot write there (permission denied)")
    return path


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn an OSError while writing ``path`` into a usage error naming it."""
    try:
        yield
    except BrokenPipeError:  # `... | head`: the reader has what it wanted
        sys.stderr.close()
        raise typer.Exit(EXIT_OK) from None
    except OSError as exc:
        raise fail(f"{path}: cannot write ({exc.strerror or exc})") from None


# ---------------------------------------------------------------------------------------------
# records

def record_type() -> str:
    """The record type of the running command: its path without the program name
    (``catalog.list``, ``tag``)."""
    from typer.main import get_current_context  # typer's own click

    ctx = get_current_context(silent=True)
    if ctx is None:
        return "records"
    parts = []
    while ctx.parent is not None:  # the root's name depends on how it was started
        parts.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return ".".join(parts) or "records"


_CATALOG_VERSION: list[str] = []


def use_catalog(catalog) -> None:
    """Name the catalog whose version the output records (default: the built-in one)."""
    _CATALOG_VERSION[:] = [getattr(catalog, "version", "")]


def catalog_version() -> str | None:
    if not _CATALOG_VERSION:
        try:
            from strategylens.catalog import load_catalog

            _CATALOG_VERSION.append(load_catalog(check_examples=False).version)
        except Exception:  # the version is metadata: never let it stop the output
            _CATALOG_VERSION.append("")
    return _CATALOG_VERSION[0] or None


def metadata(kind: str | None = None) -> dict:
    """The keys every JSON record and JSONL line starts with."""
    from strategylens import __version__

    return {"schema_version": SCHEMA_VERSION, "record_type": kind or record_type(),
            "tool": "strategylens", "tool_version": __version__,
            "catalog_version": catalog_version()}


def stamped(row: dict, kind: str | None = None, meta: dict | None = None) -> dict:
    """A record with the metadata keys first (a record's own key of the same name wins)."""
    return {**(meta or metadata(kind)), **clean(row)}


def jsonl_line(row: dict, kind: str | None = None) -> str:
    """One ``--format jsonl`` line: the metadata keys, then the record's own."""
    return json.dumps(stamped(row, kind), default=str)


def clean(value: Any) -> Any:
    """JSON-safe values: NaN and infinities become None, numpy scalars Python ones."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()
        except (ValueError, TypeError):
            pass
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple, set)):
        return ";".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return value


def emit(rows: Sequence[dict], fmt: Format, columns: Sequence[str] | None = None,
         title: str | None = None, kind: str | None = None) -> None:
    """Write rows to stdout in the chosen format. `columns` picks and orders the human/csv
    view; `kind` names the record type (default: the command's path)."""
    rows = list(rows)
    if fmt == Format.json:
        meta = metadata(kind)
        sys.stdout.write(json.dumps([stamped(r, meta=meta) for r in rows], indent=2,
                                    default=str) + "\n")
        return
    if fmt == Format.jsonl:
        for row in rows:
            sys.stdout.write(jsonl_line(row, kind) + "\n")
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
    human_table(rows, cols, title)


def human_table(rows: Sequence[dict], cols: Sequence[str], title: str | None = None) -> None:
    """A rich table on a terminal (cells fold to its width); piped, plain columns that never
    wrap, so each row stays one line for grep and awk."""
    terminal = out.is_terminal
    table = Table(title=title if terminal else None, show_lines=False,
                  **({} if terminal else {"box": None, "pad_edge": False}))
    for i, c in enumerate(cols):  # on a terminal the first column (an ID, a path) never folds
        table.add_column(c, overflow="fold" if terminal else "ignore",
                         no_wrap=not terminal or i == 0)
    for row in rows:
        table.add_row(*("" if row.get(c) is None else str(_plain(row.get(c))) for c in cols))
    if terminal:
        out.print(table)
        return
    buf = io.StringIO()
    Console(file=buf, width=100_000, color_system=None, highlight=False).print(table)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines()))


# ---------------------------------------------------------------------------------------------
# progress

def _show_progress() -> bool:
    return err.is_terminal and not STATE.quiet


def iter_progress(items: Iterable, total: int, description: str):
    """Progress bar on stderr, only when stderr is a terminal (and not ``-q``). Standard
    output is left alone, so results redirected to a file stay there."""
    if not _show_progress():
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
    with Progress(console=err, transient=True, redirect_stdout=False,
                  redirect_stderr=True) as progress:
        task = progress.add_task(description, total=total)
        yield first
        progress.advance(task)
        for item in it:
            yield item
            progress.advance(task)


class Steps:
    """Named phases of a long command: a bar on a terminal, lines with ``-v`` elsewhere."""

    def __init__(self, description: str, total: int) -> None:
        self.description, self.total, self.done = description, total, 0
        self._progress = None
        self._task = None

    def __enter__(self) -> Steps:
        if _show_progress():
            from rich.progress import Progress

            self._progress = Progress(console=err, transient=True, redirect_stdout=False,
                                      redirect_stderr=True)
            self._progress.start()
            self._task = self._progress.add_task(self.description, total=self.total)
        return self

    def __call__(self, phase: str) -> None:
        """Start ``phase`` (the previous one is done)."""
        if self._progress is not None:
            if self.done:
                self._progress.advance(self._task)
            self._progress.update(self._task, description=f"{self.description}: {phase}")
        else:
            debug(f"{self.description}: {phase} ({self.done + 1}/{self.total})")
        self.done += 1

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
