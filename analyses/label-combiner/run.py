"""The label combiner on every gold set, under leave-one-task-out cross-validation.

    .venv/bin/python analyses/label-combiner/run.py

Sources (the raters that exist here; no live LLM is reachable from this machine):
- ``detectors``: the tagger's labels *at first contact* with each set (from
  ``analyses/gold-eval/first-contact-examples-*.json``, recorded before any detector was changed
  for that set), so the figures are not inflated by tuning; sets without a recorded first
  contact are left out;
- ``substring``: AccelEval's keyword rules (``strategylens tag --detectors substring``), never
  tuned on these sets;
- second labellers (``labels-second.yaml``), scored alone on the files they labelled.
Writes ``results.json`` and ``results.md`` beside this script.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

from strategylens.labels import combine
from strategylens.labels.records import FileLabels, Label, LabelSet, read_gold, read_tag_jsonl

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FIXTURES = ROOT / "tests" / "fixtures"
FIRST_CONTACT = ROOT / "analyses" / "gold-eval"


def first_contact() -> dict[str, LabelSet]:
    """Set name -> the detectors' first-contact labels of its files."""
    out = {}
    for f in sorted(FIRST_CONTACT.glob("first-contact-examples-*.json")):
        d = json.loads(f.read_text())
        s = LabelSet("detectors")
        for ex in d["examples"]:
            path = str(FIXTURES / ex["file"])
            fl = s.files.get(path) or FileLabels(path)
            s.add(fl)
            fl.labels[ex["id"]] = Label(ex["id"], (), float(ex["confidence"]))
        out[d["set"]] = s
    return out


def tag(cmd_extra: list[str], folders: list[Path], rater: str) -> LabelSet:
    exe = Path(sys.executable).with_name("strategylens")
    res = subprocess.run([str(exe), "tag", *map(str, folders), "--format", "jsonl", "--no-cache",
                          *cmd_extra], capture_output=True, text=True, check=False)
    tmp = HERE / f".{rater}.jsonl"
    tmp.write_text(res.stdout)
    try:
        return read_tag_jsonl(tmp, rater)
    finally:
        tmp.unlink()


def main() -> None:
    from strategylens.catalog import load_catalog
    from strategylens.detectors import load_detectors

    catalog = load_catalog()
    ids, covered = catalog.ids, set(load_detectors(catalog))
    fc = first_contact()
    gold, folders, det = [], [], LabelSet("detectors")
    for name, s in sorted(fc.items()):
        folder = FIXTURES / name
        g = read_gold(folder / "labels.yaml")
        for path in g.files:  # a file with no first-contact label was tagged with none
            det.files.setdefault(path, s.files.get(path) or FileLabels(path))
        gold.append(g)
        folders.append(folder)
    sources = {"detectors": det,
               "substring": tag(["--detectors", "substring"], folders, "substring")}
    solo = {}
    for folder in folders:
        second = folder / "labels-second.yaml"
        if second.exists():
            solo.setdefault("second-labeller", LabelSet("second-labeller")).files.update(
                read_gold(second).files)
    frame = combine.evaluate(gold, sources, ids, covered, solo)
    summary = []
    for src in frame["source"].unique():
        row = frame[(frame["source"] == src) & (frame["id"] == "all")].iloc[0].to_dict()
        row["macro_f1"] = combine.macro_f1(frame, src)
        summary.append({k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()})
    n_files = sum(len(g.files) for g in gold)
    ctx = {"utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
           "sets": sorted(fc), "files": n_files,
           "tasks": len({fl.task for g in gold for fl in g.files.values()})}
    (HERE / "results.json").write_text(json.dumps(
        {"context": ctx, "summary": summary,
         "per_id": json.loads(frame.to_json(orient="records"))}, indent=1) + "\n")
    lines = ["# Label combiner on the gold sets (leave one task out)", "",
             f"{n_files} files from {', '.join(ctx['sets'])} ({ctx['tasks']} tasks); {ctx['utc']}.",
             "`detectors` are the first-contact tags; `second-labeller` is scored alone on the "
             "files it labelled (sets a, b, c). No live LLM was reachable here.", "",
             "| source | tp | fp | fn | precision | recall | F1 (micro) | macro-F1 |",
             "|---|---|---|---|---|---|---|---|"]
    for r in summary:
        lines.append(f"| {r['source']} | {r['tp']} | {r['fp']} | {r['fn']} | {r['precision']} | "
                     f"{r['recall']} | {r['f1']} | {r['macro_f1']} |")
    (HERE / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
