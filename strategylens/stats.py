"""Statistics: which strategies go with a higher speedup on the same task.

The unit of analysis is one row per (task, solution, size): ``speedup`` of a correct solution,
the ``author`` (model or person) when known, and one 0/1 column per strategy ID (``MEM-02``),
optionally with ``<ID>:intensity``. The table comes from a CSV (:func:`read_data_csv`) or from a
results store joined with tagger labels (:func:`join_results_labels`).

Effects (:func:`fit_effects`) are least-squares coefficients of log speedup on the strategy
indicators with task x size and author fixed effects (absorbed by Frisch-Waugh-Lovell),
cluster-robust standard errors by task with Student t on G - 1 degrees of freedom, a task-cluster
bootstrap as a check, and Benjamini-Hochberg q-values. docs/statistics.md gives the reasons.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

# A strategy column: family letters, dash, number. Anti-patterns (AP-xx) are flags, not regressors.
_ID = re.compile(r"^[A-Z][A-Z0-9]{1,7}-\d{2,3}$")
_INTENSITY = ":intensity"

# Harness audit flags that mean the timing cannot be trusted (issue 5). `precision` is a
# warning about a loose tolerance, not a timing loophole, so it does not exclude a row.
CHEATING_FLAGS = frozenset({
    "cross-call-state", "stale-output", "work-after-return", "load-time-work", "host-compute",
    "input-mutation", "partial-output", "filesystem-access", "timer-tamper",
})

# Structural strategies of catalog v1 (../shared/strategy-taxonomy.md). Used only when neither the
# catalog module nor catalog/*/strategy.yaml is available.
_STRUCTURAL_V1 = frozenset({
    "MEM-01", "MEM-02", "MEM-03", "MEM-07", "CMP-01", "CMP-02", "CMP-03", "CMP-08", "CMP-09",
    "PAR-02", "PAR-04", "PAR-05", "PAR-07", "PAR-08", "PAR-09", "PAR-10", "LBL-01", "LBL-02",
    "LBL-03", "LBL-04", "LBL-05", "LBL-06", "HST-01", "HST-03", "HST-04", "HST-06", "HST-07",
})
_MICRO_V1 = frozenset({
    "MEM-04", "MEM-05", "MEM-06", "MEM-08", "MEM-09", "MEM-10", "CMP-04", "CMP-05", "CMP-06",
    "CMP-07", "PAR-01", "PAR-03", "PAR-06", "PAR-11", "HST-02", "HST-05",
})

_SIZE_ORDER = ("tiny", "small", "medium", "large", "huge")

EFFECT_COLUMNS = [
    "strategy", "kind", "effect_log", "se_log", "ci_low_log", "ci_high_log", "multiplier",
    "multiplier_low", "multiplier_high", "p_value", "q_value", "boot_low_log", "boot_high_log",
    "n_tasks", "n_with", "n_without", "bundle", "estimable", "note",
]


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
    return sorted(ids, key=_id_key)


def _id_key(sid: str) -> tuple:
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
    for col in [c for c in df.columns if str(c).endswith(_INTENSITY)]:
        df[col] = pd.to_numeric(df[col], errors="coerce")
    flags = df["audit_flags"].map(parse_flags) if "audit_flags" in df.columns else None
    cheating = set(cheating_flags)
    df["cheating_flags"] = (flags.map(lambda fl: ";".join(f for f in fl if f in cheating))
                            if flags is not None else "")
    is_cheat = df["cheating_flags"] != ""
    bad_speed = df["correct"] & ~is_cheat & ~(df["speedup"] > 0)
    if bad_speed.any():
        problems.append(f"{source}: correct rows without a positive speedup (rows "
                        f"{_rows(bad_speed)}); kept with the failures")
    ok = df["correct"] & ~is_cheat & (df["speedup"] > 0)
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
    ids = sorted(pd.unique(lab["id"].astype(str)), key=_id_key)
    wide = pd.DataFrame(0, index=files, columns=ids, dtype=int)
    for (p, sid) in lab[["path", "id"]].drop_duplicates().itertuples(index=False):
        wide.loc[p, sid] = 1
    if "intensity" in lab.columns:
        inten = pd.to_numeric(lab["intensity"], errors="coerce")
        lab = lab.assign(intensity=inten)[inten.notna()]
        for sid, grp in lab.groupby("id"):
            wide[f"{sid}{_INTENSITY}"] = grp.groupby("path")["intensity"].max().reindex(files)
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
    try:
        return read_results(store_dir)
    except (OSError, ValueError) as exc:
        raise DataError(f"{store_dir}: cannot read the results store ({exc})") from None


def load_analysis(data: str | Path | None = None, store: str | Path | None = None,
                  labels: str | Path | None = None) -> AnalysisData:
    """Load the analysis table from ``--data FILE.csv`` or ``--store DIR --labels FILE``.

    Solutions with a store result but no labels are dropped and reported in ``problems``;
    ``author`` is taken from a ``model`` column when the store has no ``author``.
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
    long, problems = read_labels(labels)
    joined, join_problems = join_results_labels(results, long)
    out = prepare_table(joined, f"{store} + {labels}")
    out.problems = problems + join_problems + out.problems
    return out


def load_structural_map(catalog_dir: str | Path | None = None) -> dict[str, bool]:
    """Map strategy ID -> structural flag.

    Starts from the v1 taxonomy (../shared/strategy-taxonomy.md) and overrides it with
    ``strategylens.catalog.load_catalog()`` when that works, else with
    ``catalog/*/strategy.yaml`` (fields ``id``, ``kind``, ``structural``), so a partial or
    extended catalog still gives a complete map.

    Examples
    --------
    >>> m = load_structural_map()
    >>> m["MEM-02"], m["CMP-04"]
    (True, False)
    """
    found = {**{s: True for s in _STRUCTURAL_V1}, **{s: False for s in _MICRO_V1}}
    try:
        from strategylens.catalog import load_catalog

        entries = load_catalog() if catalog_dir is None else load_catalog(catalog_dir)
        from_catalog = {e.id: bool(e.structural) for e in entries
                        if getattr(e, "kind", "strategy") == "strategy"}
        if from_catalog:
            return {**found, **from_catalog}
    except Exception:  # catalog module missing or not finished: read the YAML files
        pass
    root = Path(catalog_dir) if catalog_dir else Path(__file__).resolve().parent.parent / "catalog"
    if root.is_dir():
        import yaml

        for f in sorted(root.glob("*/strategy.yaml")):
            try:
                entry = yaml.safe_load(f.read_text())
                if entry.get("kind", "strategy") == "strategy" and "structural" in entry:
                    found[str(entry["id"])] = bool(entry["structural"])
            except (OSError, yaml.YAMLError, AttributeError, KeyError):
                continue
    return found


# --------------------------------------------------------------------------------------------
# Co-occurrence
# --------------------------------------------------------------------------------------------

def solutions(table: pd.DataFrame, strategies: Sequence[str]) -> pd.DataFrame:
    """One row per (task, solution): author and strategy indicators."""
    cols = ["task", "solution", "author", *strategies]
    return table[cols].drop_duplicates(["task", "solution"]).reset_index(drop=True)


