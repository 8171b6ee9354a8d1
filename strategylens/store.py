"""Results store: embedded Parquet files, one per (task, solution, size), no server.

Layout under a store directory::

    results/<task>__<solution>__<size>.parquet   one row: the summary columns
    trials/<task>__<solution>__<size>.parquet    every raw call (warm-up, timed, probes, profile)
    traces/<task>__<solution>__<size>.json       the rest of the trace (shim log, load, fingerprints)

Each file is written to a temporary name and renamed, so a file either holds a complete
(solution, size) or does not exist; a run that stops loses at most the one in progress, and the
next run skips every (task, solution, size) already present.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from strategylens.resources import atomic_write

LIST_COLUMNS = ("audit_flags",)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text.replace("/", "--")).strip("-")


def key_name(task: str, solution: str, size: str) -> str:
    """File stem for one (task, solution, size)."""
    return f"{_slug(task)}__{_slug(solution)}__{_slug(size)}"


def _parquet(df: pd.DataFrame) -> bytes:
    """``df`` as Parquet without column statistics or the pandas and Arrow schema copies: for
    the one-row files of a store those were four fifths of each file (52 KB of a one-row
    summary), and every column and type reads back the same without them."""
    table = pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)
    buf = io.BytesIO()
    pq.write_table(table, buf, write_statistics=False, store_schema=False)
    return buf.getvalue()


def append(store_dir: Path | str, row: dict, trials: list[dict] | None = None,
           trace: dict | None = None) -> Path:
    """Write one (task, solution, size): its summary row, raw trials and trace.

    Returns the path of the summary file.
    """
    store_dir = Path(store_dir)
    name = key_name(row["task"], row["solution"], row["size"])
    if trials:
        atomic_write(store_dir / "trials" / f"{name}.parquet", _parquet(pd.DataFrame(trials)),
                     fsync=True)
    if trace is not None:
        rest = {k: v for k, v in trace.items() if k != "trials"}
        atomic_write(store_dir / "traces" / f"{name}.json",
                     json.dumps(rest, default=str, indent=1), fsync=True)
    path = store_dir / "results" / f"{name}.parquet"
    atomic_write(path, _parquet(pd.DataFrame([row])), fsync=True)
    return path


def done_keys(store_dir: Path | str) -> set[tuple[str, str, str]]:
    """(task, solution, size) already stored, read from the summary files."""
    df = read_results(store_dir)
    if df.empty:
        return set()
    return set(zip(df["task"], df["solution"], df["size"], strict=False))


def _read_dir(folder: Path) -> pd.DataFrame:
    files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    frames = []
    for f in files:
        try:
            frames.append(pd.read_parquet(f))
        except (OSError, ValueError) as exc:  # a damaged file must not hide the others
            import sys  # noqa: PLC0415

            print(f"warning: {f}: unreadable results file skipped ({exc})", file=sys.stderr)
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def read_results(store_dir: Path | str) -> pd.DataFrame:
    """Every summary row of a store, one per (task, solution, size), sorted by those keys.

    ``audit_flags`` is a list of flag names per row.
    """
    df = _read_dir(Path(store_dir) / "results")
    if df.empty:
        return df
    for col in LIST_COLUMNS:
        if col in df:
            df[col] = df[col].map(lambda v: [] if v is None else [str(x) for x in v])
    return df.sort_values(["task", "solution", "size"], kind="stable").reset_index(drop=True)


def read_trials(store_dir: Path | str) -> pd.DataFrame:
    """Every raw call of a store (one row per call)."""
    return _read_dir(Path(store_dir) / "trials")
