"""Cohen's kappa between the corpus's first labellers (tasks/*/labels.yaml: L1-L4) and the
independent second labeller (tasks/*/labels-second.yaml: L5, a 4-per-task sample), pooled and per
task, over every catalog ID (unsure IDs of either labeller left out).

    .venv/bin/python analyses/gold-eval/corpus/agreement.py     # writes agreement.json and .md
"""

from __future__ import annotations

import json
from pathlib import Path

from strategylens.catalog import load_catalog
from strategylens.labels.agree import disagreements, pairwise
from strategylens.labels.records import LabelSet, read_gold

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent


def main() -> None:
    ids = load_catalog().ids
    first, second = LabelSet("first"), LabelSet("second")
    per_task = {}
    for t in sorted((ROOT / "tasks").iterdir()):
        if not (t / "labels-second.yaml").exists():
            continue
        fa, fb = read_gold(t / "labels.yaml"), read_gold(t / "labels-second.yaml")
        for p, fl in fb.files.items():
            second.add(fl)
            first.add(fa.files[p])
        row = pairwise(LabelSet("a", {p: fa.files[p] for p in fb.files}), fb, ids, seed=1)
        per_task[t.name] = row.set_index("id").loc["all"].to_dict()
    pooled = pairwise(first, second, ids, seed=1).set_index("id")
    dis = disagreements(first, second, ids)
    out = {"files": int(pooled.loc["all", "files"]),
           "pooled": pooled.loc["all"].to_dict(),
           "per_task": per_task,
           "per_id": {i: pooled.loc[i].to_dict() for i in pooled.index if i != "all"},
           "disagreements": [dict(d, path=str(Path(d["path"]).relative_to(ROOT))) for d in dis]}
    (HERE / "agreement.json").write_text(json.dumps(out, indent=1, default=float) + "\n")
    p = out["pooled"]
    lines = ["# Corpus gold labels: first labellers vs an independent second labeller", "",
             f"{out['files']} files (4 per task), every catalog ID: Cohen's kappa "
             f"**{p['kappa']:.3f}** (95% file-bootstrap interval {p['kappa_lo']:.3f}-"
             f"{p['kappa_hi']:.3f}); {p['both']:.0f} labels both gave, {p['only_a']:.0f} only the "
             f"first, {p['only_b']:.0f} only the second.", "",
             "| task | files | kappa | only first | only second |", "|---|---|---|---|---|"]
    for t, r in per_task.items():
        lines.append(f"| {t} | {r['files']:.0f} | {r['kappa']:.3f} | {r['only_a']:.0f} | {r['only_b']:.0f} |")
    (HERE / "agreement.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
