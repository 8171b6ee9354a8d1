"""Loading the analysis table: a CSV, or a results store joined with tagger labels.

The unit of analysis is one row per (task, solution, size): ``speedup`` of a correct solution,
the ``author`` (model or person) when known, and one 0/1 column per strategy ID (``MEM-02``),
optionally with ``<ID>:intensity``. The table comes from a CSV (:func:`read_data_csv`) or from a
results store joined with tagger labels (:func:`join_results_labels`). Which strategies are
structural is read from the strategy catalog (:func:`load_structural_map`).
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

# flags that mean the timing cannot be trusted, from the audit's one flag table
from strategylens.harness.audit import CHEATING_FLAGS

# A strategy column: family letters, dash, number. Anti-patterns (AP-xx) are flags, not regressors.
_ID = re.compile(r"^[A-Z][A-Z0-9]{1,7}-\d{2,3}$")
INTENSITY = ":intensity"

_SIZE_ORDER = ("tiny", "small", "medium", "large", "huge")


class DataError(ValueError):
    """Bad input: the message names the file and the problem."""


# --------------------------------------------------------------------------------------------
# Loading and joining
# --------------------------------------------------------------------------------------------

@dataclass
class AnalysisData:
    """The tidy analysis table and what was set aside.

    Attributes
    ----------
    table : DataFrame
        Correct, untainted rows with a positive speedup: what effects are fitted on.
    failures : DataFrame
        Rows that did not compile or were not correct (kept for survivorship checks).
    excluded : DataFrame
        Rows with a cheating audit flag (column ``cheating_flags`` says which).
    strategies : list of str
        Strategy columns present in the data.
    source : str
        Where the data came from.
    problems : list of str
        Input problems found while loading (each names the file).
    """

    table: pd.DataFrame
    failures: pd.DataFrame
    excluded: pd.DataFrame
    strategies: list[str]
    source: str
    problems: list[str] = field(default_factory=list)

    @property
    def all_rows(self) -> pd.DataFrame:
        """Every row (passed, failed, excluded) with ``passed`` True only for rows in `table`."""
        parts = []
        for frame, passed in ((self.table, True), (self.failures, False), (self.excluded, False)):
            if len(frame):
                parts.append(frame.assign(passed=passed))
        if not parts:
            return self.table.assign(passed=pd.Series(dtype=bool))
        return pd.concat(parts, ignore_index=True)


def strategy_columns(columns: Iterable[str]) -> list[str]:
    """Strategy ID columns among `columns`, in catalog order (anti-patterns excluded).

    Examples
    --------
    >>> strategy_columns(["task", "PAR-04", "MEM-02", "MEM-02:intensity", "AP-01"])
    ['MEM-02', 'PAR-04']
    """
    ids = [c for c in columns if _ID.match(str(c)) and not str(c).startswith("AP-")]
    return sorted(ids, key=id_key)


def id_key(sid: str) -> tuple:
    order = ["MEM", "CMP", "PAR", "LBL", "HST"]
    fam, _, num = sid.partition("-")
    return (order.index(fam) if fam in order else len(order), fam, int(num) if num.isdigit() else 0)


def _to_bool(series: pd.Series, name: str, source: str, problems: list[str]) -> pd.Series:
    mapping = {"1": True, "0": False, "true": True, "false": False, "yes": True, "no": False,
               "t": True, "f": False, "1.0": True, "0.0": False}
    text = series.astype("string").str.strip().str.lower()
    out = text.map(mapping)
    bad = out.isna() & text.notna() & (text != "")
    if bad.any():
        problems.append(f"{source}: column {name!r} has values that are not true/false "
                        f"(rows {_rows(bad)}); treated as false")
    return out.fillna(False).astype(bool)


def _rows(mask: pd.Series, limit: int = 5) -> str:
    idx = [str(int(i) + 2) for i in np.flatnonzero(np.asarray(mask))[:limit]]  # +2: header, 1-based
    more = int(np.asarray(mask).sum()) - len(idx)
    return ", ".join(idx) + (f" and {more} more" if more > 0 else "")


def parse_flags(value) -> list[str]:
    """Audit flags from a list, a JSON list or a ``;``/``,``-separated string.

    Examples
    --------
    >>> parse_flags("cross-call-state;precision")
    ['cross-call-state', 'precision']
    >>> parse_flags('["stale-output"]'), parse_flags(None), parse_flags(float("nan"))
    (['stale-output'], [], [])
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    if isinstance(value, (list, tuple, set, np.ndarray)):
        return [str(v).strip() for v in value if str(v).strip()]
    text = str(value).strip()
    if text.startswith("["):
        try:
            return [str(v).strip() for v in json.loads(text) if str(v).strip()]
        except json.JSONDecodeError:
            pass
    return [p.strip() for p in re.split(r"[;,|]", text) if p.strip()]