def jaccard_matrix(table: pd.DataFrame, strategies: Sequence[str]) -> pd.DataFrame:
    """Jaccard index |A and B| / |A or B| between strategies over solutions.

    Examples
    --------
    >>> t = pd.DataFrame({"task": ["t"] * 4, "solution": list("abcd"), "author": "x",
    ...                   "MEM-02": [1, 1, 1, 0], "PAR-04": [1, 1, 0, 0]})
    >>> jaccard_matrix(t, ["MEM-02", "PAR-04"]).round(3).values.tolist()
    [[1.0, 0.667], [0.667, 1.0]]
    """
    x = solutions(table, strategies)[list(strategies)].to_numpy(dtype=float)
    both = x.T @ x
    count = x.sum(axis=0)
    union = count[:, None] + count[None, :] - both
    with np.errstate(invalid="ignore", divide="ignore"):
        jac = np.where(union > 0, both / union, 0.0)
    return pd.DataFrame(jac, index=list(strategies), columns=list(strategies))


def find_bundles(table: pd.DataFrame, strategies: Sequence[str], threshold: float = 0.9
                 ) -> list[list[str]]:
    """Groups of strategies linked by Jaccard >= `threshold` (connected components, size >= 2).

    Examples
    --------
    >>> t = pd.DataFrame({"task": ["t"] * 4, "solution": list("abcd"), "author": "x",
    ...                   "MEM-02": [1, 1, 1, 0], "PAR-04": [1, 1, 1, 0], "CMP-04": [0, 1, 0, 1]})
    >>> find_bundles(t, ["MEM-02", "PAR-04", "CMP-04"])
    [['MEM-02', 'PAR-04']]
    """
    from scipy.sparse.csgraph import connected_components

    strategies = list(strategies)
    if len(strategies) < 2:
        return []
    jac = jaccard_matrix(table, strategies).to_numpy()
    _, comp = connected_components(jac >= threshold, directed=False)
    groups = [sorted((s for s, c in zip(strategies, comp, strict=True) if c == k), key=_id_key)
              for k in np.unique(comp)]
    return sorted([g for g in groups if len(g) >= 2], key=lambda g: _id_key(g[0]))


# --------------------------------------------------------------------------------------------
# Effects
# --------------------------------------------------------------------------------------------

def _size_rank(table: pd.DataFrame) -> list[str]:
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


def _fixed_effects(table: pd.DataFrame, author: bool = True) -> np.ndarray:
    """Dummy matrix of task x size cells plus authors (first author dropped)."""
    cell = table["task"].astype(str) + "\x1f" + table["size"].astype(str)
    parts = [pd.get_dummies(cell, dtype=float).to_numpy()]
    if author and table["author"].nunique() > 1:
        parts.append(pd.get_dummies(table["author"].astype(str), drop_first=True,
                                    dtype=float).to_numpy())
    return np.hstack(parts)


def _residualize(fe: np.ndarray, m: np.ndarray) -> np.ndarray:
    coef, *_ = np.linalg.lstsq(fe, m, rcond=None)
    return m - fe @ coef


@dataclass
class EffectsFit:
    """Result of :func:`fit_effects`.

    Attributes
    ----------
    table : DataFrame
        One row per strategy (and per bundle), columns :data:`EFFECT_COLUMNS`.
    params : Series
        Coefficients of the model's regressors (merged identical strategies share one).
    cov : DataFrame
        Their cluster-robust covariance.
    df_inference : int
        Degrees of freedom of the t reference (tasks - 1).
    columns : dict
        Regressor name -> strategies it stands for.
    bundles : list of list of str
    result : statsmodels results or None
    cov_type : str
        Covariance actually used (``cluster`` when CR3 was asked for but not identified).
    """

    table: pd.DataFrame
    params: pd.Series
    cov: pd.DataFrame
    df_inference: int
    columns: dict[str, list[str]]
    bundles: list[list[str]]
    result: object = None
    cov_type: str = "cluster-crv3"

    def combination(self, weights: Mapping[str, float], alpha: float = 0.05) -> dict:
        """Estimate, CI and p-value of sum(weight * coefficient) with the fit's covariance."""
        from scipy import stats as st

        w = np.array([weights.get(c, 0.0) for c in self.params.index])
        est = float(w @ self.params.to_numpy())
        se = float(np.sqrt(max(w @ self.cov.to_numpy() @ w, 0.0)))
        tcrit = st.t.ppf(1 - alpha / 2, self.df_inference)
        p = float(2 * st.t.sf(abs(est / se), self.df_inference)) if se > 0 else float("nan")
        return {"estimate_log": est, "se_log": se, "ci_low_log": est - tcrit * se,
                "ci_high_log": est + tcrit * se, "p_value": p}


