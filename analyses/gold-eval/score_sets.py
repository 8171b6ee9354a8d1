"""Tagger agreement on every gold set at once: the public and held-out sets of ``sets/`` (their
files fetched), the fixture sets of ``tests/fixtures/gold*`` and the corpus (``tasks/*``), with
per-set and pooled precision, recall and macro-F1. A check after a detector change that no set
lost; it writes nothing unless ``--out`` is given.

    .venv/bin/python analyses/gold-eval/score_sets.py                 # every set
    .venv/bin/python analyses/gold-eval/score_sets.py heldout-domains corpus --out /tmp/now.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from evaluate import evaluate  # noqa: E402  (this folder)

from strategylens import REPO_ROOT  # noqa: E402
from strategylens.catalog import load_catalog  # noqa: E402
from strategylens.detectors import load_detectors  # noqa: E402

SETS = REPO_ROOT / "analyses" / "gold-eval" / "sets"


def groups() -> dict[str, list[Path]]:
    """Set name -> the folders scored together under it."""
    out = {p.name: [p] for p in sorted(SETS.iterdir()) if (p / "labels.yaml").is_file()}
    for p in sorted((REPO_ROOT / "tests" / "fixtures").glob("gold*")):
        if (p / "labels.yaml").is_file():
            out[p.name] = [p]
    out["corpus"] = sorted(p for p in (REPO_ROOT / "tasks").iterdir() if (p / "labels.yaml").is_file())
    return out


def macro_f1(per_id: dict) -> float | None:
    """Mean F1 over the IDs that occur in the labels or the tags.

    >>> macro_f1({"A": {"tp": 1, "fp": 0, "fn": 1}, "B": {"tp": 0, "fp": 0, "fn": 0},
    ...           "C": {"tp": 0, "fp": 1, "fn": 0}})
    0.333
    """
    f1 = [2 * v["tp"] / (2 * v["tp"] + v["fp"] + v["fn"]) for v in per_id.values()
          if v["tp"] + v["fp"] + v["fn"]]
    return round(sum(f1) / len(f1), 3) if f1 else None


def score(folders: list[Path], catalog=None, detectors=None) -> dict:
    per_id: dict[str, dict[str, int]] = {}
    for folder in folders:
        res = evaluate(folder, catalog=catalog, detectors=detectors)
        for sid, v in res["per_id"].items():
            row = per_id.setdefault(sid, {"tp": 0, "fp": 0, "fn": 0})
            for k in row:
                row[k] += v.get(k, 0)
    tp, fp, fn = (sum(v[k] for v in per_id.values()) for k in ("tp", "fp", "fn"))
    return {"tp": tp, "fp": fp, "fn": fn,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None,
            "macro_f1": macro_f1(per_id), "per_id": per_id}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", help="set names (default: all)")
    ap.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = ap.parse_args()
    all_sets = groups()
    names = args.sets or list(all_sets)
    unknown = [n for n in names if n not in all_sets]
    if unknown:
        sys.exit(f"error: unknown set(s) {', '.join(unknown)}; known: {', '.join(all_sets)}")
    catalog = load_catalog()
    detectors = load_detectors(catalog)
    out = {}
    for name in names:
        out[name] = r = score(all_sets[name], catalog, detectors)
        print(f"{name:22s} P {r['precision']}  R {r['recall']}  macro-F1 {r['macro_f1']}  "
              f"({r['tp']} / {r['fp']} / {r['fn']})", flush=True)
    for label, pick in (("held-out", lambda n: n.startswith("heldout-")),
                        ("public", lambda n: n.startswith(("heldout-", "public-")))):
        rows = [out[n] for n in out if pick(n)]
        if len(rows) > 1:
            tp, fp, fn = (sum(r[k] for r in rows) for k in ("tp", "fp", "fn"))
            print(f"pooled {label} ({len(rows)} sets): P {tp / (tp + fp):.3f}  R {tp / (tp + fn):.3f}  "
                  f"({tp} / {fp} / {fn})")
    if args.out:
        args.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
