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
import yaml

from strategylens.labels.records import FileLabels, Label, LabelSet, read_gold, read_tag_jsonl

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FIXTURES = ROOT / "tests" / "fixtures"
FIRST_CONTACT = ROOT / "analyses" / "gold-eval"
SETS = FIRST_CONTACT / "sets"


def gold_of(set_name: str) -> tuple[LabelSet, list[Path], dict[str, str]]:
    """A first-contact set's hand labels, the folders holding its files, and a map from the
    file names its first-contact dump records to where the files lie now."""
    if set_name == "corpus":
        gold = LabelSet("gold:corpus")
        names = {}
        for t in sorted((ROOT / "tasks").iterdir()):
            g = read_gold(t / "labels.yaml")
            gold.files.update(g.files)
            names.update({f"corpus/{t.name}__{Path(p).name}": p for p in g.files})
        return gold, [ROOT / "tasks"], names
    fixture = FIXTURES / set_name / "labels.yaml"
    public = SETS / set_name / "labels.yaml"
    labels = fixture if fixture.exists() else public
    g = read_gold(labels)
    names = {f"{set_name}/{Path(p).name}": p for p in g.files}
    # files that moved into the corpus keep their recorded names
    data = yaml.safe_load(labels.read_text()) or {}
    names.update({f"{set_name}/{n}": str(labels.parent / spec["path"])
                  for n, spec in data.items() if isinstance(spec, dict) and spec.get("path")})
    folders = sorted({Path(p).parent for p in g.files})
    if public.exists():  # a public set's task: none; group its files as one "task" each
        for fl in g.files.values():
            fl.task = fl.task or f"{set_name}:{Path(fl.path).stem}"
    return g, folders, names


def first_contact() -> dict[str, tuple[LabelSet, LabelSet, list[Path]]]:
    """Set name -> (hand labels, the detectors' first-contact labels, folders of its files)."""
    out = {}
    for f in sorted(FIRST_CONTACT.glob("first-contact-examples-*.json")):
        d = json.loads(f.read_text())
        gold, folders, names = gold_of(d["set"])
        det = LabelSet("detectors")
        for path in gold.files:  # a file with no first-contact label was tagged with none
            det.add(FileLabels(path))
        for ex in d["examples"]:
            path = names.get(ex["file"])
            if path is None:
                raise SystemExit(f"{f}: {ex['file']} is not a file of set {d['set']}")
            det.files[path].labels[ex["id"]] = Label(ex["id"], (), float(ex["confidence"]))
        out[d["set"]] = (gold, det, folders)
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
    gold, folders, det = [], set(), LabelSet("detectors")
    for _, (g, d, dirs) in sorted(fc.items()):
        gold.append(g)
        det.files.update(d.files)
        folders.update(dirs)
    sources = {"detectors": det,
               "substring": tag(["--detectors", "substring"], sorted(folders), "substring")}
    solo = {}
    for g in gold:
        for second in {Path(p).parent.parent / "labels-second.yaml" for p in g.files
                       if Path(p).parent.name == "solutions"} | \
                {Path(p).parent / "labels-second.yaml" for p in g.files}:
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
             f"{n_files} files from {', '.join(ctx['sets'])} ({ctx['tasks']} task groups; a "
             f"public file is its own group); {ctx['utc']}.",
             "`detectors` are the tagger's labels at first contact with each set; "
             "`second-labeller` is scored alone on the files a second labeller labelled. "
             "No live LLM was reachable here.", "",
             "| source | tp | fp | fn | precision | recall | F1 (micro) | macro-F1 |",
             "|---|---|---|---|---|---|---|---|"]
    for r in summary:
        lines.append(f"| {r['source']} | {r['tp']} | {r['fp']} | {r['fn']} | {r['precision']} | "
                     f"{r['recall']} | {r['f1']} | {r['macro_f1']} |")
    (HERE / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