def _screen(table: pd.DataFrame, strategies: Sequence[str], fe: np.ndarray, min_with: int,
            min_tasks: int) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Pick estimable regressors; merge identical columns; give reasons for the rest."""
    sol = solutions(table, strategies)
    reasons: dict[str, str] = {}
    kept: list[str] = []
    varying = (table.groupby(["task", "size"])[list(strategies)].nunique() > 1) \
        .groupby(level=0).any().sum()
    for sid in strategies:
        n_with = int(sol[sid].sum())
        n_without = len(sol) - n_with
        n_var_tasks = int(varying[sid])
        if n_with == 0:
            reasons[sid] = "not used by any correct solution"
        elif n_without == 0:
            reasons[sid] = "used by every correct solution: no comparison"
        elif n_with < min_with:
            reasons[sid] = f"too rare: {n_with} solution(s) use it (need {min_with})"
        elif n_var_tasks == 0:
            reasons[sid] = "no within-task variation: every task's solutions all use it or all not"
        elif n_var_tasks < min_tasks:
            reasons[sid] = (f"varies within only {n_var_tasks} task(s) (need {min_tasks}); "
                            "cluster-robust inference impossible")
        else:
            kept.append(sid)
    # identical columns (over rows) are one regressor
    columns: dict[str, list[str]] = {}
    seen: dict[bytes, str] = {}
    for sid in kept:
        key = table[sid].to_numpy(dtype=np.int8).tobytes()
        if key in seen:
            columns[seen[key]].append(sid)
        else:
            seen[key] = sid
            columns[sid] = [sid]
    columns = {"+".join(v): v for v in columns.values()}
    for name, members in columns.items():
        if len(members) > 1:
            for sid in members:
                others = ", ".join(m for m in members if m != sid)
                reasons[sid] = (f"always co-occurs with {others}: only the bundle {name} "
                                "is estimable")
    # perfect collinearity with fixed effects and other strategies, greedily by prevalence
    names = sorted(columns, key=lambda c: -table[columns[c][0]].sum())
    x = _residualize(fe, table[[columns[n][0] for n in names]].to_numpy(dtype=float))
    accepted: list[int] = []
    for j, name in enumerate(names):
        col = x[:, j]
        scale = np.linalg.norm(table[columns[name][0]].to_numpy(dtype=float))
        if accepted:
            basis = x[:, accepted]
            coef, *_ = np.linalg.lstsq(basis, col, rcond=None)
            resid = col - basis @ coef
        else:
            coef, resid = np.array([]), col
        if np.linalg.norm(resid) <= 1e-8 * max(scale, 1.0):
            partners = [names[accepted[i]] for i in np.flatnonzero(np.abs(coef) > 1e-6)]
            for sid in columns[name]:
                reasons[sid] = ("perfectly collinear with the fixed effects"
                                + (f" and {', '.join(partners)}" if partners else ""))
        else:
            accepted.append(j)
    keep = sorted((names[j] for j in accepted), key=lambda n: _id_key(columns[n][0]))
    return {n: columns[n] for n in keep}, reasons


def _ols_fwl(y: np.ndarray, x: np.ndarray, groups: np.ndarray, cov_type: str = "cluster-crv3"):
    """OLS on residualized data with cluster-robust covariance; returns (result, cov used)."""
    import statsmodels.api as sm

    kwds = {"groups": groups, "use_correction": True, "df_correction": True}
    try:
        return sm.OLS(y, x).fit(cov_type=cov_type, cov_kwds=kwds, use_t=True), cov_type
    except (ValueError, np.linalg.LinAlgError):  # CR3: a leave-one-task-out fit not identified
        if cov_type == "cluster":
            raise
        return sm.OLS(y, x).fit(cov_type="cluster", cov_kwds=kwds, use_t=True), "cluster"


def fit_effects(data: AnalysisData | pd.DataFrame, strategies: Sequence[str] | None = None, *,
                structural: Mapping[str, bool] | None = None, bundle_threshold: float = 0.9,
                min_with: int = 3, min_tasks: int = 2, alpha: float = 0.05,
                bootstrap: int = 0, seed: int = 0, author: bool = True,
                cov_type: str = "cluster-crv3") -> EffectsFit:
    """Effect of each strategy on log speedup within task, size and author.

    The model is ``log(speedup) = cell(task, size) + author + sum_j beta_j * strategy_j + e``,
    fitted by OLS after absorbing the fixed effects (Frisch-Waugh-Lovell); standard errors are
    cluster-robust by task with t(G - 1) intervals: the leave-one-task-out jackknife CR3 by
    default (``cov_type="cluster-crv3"``), CR1 with ``"cluster"``; when a leave-one-task-out
    fit is not identified, CR3 falls back to CR1 and every note says so.

    Parameters
    ----------
    data : AnalysisData or DataFrame
        The analysis table (correct rows only).
    strategies : sequence of str, optional
        Strategy columns to use; default all strategy columns.
    structural : mapping, optional
        ID -> structural flag, for the ``kind`` column (default :func:`load_structural_map`).
    bundle_threshold : float
        Jaccard index at or above which strategies form a bundle.
    min_with : int
        Fewest solutions using a strategy for it to be estimated.
    min_tasks : int
        Fewest tasks in which a strategy must vary (some solutions with, some without).
    alpha : float
        1 - confidence level.
    bootstrap : int
        Task-cluster bootstrap replicates (0: none); adds ``boot_low_log``/``boot_high_log``.
    seed : int
        Bootstrap seed.
    author : bool
        Include author fixed effects.
    cov_type : {"cluster-crv3", "cluster"}
        CR3 (default) or CR1 cluster-robust covariance.

    Returns
    -------
    EffectsFit

    Examples
    --------
    >>> corpus = simulate_corpus(n_tasks=12, seed=3)
    >>> fit = fit_effects(corpus.data)
    >>> row = fit.table.set_index("strategy").loc["CMP-01"]
    >>> bool(row.ci_low_log < corpus.effects["CMP-01"] < row.ci_high_log)
    True
    """
    from statsmodels.stats.multitest import multipletests

    table = _as_table(data)
    table = table.reset_index(drop=True)
    strategies = list(strategies) if strategies is not None else strategy_columns(table.columns)
    structural = dict(structural) if structural is not None else load_structural_map()
    if table.empty:
        raise DataError("no correct solutions with a positive speedup to fit")
    y = np.log(table["speedup"].to_numpy(dtype=float))
    fe = _fixed_effects(table, author)
    columns, reasons = _screen(table, strategies, fe, min_with, min_tasks)
    groups = pd.factorize(table["task"])[0]
    n_groups = int(groups.max()) + 1
    if n_groups < 2:
        raise DataError(f"only {n_groups} task with passing solutions: within-task effects with "
                        "task-clustered errors need at least 2 tasks")
    names = list(columns)
    sol = solutions(table, strategies)
    bundles = find_bundles(table, [s for s in strategies if sol[s].sum() > 0], bundle_threshold)
    bundle_of = {s: f"B{i + 1}" for i, b in enumerate(bundles) for s in b}
    for members in columns.values():  # identical columns are bundles too
        if len(members) > 1 and not any(m in bundle_of for m in members):
            bundles.append(list(members))
            for m in members:
                bundle_of[m] = f"B{len(bundles)}"

    result = None
    if names:
        xr = _residualize(fe, table[[columns[n][0] for n in names]].to_numpy(dtype=float))
        yr = _residualize(fe, y[:, None])[:, 0]
        result, cov_used = _ols_fwl(yr, xr, groups, cov_type)
        params = pd.Series(np.asarray(result.params), index=names)
        cov = pd.DataFrame(np.asarray(result.cov_params()), index=names, columns=names)
    else:
        params, cov, cov_used = pd.Series(dtype=float), pd.DataFrame(), cov_type
    fit = EffectsFit(pd.DataFrame(), params, cov, max(n_groups - 1, 1), columns, bundles, result,
                     cov_used)

    boot = cluster_bootstrap(table, columns, bootstrap, seed, author) if bootstrap and names \
        else None
    rows = []
    column_of = {m: n for n, ms in columns.items() for m in ms}
    task_var = (table.groupby("task")[strategies].nunique() > 1).sum()
    for sid in strategies:
        n_with = int(sol[sid].sum())
        row = {"strategy": sid, "kind": _kind(structural, sid), "n_tasks": int(task_var[sid]),
               "n_with": n_with, "n_without": len(sol) - n_with, "bundle": bundle_of.get(sid, ""),
               "estimable": sid in column_of and len(columns[column_of[sid]]) == 1,
               "note": reasons.get(sid, "")}
        if row["estimable"]:
            if cov_used != cov_type:
                row["note"] = f"{cov_used} covariance: {cov_type} not identified"
            est = fit.combination({sid: 1.0}, alpha)
            row.update(effect_log=est["estimate_log"], se_log=est["se_log"],
                       ci_low_log=est["ci_low_log"], ci_high_log=est["ci_high_log"],
                       p_value=est["p_value"])
            if boot is not None:
                row.update(_boot_ci(boot[sid], alpha))
            if row["bundle"]:
                mates = [m for m in next(b for b in bundles if sid in b) if m != sid]
                row["note"] = row["note"] + (f"warning: bundle {row['bundle']} with "
                                             f"{', '.join(mates)}; read the bundle row")
        rows.append(row)
    for i, members in enumerate(bundles):
        label = f"B{i + 1}"
        regs = sorted({column_of[m] for m in members if m in column_of})
        in_all = sol[members].all(axis=1)
        in_none = ~sol[members].any(axis=1)
        row = {"strategy": "+".join(members), "kind": "bundle",
               "n_tasks": int((table.assign(_b=table[members].all(axis=1))
                               .groupby("task")["_b"].nunique() > 1).sum()),
               "n_with": int(in_all.sum()), "n_without": int(in_none.sum()), "bundle": label,
               "estimable": bool(regs), "note": ""}
        missing = [m for m in members if m not in column_of]
        if regs:
            est = fit.combination({r: 1.0 for r in regs}, alpha)
            row.update(effect_log=est["estimate_log"], se_log=est["se_log"],
                       ci_low_log=est["ci_low_log"], ci_high_log=est["ci_high_log"],
                       p_value=est["p_value"])
            if boot is not None:
                row.update(_boot_ci(sum(boot[r.split("+")[0]] for r in regs), alpha))
            row["note"] = "all members together (sum of their effects)"
            if missing:
                row["note"] += f"; not estimable and left out: {', '.join(missing)}"
        else:
            row["note"] = "no member is estimable"
        rows.append(row)
    out = pd.DataFrame(rows)
    for c in EFFECT_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    out["estimable"] = out["estimable"].fillna(False).astype(bool)
    out["multiplier"] = np.exp(out["effect_log"])
    out["multiplier_low"] = np.exp(out["ci_low_log"])
    out["multiplier_high"] = np.exp(out["ci_high_log"])
    ok = out["p_value"].notna()
    out["q_value"] = np.nan
    if ok.any():
        out.loc[ok, "q_value"] = multipletests(out.loc[ok, "p_value"], method="fdr_bh")[1]
    fit.table = out[EFFECT_COLUMNS]
    return fit


def _as_table(data: AnalysisData | pd.DataFrame) -> pd.DataFrame:
    """The rows effects are fitted on: a DataFrame is validated like a CSV first."""
    if isinstance(data, AnalysisData):
        return data.table
    return prepare_table(data, "<DataFrame>").table


def _kind(structural: Mapping[str, bool], sid: str) -> str:
    if sid not in structural:
        return ""
    return "S" if structural[sid] else "m"


def _boot_ci(draws: np.ndarray, alpha: float) -> dict:
    draws = np.asarray(draws, dtype=float)
    draws = draws[np.isfinite(draws)]
    if len(draws) < 20:
        return {"boot_low_log": np.nan, "boot_high_log": np.nan}
    lo, hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2])
    return {"boot_low_log": float(lo), "boot_high_log": float(hi)}


def cluster_bootstrap(table: pd.DataFrame, columns: Mapping[str, Sequence[str]], n_boot: int,
                      seed: int = 0, author: bool = True) -> dict[str, np.ndarray]:
    """Task-cluster bootstrap of the effect coefficients.

    Tasks are drawn with replacement (a task drawn twice counts as two tasks) and the model is
    refitted by least squares. Replicates in which a regressor has no variation left are NaN.

    Returns
    -------
    dict
        First member of each regressor -> array of `n_boot` coefficient draws.
    """
    rng = np.random.default_rng(seed)
    names = list(columns)
    first = [columns[n][0] for n in names]
    x_all = table[first].to_numpy(dtype=float)
    y_all = np.log(table["speedup"].to_numpy(dtype=float))
    task_code, tasks = pd.factorize(table["task"])
    cell_code = pd.factorize(table["task"].astype(str) + "\x1f" + table["size"].astype(str))[0]
    author_code, authors = pd.factorize(table["author"])
    rows_of = [np.flatnonzero(task_code == t) for t in range(len(tasks))]
    draws = np.full((n_boot, len(names)), np.nan)
    for b in range(n_boot):
        pick = rng.choice(len(tasks), size=len(tasks), replace=True)
        idx = np.concatenate([rows_of[i] for i in pick])
        copy = np.concatenate([np.full(len(rows_of[i]), k) for k, i in enumerate(pick)])
        cells = pd.factorize(cell_code[idx] * len(tasks) + copy)[0]
        fe = [np.eye(cells.max() + 1)[cells]]
        if author and len(authors) > 1:
            fe.append(np.eye(len(authors))[author_code[idx]][:, 1:])
        fe = np.hstack(fe)
        xr = _residualize(fe, x_all[idx])
        yr = _residualize(fe, y_all[idx, None])[:, 0]
        ok = np.linalg.norm(xr, axis=0) > 1e-8
        if ok.any() and np.linalg.matrix_rank(xr[:, ok]) == ok.sum():
            draws[b, ok] = np.linalg.lstsq(xr[:, ok], yr, rcond=None)[0]
    return {f: draws[:, j] for j, f in enumerate(first)}


# --------------------------------------------------------------------------------------------
# Contrasts
# --------------------------------------------------------------------------------------------

CONTRAST_COLUMNS = ["contrast", "method", "estimate_log", "ci_low_log", "ci_high_log",
                    "multiplier", "multiplier_low", "multiplier_high", "p_value", "n_strategies",
                    "strategies"]


def structural_contrast(data: AnalysisData | pd.DataFrame, fit: EffectsFit | None = None, *,
                        structural: Mapping[str, bool] | None = None, alpha: float = 0.05,
                        **fit_kwargs) -> pd.DataFrame:
    """Structural against micro strategies.

    Two estimates. ``mean of effects`` (primary): the average coefficient of the estimable
    structural strategies minus that of the micro ones, a linear combination of the effects
    model with its cluster-robust covariance. ``count model``: log speedup on the number of
    structural and the number of micro strategies a solution uses (same fixed effects and
    errors); the per-strategy slopes and their difference.

    Returns
    -------
    DataFrame
        Columns :data:`CONTRAST_COLUMNS`, rows ``structural``, ``micro``,
        ``structural - micro`` for each method.

    Examples
    --------
    >>> corpus = simulate_corpus(n_tasks=16, seed=1)
    >>> c = structural_contrast(corpus.data, structural=corpus.structural)
    >>> diff = c[(c.contrast == "structural - micro") & (c.method == "mean of effects")]
    >>> bool(diff.estimate_log.iloc[0] > 0)
    True
    """
    from scipy import stats as st

    table = _as_table(data)
    structural = dict(structural) if structural is not None else load_structural_map()
    fit = fit or fit_effects(table, structural=structural, alpha=alpha, **fit_kwargs)
    rows = []
    groups = {"structural": [], "micro": []}
    for name, members in fit.columns.items():
        kinds = {structural.get(m) for m in members}
        if kinds == {True}:
            groups["structural"].append(name)
        elif kinds == {False}:
            groups["micro"].append(name)
    weights = {g: {n: 1.0 / len(v) for n in v} for g, v in groups.items() if v}
    for g in ("structural", "micro"):
        if g in weights:
            rows.append({"contrast": g, "method": "mean of effects",
                         **fit.combination(weights[g], alpha), "n_strategies": len(groups[g]),
                         "strategies": ";".join(groups[g])})
    if len(weights) == 2:
        w = {n: weights["structural"].get(n, 0.0) - weights["micro"].get(n, 0.0)
             for n in fit.columns}
        rows.append({"contrast": "structural - micro", "method": "mean of effects",
                     **fit.combination(w, alpha),
                     "n_strategies": len(groups["structural"]) + len(groups["micro"]),
                     "strategies": ""})
    # count model
    strategies = strategy_columns(table.columns)
    s_ids = [s for s in strategies if structural.get(s) is True]
    m_ids = [s for s in strategies if structural.get(s) is False]
    table = table.reset_index(drop=True)
    counts = np.column_stack([table[s_ids].sum(axis=1), table[m_ids].sum(axis=1)]) \
        if s_ids and m_ids else np.zeros((len(table), 0))
    fe = _fixed_effects(table, fit_kwargs.get("author", True))
    xr = _residualize(fe, counts.astype(float))
    if counts.shape[1] == 2 and np.linalg.matrix_rank(xr) == 2:
        yr = _residualize(fe, np.log(table["speedup"].to_numpy(dtype=float))[:, None])[:, 0]
        groups_idx = pd.factorize(table["task"])[0]
        res, _ = _ols_fwl(yr, xr, groups_idx, fit.cov_type)
        df = int(groups_idx.max())
        tcrit = st.t.ppf(1 - alpha / 2, max(df, 1))
        cov = np.asarray(res.cov_params())
        for label, w, n in (("structural", [1, 0], len(s_ids)), ("micro", [0, 1], len(m_ids)),
                            ("structural - micro", [1, -1], len(s_ids) + len(m_ids))):
            w = np.array(w, dtype=float)
            est = float(w @ np.asarray(res.params))
            se = float(np.sqrt(max(w @ cov @ w, 0.0)))
            p = float(2 * st.t.sf(abs(est / se), max(df, 1))) if se > 0 else float("nan")
            rows.append({"contrast": label, "method": "count model", "estimate_log": est,
                         "ci_low_log": est - tcrit * se, "ci_high_log": est + tcrit * se,
                         "p_value": p, "n_strategies": n,
                         "strategies": ";".join(s_ids if label == "structural" else m_ids
                                                if label == "micro" else [])})
    out = pd.DataFrame(rows)
    for c in CONTRAST_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    out["multiplier"] = np.exp(out["estimate_log"])
    out["multiplier_low"] = np.exp(out["ci_low_log"])
    out["multiplier_high"] = np.exp(out["ci_high_log"])
    return out[CONTRAST_COLUMNS]


SIZE_COLUMNS = ["strategy", "size", "effect_log", "ci_low_log", "ci_high_log", "multiplier",
                "p_value", "note"]


def size_effects(data: AnalysisData | pd.DataFrame, fit: EffectsFit | None = None, *,
                 alpha: float = 0.05, **fit_kwargs) -> pd.DataFrame:
    """Effect of each estimable strategy at each input size, and largest minus smallest.

    The effects model with each strategy regressor split into one regressor per size
    (strategy x size interaction); sizes are ordered by median CPU time when ``cpu_ms`` is
    known, else by name (small < medium < large). The row with size
    ``"<largest> - <smallest>"`` tests whether the effect grows with size.

    Returns
    -------
    DataFrame
        Columns :data:`SIZE_COLUMNS`; empty when the data have one size.
    """
    table = _as_table(data)
    table = table.reset_index(drop=True)
    fit = fit or fit_effects(table, alpha=alpha, **fit_kwargs)
    sizes = _size_rank(table)
    if len(sizes) < 2 or not fit.columns:
        return pd.DataFrame(columns=SIZE_COLUMNS)
    cols, names = [], []
    for name, members in fit.columns.items():
        for s in sizes:
            cols.append(table[members[0]].to_numpy(dtype=float) * (table["size"] == s).to_numpy())
            names.append((name, s))
    x = np.column_stack(cols)
    fe = _fixed_effects(table, fit_kwargs.get("author", True))
    xr = _residualize(fe, x)
    keep = np.linalg.norm(xr, axis=0) > 1e-8
    if not keep.any():
        return pd.DataFrame(columns=SIZE_COLUMNS)
    yr = _residualize(fe, np.log(table["speedup"].to_numpy(dtype=float))[:, None])[:, 0]
    groups = pd.factorize(table["task"])[0]
    res, _ = _ols_fwl(yr, xr[:, keep], groups, fit.cov_type)
    kept = [n for n, k in zip(names, keep, strict=True) if k]
    sub = EffectsFit(pd.DataFrame(), pd.Series(np.asarray(res.params), index=kept),
                     pd.DataFrame(np.asarray(res.cov_params()), index=kept, columns=kept),
                     int(groups.max()), {}, [])
    rows = []
    for name in fit.columns:
        for s in sizes:
            if (name, s) in kept:
                e = sub.combination({(name, s): 1.0}, alpha)
                rows.append({"strategy": name, "size": s, "effect_log": e["estimate_log"],
                             "ci_low_log": e["ci_low_log"], "ci_high_log": e["ci_high_log"],
                             "p_value": e["p_value"], "note": ""})
            else:
                rows.append({"strategy": name, "size": s, "note": "no within-task variation "
                             "at this size"})
        lo, hi = sizes[0], sizes[-1]
        if (name, lo) in kept and (name, hi) in kept:
            e = sub.combination({(name, hi): 1.0, (name, lo): -1.0}, alpha)
            rows.append({"strategy": name, "size": f"{hi} - {lo}", "effect_log": e["estimate_log"],
                         "ci_low_log": e["ci_low_log"], "ci_high_log": e["ci_high_log"],
                         "p_value": e["p_value"],
                         "note": "largest over smallest: above 1 (log above 0), "
                         "the effect grows with size"})
    out = pd.DataFrame(rows)
    for c in SIZE_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    out["multiplier"] = np.exp(out["effect_log"])
    return out[SIZE_COLUMNS]


ACCELEVAL_COLUMNS = ["strategy", "prevalence", "winner_coverage", "selectivity", "lift",
                     "naive_ratio", "lift_tasks", "acceleval_bundle"]


DOSE_COLUMNS = ["strategy", "kind", "slope_log", "se_log", "ci_low_log", "ci_high_log",
                "multiplier_per_doubling", "p_value", "q_value", "n_users", "n_levels",
                "n_tasks", "low", "high", "estimable", "note"]


def dose_response(data: AnalysisData | pd.DataFrame, fit: EffectsFit | None = None, *,
                  structural: Mapping[str, bool] | None = None, alpha: float = 0.05,
                  min_users: int = 6, min_tasks: int = 2, **fit_kwargs) -> pd.DataFrame:
    """How the speedup of a strategy's users changes with its intensity (``<ID>:intensity``).

    Intensity is the amount of a strategy a solution uses: outputs per thread (PAR-02), tile
    bytes (MEM-02), unroll factor (CMP-04), streams (HST-03). For every strategy with an
    intensity column the model of :func:`fit_effects` gets one more regressor, the centred
    ``log2(intensity)`` of its users (0 for solutions without the strategy, and for users whose
    intensity is unknown), so its coefficient is the change in log speedup per doubling of the
    intensity among users, with task x size and author fixed effects, every estimable strategy
    indicator, and the same task-clustered errors. The strategy's own indicator then stands
    for its effect at the users' mean log2 intensity.

    Returns
    -------
    DataFrame
        Columns :data:`DOSE_COLUMNS`, one row per strategy with an intensity column; ``low`` and
        ``high`` are the smallest and largest intensity among users.

    Examples
    --------
    >>> corpus = simulate_corpus(n_tasks=16, seed=2, doses={"PAR-02": 0.15})
    >>> row = dose_response(corpus.data, structural=corpus.structural).set_index("strategy")
    >>> bool(row.loc["PAR-02", "ci_low_log"] < 0.15 < row.loc["PAR-02", "ci_high_log"])
    True
    """
    from statsmodels.stats.multitest import multipletests

    table = _as_table(data).reset_index(drop=True)
    structural = dict(structural) if structural is not None else load_structural_map()
    fit = fit or fit_effects(table, structural=structural, alpha=alpha, **fit_kwargs)
    strategies = strategy_columns(table.columns)
    author = fit_kwargs.get("author", True)
    fe = _fixed_effects(table, author)
    rows, doses = [], {}
    for sid in strategies:
        col = f"{sid}{_INTENSITY}"
        if col not in table.columns:
            continue
        inten = pd.to_numeric(table[col], errors="coerce")
        users = (table[sid] == 1) & (inten > 0)
        lvl = np.log2(inten.where(users))
        sol = table[users].drop_duplicates(["task", "solution"])
        row = {"strategy": sid, "kind": _kind(structural, sid),
               "n_users": int(len(sol)), "n_levels": int(inten[users].nunique()),
               "n_tasks": int((table[users].groupby("task")[col].nunique() > 1).sum()),
               "low": float(inten[users].min()) if users.any() else np.nan,
               "high": float(inten[users].max()) if users.any() else np.nan,
               "estimable": False, "note": ""}
        if not any(sid in members for members in fit.columns.values()):
            row["note"] = "the strategy itself is not estimable (see stats effects)"
        elif row["n_users"] < min_users:
            row["note"] = f"{row['n_users']} solution(s) with a known intensity (need {min_users})"
        elif row["n_levels"] < 2:
            row["note"] = "every user has the same intensity"
        elif row["n_tasks"] < min_tasks:
            row["note"] = (f"intensity varies among users in {row['n_tasks']} task(s) "
                           f"(need {min_tasks})")
        else:
            doses[sid] = (lvl - lvl[users].mean()).fillna(0.0).to_numpy()
        rows.append(row)
    if doses:
        names = list(fit.columns)
        x = np.column_stack([table[fit.columns[n][0]].to_numpy(dtype=float) for n in names]
                            + list(doses.values()))
        xr = _residualize(fe, x)
        yr = _residualize(fe, np.log(table["speedup"].to_numpy(dtype=float))[:, None])[:, 0]
        res, cov_used = _ols_fwl(yr, xr, pd.factorize(table["task"])[0], fit.cov_type)
        regs = names + [f"{sid}{_INTENSITY}" for sid in doses]
        with_doses = EffectsFit(pd.DataFrame(), pd.Series(np.asarray(res.params), index=regs),
                                pd.DataFrame(np.asarray(res.cov_params()), index=regs,
                                             columns=regs), fit.df_inference, {}, [], res,
                                cov_used)
        for sid in doses:
            est = with_doses.combination({f"{sid}{_INTENSITY}": 1.0}, alpha)
            next(r for r in rows if r["strategy"] == sid).update(
                slope_log=est["estimate_log"], se_log=est["se_log"],
                ci_low_log=est["ci_low_log"], ci_high_log=est["ci_high_log"],
                p_value=est["p_value"], estimable=True,
                note="" if cov_used == fit.cov_type
                else f"{cov_used} covariance: {fit.cov_type} not identified")
    out = pd.DataFrame(rows)
    for c in DOSE_COLUMNS:
        if c not in out.columns:
            out[c] = np.nan
    out["estimable"] = out["estimable"].fillna(False).astype(bool)
    out["multiplier_per_doubling"] = np.exp(out["slope_log"])
    ok = out["p_value"].notna()
    if ok.any():
        out.loc[ok, "q_value"] = multipletests(out.loc[ok, "p_value"], method="fdr_bh")[1]
    return out[DOSE_COLUMNS]


def acceleval_measures(data: AnalysisData | pd.DataFrame, strategies: Sequence[str] | None = None,
                       bundle_threshold: float = 0.6) -> pd.DataFrame:
    """AccelEval's descriptive measures, for comparison with the effects model.

    - ``prevalence``: share of correct solution rows that use the strategy.
    - ``winner_coverage``: share of task x size winners (fastest correct solution) using it.
    - ``selectivity``: winner_coverage / prevalence (> 1: over-represented among winners).
    - ``lift``: within-task LIFT, exp(mean over tasks of [mean log speedup with - without]),
      each task's difference averaged over its sizes; tasks without both groups are skipped.
    - ``naive_ratio``: exp(mean log speedup with - without), pooled over all tasks.
    - ``acceleval_bundle``: Jaccard >= `bundle_threshold` connected component.

    None of these controls for author or for co-occurring strategies.

    Examples
    --------
    >>> t = pd.DataFrame({"task": ["a", "a", "b", "b"], "solution": list("wxyz"), "size": "m",
    ...                   "author": "u", "speedup": [8.0, 2.0, 3.0, 3.0], "MEM-02": [1, 0, 1, 0]})
    >>> m = acceleval_measures(t).iloc[0]
    >>> round(float(m.lift), 6), float(m.winner_coverage), float(m.selectivity)
    (2.0, 1.0, 2.0)
    """
    table = _as_table(data)
    strategies = list(strategies) if strategies is not None else strategy_columns(table.columns)
    logy = np.log(table["speedup"].astype(float))
    winners = table.loc[table.groupby(["task", "size"])["speedup"].idxmax()]
    bundles = find_bundles(table, [s for s in strategies if table[s].sum() > 0], bundle_threshold)
    bundle_of = {s: "+".join(b) for b in bundles for s in b}
    rows = []
    for sid in strategies:
        has = table[sid] == 1
        prevalence = float(has.mean())
        coverage = float((winners[sid] == 1).mean())
        means = table.assign(_y=logy, _has=has).groupby(["task", "size", "_has"])["_y"].mean()
        cell = means.unstack("_has")
        diffs = (cell[True] - cell[False]).dropna() if {True, False} <= set(cell.columns) \
            else pd.Series(dtype=float)
        per_task = diffs.groupby(level=0).mean()
        rows.append({
            "strategy": sid, "prevalence": prevalence, "winner_coverage": coverage,
            "selectivity": coverage / prevalence if prevalence > 0 else np.nan,
            "lift": float(np.exp(per_task.mean())) if len(per_task) else np.nan,
            "naive_ratio": float(np.exp(logy[has].mean() - logy[~has].mean()))
            if has.any() and (~has).any() else np.nan,
            "lift_tasks": int(len(per_task)), "acceleval_bundle": bundle_of.get(sid, ""),
        })
    return pd.DataFrame(rows, columns=ACCELEVAL_COLUMNS)


def compare_methods(effects: pd.DataFrame, acceleval: pd.DataFrame) -> pd.DataFrame:
    """Our multiplier and CI beside AccelEval's LIFT and selectivity, with where they disagree."""
    ours = effects[effects["kind"] != "bundle"][
        ["strategy", "kind", "multiplier", "multiplier_low", "multiplier_high", "q_value",
         "bundle", "estimable"]]
    if ours.empty or acceleval.empty:
        return pd.DataFrame(columns=[*ours.columns, *acceleval.columns[1:], "agreement"])
    out = ours.merge(acceleval, on="strategy", how="outer")

    def verdict(r):
        if not r["estimable"] or pd.isna(r["multiplier"]):
            return "ours not estimable"
        if pd.isna(r["lift"]):
            return "no LIFT (no task has both)"
        notes = []
        if not (r["multiplier_low"] <= r["lift"] <= r["multiplier_high"]):
            notes.append("LIFT outside our CI")
        if (r["lift"] > 1) != (r["multiplier"] > 1):
            notes.append("opposite direction")
        return "; ".join(notes) or "agree"

    out["agreement"] = out.apply(verdict, axis=1)
    return out