def size_dispatch(df: pd.DataFrame, flags: pd.Series,
                  cheating: Iterable[str] = CHEATING_FLAGS) -> pd.Series:
    """Rows whose only excluding flag is ``host-compute``, at a size below one at which the same
    solution of the same task ran correct, on the device (kernel launches, where recorded) and
    without that flag: a solution that answers small inputs on the host on purpose (LBL-06, a
    hybrid split). The flag says what happened; the time is the solution's own, so such rows stay
    in the analysis. Sizes compare by the reference's ``cpu_ms``, else by name.

    Examples
    --------
    >>> rows = pd.DataFrame({"task": ["t"] * 3, "solution": ["a"] * 3, "correct": [True] * 3,
    ...                      "size": ["small", "medium", "large"], "cpu_ms": [1.0, 10.0, 100.0]})
    >>> size_dispatch(rows, pd.Series([["host-compute"], [], []])).tolist()
    [True, False, False]
    >>> size_dispatch(rows, pd.Series([["host-compute"]] * 3)).tolist()  # the host at every size
    [False, False, False]
    """
    cheating = set(cheating)
    order = {s: i for i, s in enumerate(_SIZE_ORDER)}
    scale = df["size"].astype(str).map(order).astype(float)
    if "cpu_ms" in df.columns:
        scale = pd.to_numeric(df["cpu_ms"], errors="coerce").fillna(scale)
    host = flags.map(lambda fl: "host-compute" in fl)
    only_host = flags.map(lambda fl: {f for f in fl if f in cheating} == {"host-compute"})
    device = ~host & df["correct"].fillna(False).astype(bool)
    if "kernel_launches" in df.columns:
        device &= pd.to_numeric(df["kernel_launches"], errors="coerce").fillna(1) > 0
    top = scale.where(device).groupby([df["task"], df["solution"]]).transform("max")
    return (only_host & (scale < top)).fillna(False).astype(bool)


