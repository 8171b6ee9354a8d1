"""AccelEval run folders: finding their samples, and reading their ``eval_results_*.json``
beside strategylens's results for the same samples.

A run folder is ``runs/<model>_l<L>[s2|s2c]_<YYYYMMDD_HHMM>/`` (a model id with ``/`` nests
folders: ``runs/<org>/<model>_l3_...``), holding ``<task>/sample_<k>.cu`` and
``<task>/sample_<k>_meta.json`` (``model_id, provider, task_id, level, sample_id, ...``) and the
evaluations AccelEval wrote, ``eval_results_<YYYYMMDD_HHMMSS>.json``, keyed
``<task>_sample_<k>``. ``s2`` marks the strategy-transfer stage, ``s2c`` its generic control;
a plain run is stage ``s1``. Both `strategylens run` and `strategylens tag` find samples with
:func:`samples_by_path`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

RUN_NAME = re.compile(r"^(?P<model>.+?)_l(?P<level>\d+)(?P<stage>s2c|s2)?"
                      r"(?P<tag>(?:_[A-Za-z][A-Za-z0-9]*)*)_(?P<stamp>\d{8}_\d{4,6})$")
SAMPLE_FILE = re.compile(r"^sample_(\d+)\.cu$")
RESULTS_FILE = re.compile(r"^eval_results_.*\.json$")


class RunFolderError(ValueError):
    """A run folder's file is unreadable; the message names it."""


def parse_run_name(name: str) -> dict | None:
    """``{model, level, stage, stamp}`` of a run folder name, or None.

    Examples
    --------
    >>> parse_run_name("gpt-5_l3s2c_20260101_1200")["stage"]
    's2c'
    >>> parse_run_name("claude_l2_20251231_0900")["level"]
    2
    >>> parse_run_name("not-a-run") is None
    True
    """
    m = RUN_NAME.match(name)
    if not m:
        return None
    return {"model": m.group("model"), "level": int(m.group("level")),
            "stage": m.group("stage") or "s1", "stamp": m.group("stamp"),
            "tag": m.group("tag").lstrip("_") or None}


@dataclass(frozen=True)
class Sample:
    """One model sample of a run folder. ``model`` is the author: the meta's ``model_id``, else
    the model of the run folder's name (with any folders above it inside ``runs/``)."""

    path: Path
    task: str
    sample: int
    run: str
    model: str
    level: int | None
    stage: str
    meta: dict = field(default_factory=dict, compare=False)

    def as_row(self) -> dict:
        return {"author": self.model, "run": self.run, "level": self.level, "stage": self.stage,
                "sample": self.sample, "sample_task": self.task}


def _nested_model(run_dir: Path, model: str) -> str:
    """The model id of a run folder nested under ``runs/<org>/...``."""
    parts = []
    for parent in run_dir.parents:
        if parent.name == "runs":
            return "/".join([*reversed(parts), model])
        parts.append(parent.name)
    return model


def sample_of(path: Path | str) -> Sample | None:
    """The run-folder sample a ``sample_<k>.cu`` is, or None when it lies in no run folder
    (its meta file, when present, decides; a meta that is not JSON is ignored)."""
    p = Path(path)
    m = SAMPLE_FILE.match(p.name)
    if not m:
        return None
    run_dir = p.parent.parent
    info = parse_run_name(run_dir.name)
    meta: dict = {}
    meta_file = p.with_name(f"sample_{m.group(1)}_meta.json")
    if meta_file.is_file():
        try:
            loaded = json.loads(meta_file.read_text())
            meta = loaded if isinstance(loaded, dict) else {}
        except (OSError, json.JSONDecodeError):
            meta = {}
    if info is None and not meta:
        return None
    model = str(meta.get("model_id") or (_nested_model(run_dir, info["model"]) if info else
                                         run_dir.name))
    level = meta.get("level", info["level"] if info else None)
    return Sample(p, p.parent.name, int(m.group(1)), run_dir.name, model,
                  int(level) if isinstance(level, (int, str)) and str(level).isdigit() else None,
                  info["stage"] if info else "s1", meta)


def samples_by_path(files) -> dict[str, Sample]:
    """The run-folder samples among ``files``, by resolved path."""
    out = {}
    for f in files:
        s = sample_of(f)
        if s is not None:
            out[str(Path(f).resolve())] = s
    return out


# --------------------------------------------------------------------------- eval_results

def eval_files(path: Path) -> list[Path]:
    """The ``eval_results_*.json`` of a run folder (oldest first), or the file itself."""
    path = Path(path)
    if path.is_file():
        return [path]
    return sorted(p for p in path.glob("eval_results_*.json") if RESULTS_FILE.match(p.name))


