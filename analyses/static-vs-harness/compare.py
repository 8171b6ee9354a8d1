"""Static labels against what the harness saw, over the solutions of the committed H200 store.

Usage (from the repository root, no GPU):

    python analyses/static-vs-harness/compare.py [--store analyses/h200] > analyses/static-vs-harness/results.md

For every solution in the store: the tagger's labels from the code alone, and the IDs that the
harness's runs support (``strategylens.tag.harness_findings``: audit flags for AP-04 and
AP-05, bytes copied back per call for AP-02 and HST-04). Prints a Markdown table per ID (both,
code only, runs only) and every disagreement.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from strategylens import tag  # noqa: E402
from strategylens.store import read_results  # noqa: E402

IDS = ["AP-02", "AP-04", "AP-05", "HST-04"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default=str(ROOT / "analyses" / "h200"))
    args = ap.parse_args()
    rows = read_results(args.store).to_dict("records")
    solutions = sorted({r["solution"] for r in rows})
    results = {r.path: r for r in tag.tag_paths([ROOT / s for s in solutions], jobs=1,
                                                   cache=False)}
    counts = {sid: {"both": 0, "code only": 0, "runs only": 0} for sid in IDS}
    diffs = []
    for sol in solutions:
        res = results[str(ROOT / sol)]
        code = {lb.id for lb in res.labels}
        found = tag.harness_findings(tag.rows_for(ROOT / sol, rows))
        runs = {sid for sid, *_ in found}
        for sid in IDS:
            where = ("both" if sid in code and sid in runs else "code only" if sid in code
                     else "runs only" if sid in runs else None)
            if where:
                counts[sid][where] += 1
            if where in ("code only", "runs only"):
                note = next((n for s, _, n, _ in found if s == sid), "")
                diffs.append(f"| `{sol}` | {sid} | {where} | {note[:160]} |")
    print(f"# Static labels against the harness ({len(solutions)} solutions, "
          f"store `{Path(args.store).relative_to(ROOT) if Path(args.store).is_relative_to(ROOT) else args.store}`)\n")
    print("| ID | both | code only | runs only |\n|---|---|---|---|")
    for sid in IDS:
        c = counts[sid]
        print(f"| {sid} | {c['both']} | {c['code only']} | {c['runs only']} |")
    print("\n## Disagreements\n\n| solution | ID | seen by | harness note |\n|---|---|---|---|")
    print("\n".join(diffs) or "| (none) | | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