def prepare_table(df: pd.DataFrame, source: str = "<data>",
                  cheating_flags: Iterable[str] = CHEATING_FLAGS) -> AnalysisData:
    """Validate and split a raw table into the analysis table, failures and excluded rows.

    Parameters
    ----------
    df : DataFrame
        Columns ``task, solution, speedup`` are required; ``size`` (default ``all``),
        ``author`` (default ``unknown``), ``correct`` (default true), ``compiled``,
        ``audit_flags``, ``cpu_ms`` and strategy columns are optional.
    source : str
        Name used in error messages (the file).
    cheating_flags : iterable of str
        Audit flags that exclude a row from the effects.

    Returns
    -------
    AnalysisData

    Raises
    ------
    DataError
        If required columns are missing.

    Examples
    --------
    >>> raw = pd.DataFrame({"task": ["t", "t"], "solution": ["a", "b"], "speedup": [4.0, None],
    ...                     "correct": [1, 0], "MEM-02": [1, 0]})
    >>> data = prepare_table(raw)
    >>> list(data.table["solution"]), list(data.failures["solution"]), data.strategies
    (['a'], ['b'], ['MEM-02'])
    """
    problems: list[str] = []
    missing = [c for c in ("task", "solution", "speedup") if c not in df.columns]
    if missing:
        raise DataError(f"{source}: missing required column(s) {', '.join(missing)} "
                        f"(have: {', '.join(map(str, df.columns))})")
    df = df.copy().reset_index(drop=True)
    for col in ("task", "solution"):
        df[col] = df[col].astype("string").str.strip()
        blank = df[col].isna() | (df[col] == "")
        if blank.any():
            problems.append(f"{source}: empty {col!r} in rows {_rows(blank)}; rows dropped")
            df = df[~blank].reset_index(drop=True)
    df["size"] = (df["size"].astype("string").fillna("all") if "size" in df.columns
                  else pd.Series("all", index=df.index, dtype="string"))
    df["author"] = (df["author"].astype("string").fillna("unknown") if "author" in df.columns
                    else pd.Series("unknown", index=df.index, dtype="string"))
    df["correct"] = (_to_bool(df["correct"], "correct", source, problems)
                     if "correct" in df.columns else True)
    if "compiled" in df.columns:
        df["compiled"] = _to_bool(df["compiled"], "compiled", source, problems)
        df["correct"] = df["correct"] & df["compiled"]
    df["speedup"] = pd.to_numeric(df["speedup"], errors="coerce")
    if "cpu_ms" in df.columns:
        df["cpu_ms"] = pd.to_numeric(df["cpu_ms"], errors="coerce")
    strategies = strategy_columns(df.columns)
    words = {"true": 1, "false": 0, "yes": 1, "no": 0, "t": 1, "f": 0}
    for sid in strategies:
        text = df[sid].astype("string").str.strip().str.lower()
        values = pd.to_numeric(text.map(lambda v: words.get(v, v) if isinstance(v, str) else v),
                               errors="coerce")
        bad = values.notna() & ~values.isin([0, 1])
        if bad.any() or (values.isna() & df[sid].notna()).any():
            problems.append(f"{source}: strategy column {sid} must be 0/1; other values in rows "
                            f"{_rows(bad | (values.isna() & df[sid].notna()))} read as 0")
        df[sid] = values.where(values.isin([0, 1]), 0).fillna(0).astype(int)
    for col in [c for c in df.columns if str(c).endswith(INTENSITY)]:
        df[col] = pd.to_numeric(df[col], errors="coerce")
    flags = df["audit_flags"].map(parse_flags) if "audit_flags" in df.columns else None
    cheating = set(cheating_flags)
    if flags is not None:
        dispatch = size_dispatch(df, flags, cheating)
        if dispatch.any():
            problems.append(f"{source}: {int(dispatch.sum())} row(s) flagged host-compute at a "
                            "size below one at which the same solution runs on the device "
                            "unflagged, read as a size dispatch (LBL-06) and kept: rows "
                            f"{_rows(dispatch)}")
        df["cheating_flags"] = [";".join(f for f in fl if f in cheating and not (
            d and f == "host-compute")) for fl, d in zip(flags, dispatch, strict=True)]
    else:
        df["cheating_flags"] = ""
    is_cheat = df["cheating_flags"] != ""
    usable = (df["speedup"] > 0) & np.isfinite(df["speedup"])
    bad_speed = df["correct"] & ~is_cheat & ~usable
    if bad_speed.any():
        inf = bad_speed & np.isinf(df["speedup"])
        what = (f"; {int(inf.sum())} infinite, a zero GPU time?" if inf.any() else "")
        problems.append(f"{source}: correct rows without a finite positive speedup (rows "
                        f"{_rows(bad_speed)}{what}); kept with the failures")
    ok = df["correct"] & ~is_cheat & usable
    dup = df[ok].index[df[ok].duplicated(["task", "solution", "size"], keep="first")]
    if len(dup):
        problems.append(f"{source}: {len(dup)} duplicate (task, solution, size) rows; "
                        "the first of each is used")
        df, ok, is_cheat = df.drop(index=dup), ok.drop(index=dup), is_cheat.drop(index=dup)
    table = df[ok].reset_index(drop=True)
    failures = df[~ok & ~is_cheat].reset_index(drop=True)
    excluded = df[is_cheat].reset_index(drop=True)
    return AnalysisData(table, failures, excluded, strategies, source, problems)


def read_data_csv(path: str | Path, **kwargs) -> AnalysisData:
    """Read an analysis CSV (see :func:`prepare_table` for its columns)."""
    path = Path(path)
    try:
        df = pd.read_csv(path, dtype={"task": str, "solution": str, "size": str, "author": str})
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not a readable CSV ({exc})") from None
    return prepare_table(df, str(path), **kwargs)


LABEL_COLUMNS = ["path", "id", "kind", "confidence", "intensity", "line_start", "line_end",
                 "detector"]