def read_eval_results(path: Path | str) -> list[dict]:
    """One row per sample AccelEval evaluated, from a run folder's eval_results files (a later
    file replaces an earlier one's entry for the same sample) or from one file.

    Row: ``task, sample, run, eval_file, path`` (the sample beside the file), ``compiled,
    correct, correct_by_size, size, e2e_ms_mean, e2e_ms_min, e2e_ms_max, trials,
    cpu_baseline_ms, speedup_e2e, speedup_kernel, kernel_ms, hardware, error``.

    Raises
    ------
    RunFolderError
        When a file is not JSON or not an object keyed ``<task>_sample_<k>``.
    """
    path = Path(path)
    files = eval_files(path)
    if not files:
        raise RunFolderError(f"{path}: no eval_results_*.json")
    rows: dict[tuple[str, int], dict] = {}
    for f in files:
        try:
            doc = json.loads(f.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise RunFolderError(f"{f}: not readable JSON: {exc}") from exc
        if not isinstance(doc, dict):
            raise RunFolderError(f"{f}: expected an object keyed <task>_sample_<k>")
        for key, entry in doc.items():
            task, sep, k = key.rpartition("_sample_")
            if not sep or not k.isdigit() or not isinstance(entry, dict):
                raise RunFolderError(f"{f}: entry {key!r} is not <task>_sample_<k> with an "
                                     "object")
            bench = entry.get("benchmark") or {}
            e2e = bench.get("e2e_time_ms") or {}
            detail = entry.get("correctness_detail") or {}
            size = bench.get("size_name") or (next(iter(detail)) if detail else None)
            rows[(task, int(k))] = {
                "task": task, "sample": int(k), "run": f.parent.name, "eval_file": f.name,
                "path": str((f.parent / task / f"sample_{k}.cu").resolve()),
                "compiled": bool(entry.get("compiled")), "correct": bool(entry.get("correct")),
                "correct_by_size": detail, "size": size,
                "e2e_ms_mean": _ms(e2e.get("mean")), "e2e_ms_min": _ms(e2e.get("min")),
                "e2e_ms_max": _ms(e2e.get("max")), "trials": e2e.get("num_trials"),
                "cpu_baseline_ms": _ms(bench.get("cpu_baseline_ms")),
                "speedup_e2e": _ms(bench.get("speedup_e2e")),
                "speedup_kernel": _ms(bench.get("speedup_kernel")),
                "kernel_ms": _ms(bench.get("kernel_time_ms")), "hardware": bench.get("hardware"),
                "error": str(entry.get("error") or entry.get("compile_error") or "")[:500]}
    return [rows[k] for k in sorted(rows)]


def _ms(v) -> float | None:
    """AccelEval writes -1 for "not measured"."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) and f >= 0 else None


def side_by_side(ae_rows: list[dict], sl_rows: list[dict]) -> list[dict]:
    """AccelEval's figures beside strategylens's for the same sample and size.

    ``sl_rows`` are results rows (``solution`` resolvable to the sample path). Columns: both
    verdicts and speedups (``ae_*``, ``sl_*``), strategylens's time against AccelEval's stored
    CPU time (``sl_speedup_on_ae_cpu``), the ratio of the GPU times, and ``disagreement``: what
    differs, in words (empty when they agree).
    """
    from strategylens.resources import SOURCE_ROOT  # noqa: PLC0415

    def key(solution: str) -> str:
        p = Path(solution)
        return str((p if p.is_absolute() else SOURCE_ROOT / p).resolve())

    sl = {(key(r["solution"]), r["size"]): r for r in sl_rows}
    out = []
    for a in ae_rows:
        s = sl.get((a["path"], a["size"]))
        row = {"task": a["task"], "sample": a["sample"], "run": a["run"], "size": a["size"],
               "ae_compiled": a["compiled"], "ae_correct": a["correct"],
               "ae_e2e_ms": a["e2e_ms_mean"], "ae_trials": a["trials"],
               "ae_cpu_ms": a["cpu_baseline_ms"], "ae_speedup": a["speedup_e2e"],
               "sl_status": None, "sl_correct": None, "sl_e2e_ms": None, "sl_cpu_ms": None,
               "sl_speedup": None, "sl_flags": None, "sl_speedup_on_ae_cpu": None,
               "e2e_ratio_sl_over_ae": None}
        if s is not None:
            flags = list(s.get("audit_flags") or [])
            med = s.get("e2e_ms_median")
            row.update(sl_status=s.get("status"), sl_correct=bool(s.get("correct")),
                       sl_e2e_ms=med, sl_cpu_ms=s.get("cpu_ms"), sl_speedup=s.get("speedup"),
                       sl_flags=";".join(flags),
                       sl_speedup_on_ae_cpu=(a["cpu_baseline_ms"] / med)
                       if (a["cpu_baseline_ms"] and med) else None,
                       e2e_ratio_sl_over_ae=(med / a["e2e_ms_mean"])
                       if (med and a["e2e_ms_mean"]) else None)
        row["disagreement"] = _disagreement(a, s)
        out.append(row)
    return out


def _disagreement(a: dict, s: dict | None) -> str:
    if s is None:
        return "not run by strategylens at this size"
    notes = []
    flags = list(s.get("audit_flags") or [])
    sl_ok = bool(s.get("correct"))
    if a["correct"] and not sl_ok:
        why = s.get("status") if s.get("status") != "ok" else "wrong answer"
        notes.append(f"AccelEval passes, strategylens fails ({why})")
    elif sl_ok and not a["correct"]:
        notes.append("strategylens passes, AccelEval fails"
                     + (f" ({a['error'][:120]})" if a["error"] else ""))
    if flags:
        notes.append(f"strategylens audit: {', '.join(flags)}")
    med, mean = s.get("e2e_ms_median"), a["e2e_ms_mean"]
    if med and mean and (med / mean > 1.5 or mean / med > 1.5):
        notes.append(f"GPU time differs {med / mean:.2f}x (strategylens median / AccelEval "
                     "mean)")
    return "; ".join(notes)