# --------------------------------------------------------------------------------------------
# Leaderboard
# --------------------------------------------------------------------------------------------

LEADERBOARD_COLUMNS = ["author", "size", "n", "passed", "pass_rate", "gm_speedup", "par_gm",
                       "fast_p", "p", "pass_at_k", "k", "n_tasks"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k).

    Examples
    --------
    >>> round(pass_at_k(10, 3, 1), 6), round(pass_at_k(10, 3, 5), 4), pass_at_k(4, 0, 2)
    (0.3, 0.9167, 0.0)
    >>> pass_at_k(3, 3, 2), pass_at_k(2, 1, 3)
    (1.0, nan)
    """
    if k > n:
        return float("nan")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def leaderboard(data: AnalysisData | pd.DataFrame, *, by: str = "author", p: float = 1.0,
                k: int = 1, best: Mapping[tuple[str, str], float] | None = None) -> pd.DataFrame:
    """Per author and size: pass count, geometric-mean speedup, PAR-GM, fast_p and pass@k.

    Every solution row is an attempt (N = ``n``); a row passes when it is correct, has a
    positive speedup and no cheating flag.

    - ``gm_speedup``: geometric mean speedup over passed rows only.
    - ``par_gm``: geometric mean over all N of speedup / best(task, size), where a failure
      scores 1 / best (as if the CPU reference had run: speedup 1). ``best`` is a fixed
      per-(task, size) best speedup; by default the best correct speedup in the data.
    - ``fast_p``: share of all N that passed with speedup > p.
    - ``pass_at_k``: unbiased pass@k per task (n samples, c correct), averaged over tasks.

    Parameters
    ----------
    data : AnalysisData or DataFrame
        With a DataFrame, a ``passed`` column (or ``correct``) marks passing rows.

    Examples
    --------
    >>> rows = pd.DataFrame({"task": ["a", "a", "b", "b"], "solution": list("wxyz"),
    ...     "size": "m", "author": ["u", "v", "u", "v"], "speedup": [4.0, 2.0, 9.0, None],
    ...     "passed": [True, True, True, False]})
    >>> lb = leaderboard(rows, p=3.0).set_index("author")
    >>> [round(float(v), 6) for v in lb.loc["u", ["passed", "gm_speedup", "par_gm", "fast_p"]]]
    [2.0, 6.0, 1.0, 1.0]
    >>> round(float(lb.loc["v", "par_gm"]), 4), float(lb.loc["v", "fast_p"])
    (0.2357, 0.0)
    """
    rows = data.all_rows if isinstance(data, AnalysisData) else data.copy()
    if "passed" not in rows.columns:
        rows["passed"] = rows.get("correct", True)
    if "size" not in rows.columns:
        rows["size"] = "all"
    if by not in rows.columns:
        rows[by] = "unknown"
    rows["passed"] = rows["passed"].astype(bool) & (pd.to_numeric(rows["speedup"],
                                                                  errors="coerce") > 0)
    rows["speedup"] = pd.to_numeric(rows["speedup"], errors="coerce")
    if best is None:
        best = rows[rows["passed"]].groupby(["task", "size"])["speedup"].max().to_dict()
    out = []
    for (who, size), grp in rows.groupby([by, "size"], sort=True):
        passed = grp[grp["passed"]]
        best_v = grp.apply(lambda r: best.get((r["task"], r["size"]), np.nan), axis=1)
        score = np.where(grp["passed"], grp["speedup"] / best_v, 1.0 / best_v)
        per_task = grp.groupby("task")["passed"].agg(["size", "sum"])
        pk = [pass_at_k(int(n), int(c), k) for n, c in per_task.itertuples(index=False)]
        pk = [v for v in pk if not math.isnan(v)]
        out.append({
            "author": who, "size": size, "n": len(grp), "passed": int(len(passed)),
            "pass_rate": len(passed) / len(grp),
            "gm_speedup": float(np.exp(np.log(passed["speedup"]).mean())) if len(passed)
            else np.nan,
            "par_gm": float(np.exp(np.nanmean(np.log(score)))) if np.isfinite(score).any()
            else np.nan,
            "fast_p": float(((grp["passed"]) & (grp["speedup"] > p)).mean()), "p": p,
            "pass_at_k": float(np.mean(pk)) if pk else np.nan, "k": k,
            "n_tasks": int(grp["task"].nunique()),
        })
    res = pd.DataFrame(out, columns=LEADERBOARD_COLUMNS)
    order = {s: i for i, s in enumerate(_size_rank(rows))}
    res = res.assign(_size=res["size"].map(order))
    return (res.sort_values(["_size", "par_gm"], ascending=[True, False])
            .drop(columns="_size").reset_index(drop=True))


# --------------------------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------------------------

# Planted per-strategy effects on log speedup (simulation default): structural larger than micro.
DEFAULT_EFFECTS = {
    "MEM-01": 0.35, "MEM-02": 0.45, "CMP-01": 0.40, "PAR-02": 0.25, "PAR-04": 0.15,
    "LBL-02": 0.30, "MEM-04": 0.05, "MEM-06": 0.10, "CMP-04": 0.05, "CMP-05": 0.00,
    "PAR-03": 0.08, "PAR-11": -0.05,
}
# Base probability that a solution uses each strategy (before author skill shifts it).
_BASE_USE = {
    "MEM-01": 0.55, "MEM-02": 0.40, "CMP-01": 0.30, "PAR-02": 0.35, "PAR-04": 0.40,
    "LBL-02": 0.25, "MEM-04": 0.50, "MEM-06": 0.30, "CMP-04": 0.45, "CMP-05": 0.35,
    "PAR-03": 0.30, "PAR-11": 0.25,
}
_SIM_TASKS = [
    "black_scholes", "bellman_ford", "dbscan", "spmv_csr", "histogram", "nbody", "stencil_2d",
    "bfs", "radix_sort", "prefix_sum", "matmul", "conv2d", "kmeans", "floyd_warshall",
    "smith_waterman", "pagerank", "reduction", "transpose", "jacobi_2d", "monte_carlo_pi",
    "connected_components", "sgemv", "bitonic_sort", "lu_decomposition", "fft_radix2",
    "triangle_count", "knn", "lbm_d2q9", "md_lennard_jones", "sparse_triangular_solve",
]


@dataclass
class SimulatedCorpus:
    """A simulated corpus with its planted truth.

    Attributes
    ----------
    data : AnalysisData
    effects : dict
        Planted effect on log speedup per strategy (average over sizes).
    structural : dict
        Structural flag per strategy.
    bundles : list of list of str
        Planted bundles.
    skill : dict
        Planted author skill (log speedup shift).
    """

    data: AnalysisData
    effects: dict[str, float]
    structural: dict[str, bool]
    bundles: list[list[str]]
    skill: dict[str, float]

    @property
    def frame(self) -> pd.DataFrame:
        """All rows as a flat table (the CSV format of ``--data``)."""
        rows = self.data.all_rows.drop(columns=["passed", "cheating_flags"], errors="ignore")
        return rows.sort_values(["task", "solution", "size"]).reset_index(drop=True)


def simulate_corpus(n_tasks: int = 24, n_authors: int = 6, samples: int = 2,
                    sizes: Sequence[str] = ("small", "medium", "large"), *, seed: int = 0,
                    effects: Mapping[str, float] | None = None,
                    structural: Mapping[str, bool] | None = None,
                    skill_sd: float = 0.5, skill_on_use: float = 1.2,
                    bundle: tuple[str, str] | None = ("MEM-02", "PAR-04"),
                    bundle_break: float = 0.04, size_growth: float = 0.0,
                    task_effect_sd: float = 0.05, solution_sd: float = 0.25,
                    noise_sd: float = 0.12, fail_rate: float = 0.15,
                    cheat_rate: float = 0.02,
                    doses: Mapping[str, float] | None = None) -> SimulatedCorpus:
    """Simulate solutions with known strategy effects, confounded by author skill.

    Each of `n_authors` authors writes `samples` solutions per task. An author's skill both
    raises log speedup directly and raises the odds of using every strategy (confounding:
    a with/without comparison credits strategies with the author's skill). The `bundle`
    pair co-occurs except with probability `bundle_break`. Strategy effects on log speedup
    are ``effects[j] * (1 + size_growth * r)`` with r the centred size rank, plus a per-task
    deviation with sd `task_effect_sd`; tasks have different base speedups and size curves.
    For each strategy in `doses`, users draw an intensity from 1, 2, 4, 8, 16 (more skilled
    authors lean to higher ones) written to ``<ID>:intensity``, and gain ``doses[ID]`` in log
    speedup per doubling above 4 (so ``effects[ID]`` is the effect at intensity 4).
    Rows fail (not correct) at a rate that falls with skill; a few carry a cheating flag with
    an inflated speedup.

    Returns
    -------
    SimulatedCorpus

    Examples
    --------
    >>> c = simulate_corpus(n_tasks=3, n_authors=2, samples=1, seed=0)
    >>> sorted(c.data.table["task"].unique()), c.bundles
    (['bellman_ford', 'black_scholes', 'dbscan'], [['MEM-02', 'PAR-04']])
    """
    rng = np.random.default_rng(seed)
    effects = dict(effects) if effects is not None else dict(DEFAULT_EFFECTS)
    ids = sorted(effects, key=_id_key)
    smap = dict(structural) if structural is not None else \
        {**{s: True for s in _STRUCTURAL_V1}, **{s: False for s in _MICRO_V1}}
    smap = {s: bool(smap.get(s, False)) for s in ids}
    names = [_SIM_TASKS[i] if i < len(_SIM_TASKS) else f"task_{i:03d}" for i in range(n_tasks)]
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    authors = [f"sim-model-{letters[a % 26]}{a // 26 or ''}" for a in range(n_authors)]
    skill = dict(zip(authors, np.sort(rng.normal(0.0, skill_sd, n_authors))[::-1], strict=True))
    r = np.arange(len(sizes)) - (len(sizes) - 1) / 2
    rows = []
    for task in names:
        base = rng.normal(1.5, 0.8)
        size_curve = np.sort(rng.normal(0.6, 0.4, len(sizes))).cumsum() - 0.6
        cpu_base = 10 ** rng.uniform(-0.5, 1.0)
        task_dev = {s: rng.normal(0.0, task_effect_sd) for s in ids}
        for author in authors:
            z = skill[author]
            for k in range(samples):
                use = {}
                for s in ids:
                    p0 = _BASE_USE.get(s, 0.3)
                    logit = math.log(p0 / (1 - p0)) + skill_on_use * z / max(skill_sd, 1e-9)
                    use[s] = int(rng.random() < 1 / (1 + math.exp(-logit)))
                if bundle and bundle[0] in use and bundle[1] in use:
                    use[bundle[1]] = use[bundle[0]] if rng.random() >= bundle_break \
                        else 1 - use[bundle[0]]
                level = {}
                for s in doses or {}:  # drawn only when asked: other corpora stay as they were
                    shift = 0.5 * z / max(skill_sd, 1e-9)
                    level[s] = int(np.clip(round(rng.normal(2.0 + shift, 1.2)), 0, 4))
                sol_u = rng.normal(0.0, solution_sd)
                correct = rng.random() < 1 / (1 + math.exp(-(math.log(1 / fail_rate - 1) + z)))
                cheat = correct and rng.random() < cheat_rate
                sol_name = f"{task}/{author}/sample_{k}.cu"
                for i, size in enumerate(sizes):
                    gain = sum(use[s] * (effects[s] * (1 + size_growth * r[i]) + task_dev[s])
                               for s in ids)
                    gain += sum(use.get(s, 0) * d * (level[s] - 2) for s, d in (doses or {}).items())
                    logy = base + size_curve[i] + z + gain + sol_u + rng.normal(0.0, noise_sd)
                    speed = math.exp(logy + (math.log(50) if cheat else 0.0))
                    rows.append({
                        "task": task, "solution": sol_name, "size": size, "author": author,
                        "speedup": round(speed, 6) if correct else np.nan,
                        "correct": bool(correct),
                        "cpu_ms": round(cpu_base * 10 ** (1.2 * i), 4),
                        "audit_flags": "cross-call-state" if cheat else "", **use,
                        **{f"{s}{_INTENSITY}": (2 ** level[s] if use.get(s) else np.nan)
                           for s in level},
                    })
    df = pd.DataFrame(rows)
    data = prepare_table(df, "<simulated>")
    planted = [list(bundle)] if bundle and all(b in ids for b in bundle) else []
    return SimulatedCorpus(data, effects, smap, planted, {a: float(v) for a, v in skill.items()})