def read_labels(path: str | Path) -> tuple[pd.DataFrame, list[str]]:
    """Read tagger labels: JSON lines from ``strategylens tag --format jsonl`` or a Parquet file.

    Returns
    -------
    labels : DataFrame
        One row per label, columns ``path, id, kind, confidence, intensity, line_start,
        line_end, detector`` (one row per evidence span for JSONL input). Files that the tagger
        could not read appear with ``id`` missing so they still count as tagged.
    problems : list of str
        Bad lines and files the tagger reported as not ok, each naming the file.
    """
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: no such file")
    problems: list[str] = []
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            df = pd.read_parquet(path)
        except Exception as exc:  # pyarrow raises several types
            raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
        missing = [c for c in ("path", "id") if c not in df.columns]
        if missing:
            raise DataError(f"{path}: missing column(s) {', '.join(missing)}")
        for c in LABEL_COLUMNS:
            if c not in df.columns:
                df[c] = None
        return df[LABEL_COLUMNS].copy(), problems
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            fpath = obj["path"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            problems.append(f"{path}:{n}: not a label record ({exc.__class__.__name__}); skipped")
            continue
        if not obj.get("ok", True):
            problems.append(f"{path}:{n}: tagger failed on {fpath}: {obj.get('error')}; "
                            "its strategies are unknown, so it is left out")
            continue
        labels = obj.get("labels") or []
        if not labels:
            rows.append({"path": fpath, "id": None})
        for lab in labels:
            base = {"path": fpath, "id": lab.get("id"), "kind": lab.get("kind"),
                    "confidence": lab.get("confidence"), "intensity": lab.get("intensity")}
            for ev in lab.get("evidence") or [{}]:
                rows.append({**base, "line_start": ev.get("line_start"),
                             "line_end": ev.get("line_end"), "detector": ev.get("detector")})
    return pd.DataFrame(rows, columns=LABEL_COLUMNS), problems


def labels_wide(labels: pd.DataFrame, min_confidence: float = 0.0) -> pd.DataFrame:
    """One row per labelled file: 0/1 per ID and ``<ID>:intensity`` (the largest seen).

    Examples
    --------
    >>> long = pd.DataFrame({"path": ["a.cu", "a.cu", "b.cu"], "id": ["MEM-02", "PAR-04", None],
    ...                      "intensity": [512, None, None], "confidence": [0.9, 0.8, None]})
    >>> wide = labels_wide(long)
    >>> wide.loc["a.cu"].tolist(), wide.loc["b.cu"].tolist(), list(wide.columns)
    ([1.0, 1.0, 512.0], [0.0, 0.0, nan], ['MEM-02', 'PAR-04', 'MEM-02:intensity'])
    """
    files = pd.Index(pd.unique(labels["path"].astype(str)), name="path")
    lab = labels[labels["id"].notna()].copy()
    if "confidence" in lab.columns:
        conf = pd.to_numeric(lab["confidence"], errors="coerce")
        lab = lab[conf.isna() | (conf >= min_confidence)]
    lab["path"] = lab["path"].astype(str)
    ids = sorted(pd.unique(lab["id"].astype(str)), key=id_key)
    wide = pd.DataFrame(0, index=files, columns=ids, dtype=int)
    for (p, sid) in lab[["path", "id"]].drop_duplicates().itertuples(index=False):
        wide.loc[p, sid] = 1
    if "intensity" in lab.columns:
        inten = pd.to_numeric(lab["intensity"], errors="coerce")
        lab = lab.assign(intensity=inten)[inten.notna()]
        for sid, grp in lab.groupby("id"):
            wide[f"{sid}{INTENSITY}"] = grp.groupby("path")["intensity"].max().reindex(files)
    return wide


def join_results_labels(results: pd.DataFrame, labels: pd.DataFrame
                        ) -> tuple[pd.DataFrame, list[str]]:
    """Attach strategy columns to results rows by solution path.

    A result's ``solution`` matches a labelled ``path`` when the two are equal, or when one ends
    with the other on a path-component boundary (``bfs/sample_1.cu`` matches
    ``/runs/m/bfs/sample_1.cu``). When several labelled files match, only those with the
    result's task as a path component are kept; solutions left with none or several matches
    get no labels and are listed in `problems`.

    Parameters
    ----------
    results : DataFrame
        At least ``task`` and ``solution``.
    labels : DataFrame
        Long labels as returned by :func:`read_labels`.

    Returns
    -------
    joined : DataFrame
        `results` plus one 0/1 column per strategy (and intensities); unmatched rows are dropped.
    problems : list of str

    Examples
    --------
    >>> res = pd.DataFrame({"task": ["bfs", "sort"], "solution": ["sample_1.cu", "sample_1.cu"]})
    >>> lab = pd.DataFrame({"path": ["runs/m/bfs/sample_1.cu", "runs/m/sort/sample_1.cu"],
    ...                     "id": ["LBL-03", "HST-07"]})
    >>> joined, problems = join_results_labels(res, lab)
    >>> joined[["task", "LBL-03", "HST-07"]].values.tolist(), problems
    ([['bfs', 1, 0], ['sort', 0, 1]], [])
    """
    wide = labels_wide(labels)
    paths = [str(p).replace("\\", "/") for p in wide.index]
    problems: list[str] = []
    chosen: dict[tuple[str, str], str | None] = {}
    for task, sol in results[["task", "solution"]].astype(str).drop_duplicates().itertuples(
            index=False):
        s = sol.replace("\\", "/")
        cands = [p for p in paths if p == s or p.endswith("/" + s.lstrip("./"))
                 or s.endswith("/" + p.lstrip("./"))]
        named = len(cands)
        if named > 1:
            cands = [p for p in cands if task in p.split("/")]
        if len(cands) == 1:
            chosen[(task, sol)] = cands[0]
        else:
            chosen[(task, sol)] = None
            if not named:
                why = "no labelled file matches"
            elif not cands:
                why = f"{named} labelled files match by name, none in a folder named {task}"
            else:
                why = f"{len(cands)} labelled files match ({', '.join(cands[:3])})"
            problems.append(f"solution {sol} of task {task}: {why}; left out")
    key = pd.Series([chosen[(t, s)] for t, s in results[["task", "solution"]].astype(str)
                     .itertuples(index=False)], index=results.index)
    wide = wide.copy()
    wide.index = paths
    joined = results.assign(_path=key).dropna(subset=["_path"])
    joined = joined.merge(wide, left_on="_path", right_index=True, how="left")
    return joined.drop(columns="_path").reset_index(drop=True), problems


def read_store_results(store_dir: str | Path) -> pd.DataFrame:
    """Results export from the harness store (``strategylens.store.read_results``)."""
    try:
        from strategylens.store import read_results
    except ImportError as exc:
        raise DataError(f"{store_dir}: reading a results store needs strategylens.store."
                        f"read_results, which is not available ({exc}); export the store to CSV "
                        "and use --data instead") from None
    store_dir = Path(store_dir)
    if not store_dir.exists():
        raise DataError(f"{store_dir}: no such results store")
    if not (store_dir / "results").is_dir():
        raise DataError(f"{store_dir}: not a results store (no results/ folder; "
                        "`strategylens run --store DIR` writes one)")
    try:
        df = read_results(store_dir)
    except (OSError, ValueError) as exc:
        raise DataError(f"{store_dir}: cannot read the results store ({exc})") from None
    if df.empty:
        raise DataError(f"{store_dir}: the results store holds no results")
    missing = [c for c in ("task", "solution") if c not in df.columns]
    if missing:
        raise DataError(f"{store_dir}: results without the column(s) {', '.join(missing)}")
    return df


def load_analysis(data: str | Path | None = None, store: str | Path | None = None,
                  labels: str | Path | None = None) -> AnalysisData:
    """Load the analysis table from ``--data FILE.csv`` or ``--store DIR --labels FILE``.

    Solutions with a store result but no labels are dropped and reported in ``problems``;
    ``author`` is taken from a ``model`` column when the store has no ``author``, and for a
    corpus solution without one from its task's ``labels.yaml`` (:func:`with_corpus_authors`).
    """
    if data is not None:
        if store is not None or labels is not None:
            raise DataError("give either --data or --store with --labels, not both")
        return read_data_csv(data)
    if store is None or labels is None:
        raise DataError("give --data FILE.csv, or --store DIR together with --labels FILE")
    results = read_store_results(store)
    if "author" not in results.columns and "model" in results.columns:
        results = results.assign(author=results["model"])
    results = with_corpus_authors(results)
    long, problems = read_labels(labels)
    joined, join_problems = join_results_labels(results, long)
    out = prepare_table(joined, f"{store} + {labels}")
    out.problems = problems + join_problems + out.problems
    return out


def with_corpus_authors(results: pd.DataFrame) -> pd.DataFrame:
    """Fill a missing or ``unknown`` author from the ``labels.yaml`` of the solution's task
    folder (``<task>/solutions/<file>.cu`` -> ``<task>/labels.yaml``, keyed by file name), the
    corpus's record of each solution's author. Stored paths are read as given, then under the
    bundled tasks' parent folder; a solution with no such entry keeps what it had.

    Examples
    --------
    >>> r = pd.DataFrame({"task": ["knapsack"], "solution": ["tasks/knapsack/solutions/naive.cu"]})
    >>> with_corpus_authors(r)["author"].tolist()
    ['naive']
    """
    import yaml  # noqa: PLC0415

    from strategylens.resources import TASKS_DIR  # noqa: PLC0415

    @functools.cache
    def authors_in(folder: str) -> dict:
        f = Path(folder) / "labels.yaml"
        try:
            raw = yaml.safe_load(f.read_text()) if f.is_file() else None
        except (OSError, yaml.YAMLError):
            return {}
        return {k: v.get("author") for k, v in raw.items()
                if isinstance(v, dict) and v.get("author")} if isinstance(raw, dict) else {}

    def author_of(solution: str) -> str | None:
        for path in (Path(solution), TASKS_DIR.parent / solution):
            if path.parent.name == "solutions":
                found = authors_in(str(path.parent.parent)).get(path.name)
                if found:
                    return found
        return None

    have = (results["author"].astype("string") if "author" in results.columns
            else pd.Series(pd.NA, index=results.index, dtype="string"))
    blank = have.isna() | (have == "unknown")
    if not blank.any():
        return results
    filled = have.copy()
    filled[blank] = [author_of(str(s)) for s in results.loc[blank, "solution"]]
    return results.assign(author=filled)


def load_structural_map(extra_dirs: Iterable[str | Path] = ()) -> dict[str, bool]:
    """Map strategy ID -> structural flag, read from the strategy catalog.

    The catalog is ``strategylens.catalog.load_catalog`` (the built-in catalog, then
    ``$STRATEGYLENS_CATALOG``, then `extra_dirs`); every entry of kind ``strategy`` carries
    ``structural``. There is no built-in fallback list: when the catalog cannot be read, or
    holds no strategy with the flag, :class:`CatalogUnavailable` says where and why.

    Examples
    --------
    >>> m = load_structural_map()
    >>> m["MEM-02"], m["CMP-04"], "AP-01" in m
    (True, False, False)
    """
    try:
        from strategylens.catalog import catalog_dirs
    except ImportError as exc:
        raise CatalogUnavailable(f"strategylens.catalog cannot be imported ({exc}); the "
                                 "structural/micro flags come from the catalog") from None
    return dict(_structural_map(tuple(str(d) for d in catalog_dirs(extra_dirs))))


class CatalogUnavailable(DataError):
    """The strategy catalog could not be read, so strategies cannot be called S or m."""


@functools.lru_cache(maxsize=8)
def _structural_map(dirs: tuple[str, ...]) -> dict[str, bool]:
    from strategylens.catalog import load_catalog

    where = ", ".join(dirs)
    try:
        catalog = load_catalog(dirs, check_examples=False)
    except Exception as exc:  # any failure to read: say where, never guess the flags
        raise CatalogUnavailable(f"strategy catalog ({where}): cannot be read ({exc})") from None
    found = {e.id: bool(e.structural) for e in catalog.entries
             if e.kind == "strategy" and e.structural is not None}
    if not found:
        first = f"; first problem: {catalog.errors[0]}" if catalog.errors else ""
        raise CatalogUnavailable(f"strategy catalog ({where}): no strategy entry with a "
                                 f"structural flag{first}")
    return found


def size_rank(table: pd.DataFrame) -> list[str]:
    """Sizes from smallest to largest: by median ``cpu_ms`` when known, else by name.

    Examples
    --------
    >>> size_rank(pd.DataFrame({"size": ["large", "small", "medium"]}))
    ['small', 'medium', 'large']
    """
    sizes = list(pd.unique(table["size"].astype(str)))
    if "cpu_ms" in table.columns and table["cpu_ms"].notna().any():
        med = table.groupby("size")["cpu_ms"].median()
        if med.notna().all():
            return sorted(sizes, key=lambda s: med[s])
    known = [s for s in _SIZE_ORDER if s in sizes]
    numeric = pd.to_numeric(pd.Series(sizes), errors="coerce")
    if numeric.notna().all():
        return [s for _, s in sorted(zip(numeric, sizes, strict=True))]
    return known + sorted(s for s in sizes if s not in known)


def as_table(data: AnalysisData | pd.DataFrame) -> pd.DataFrame:
    """The rows effects are fitted on: a DataFrame is validated like a CSV first."""
    if isinstance(data, AnalysisData):
        return data.table
    return prepare_table(data, "<DataFrame>").table


def kind_of(structural: Mapping[str, bool], sid: str) -> str:
    """``S`` (structural), ``m`` (micro) or empty when the catalog does not know `sid`."""
    if sid not in structural:
        return ""
    return "S" if structural[sid] else "m"
