"""Agreement of the tagger with hand labels on LLM-style solutions it was not built from.

Reads a folder's labels.yaml (hand labels, with `unsure` IDs left out of scoring; an entry's
`path`, relative to the folder, says where its file lies when not beside the labels), tags each file
(with its task's C reference, as `strategylens tag --task` does),
and prints per-file and per-ID agreement: file-level precision and recall, and how often the
reported evidence covers a hand-labelled line. Writes results-<folder>.json beside this script.

    .venv/bin/python analyses/gold-eval/evaluate.py                      # tests/fixtures/gold
    .venv/bin/python analyses/gold-eval/evaluate.py tests/fixtures/gold-heldout
    .venv/bin/python analyses/gold-eval/evaluate.py tests/fixtures/gold-independent-a --labels=labels-second.yaml

`gold` was labelled while the detectors were being written and its misses were fixed;
`gold-heldout` was labelled afterwards and is the honest estimate.
"""

from __future__ import annotations

import datetime as dt
import json
import platform
import sys
from pathlib import Path

import yaml

from strategylens import REPO_ROOT, __version__
from strategylens.catalog import load_catalog
from strategylens.detectors import load_detectors
from strategylens.provenance import git_commit
from strategylens.tag import tag_file

GOLD = REPO_ROOT / "tests" / "fixtures" / "gold"


def source_file(gold_dir: Path, name: str, spec: dict) -> Path:
    """The labelled file: ``path`` from the entry, else beside the labels, else in ``files/``
    (where ``sets/fetch_public.py`` puts third-party files), else in ``solutions/`` (a task of the
    corpus, whose ``reference.c`` is the files' reference); a missing file stops the run, since
    scoring it as tagged with nothing would count every label as a miss."""
    for path in (gold_dir / spec.get("path", name), gold_dir / "files" / name,
                 gold_dir / "solutions" / name):
        if path.is_file():
            return path
    sys.exit(f"error: {gold_dir / name}: labelled file not found (beside labels.yaml, in files/ or "
             "in solutions/); for a public set run sets/fetch_public.py first")


def evaluate(gold_dir: Path = GOLD, index: bool = True, labels_file: str = "labels.yaml",
             catalog=None, detectors=None) -> dict:
    """Scores of one gold folder; ``catalog`` and ``detectors`` are loaded when not given
    (a caller scoring many folders loads them once)."""
    labels = yaml.safe_load((gold_dir / labels_file).read_text())
    catalog = catalog or load_catalog()
    detectors = detectors or load_detectors(catalog)
    ids = catalog.ids
    files, tp, fp, fn, line_hits = [], {}, {}, {}, {}
    for name, spec in labels.items():
        ref = REPO_ROOT / "tasks" / str(spec.get("task")) / "reference.c"
        if not ref.is_file():
            ref = gold_dir / "reference.c"
        path = source_file(gold_dir, name, spec)
        result = tag_file(path, detectors=detectors, index=index, catalog=catalog,
                          reference=ref.read_bytes() if ref.is_file() else None)
        for w in result.warnings:
            if "failed:" in w:
                print(f"warning: {w}", file=sys.stderr)
        reported = {lab.id: lab for lab in result.labels}
        present = spec.get("present") or {}
        unsure = set(spec.get("unsure") or [])
        row = {"file": name, "false_positive": [], "false_negative": [], "line_miss": []}
        for sid in ids:
            if sid in unsure:
                continue
            want, got = sid in present, sid in reported
            if want and got:
                tp[sid] = tp.get(sid, 0) + 1
                spans = [(e.line_start, e.line_end) for e in reported[sid].evidence]
                hit = any(a <= line <= b for line in present[sid] for a, b in spans)
                line_hits[sid] = line_hits.get(sid, 0) + hit
                if not hit:
                    row["line_miss"].append(sid)
            elif got:
                fp[sid] = fp.get(sid, 0) + 1
                row["false_positive"].append(sid)
            elif want:
                fn[sid] = fn.get(sid, 0) + 1
                row["false_negative"].append(sid)
        files.append(row)
    n_tp, n_fp, n_fn = sum(tp.values()), sum(fp.values()), sum(fn.values())
    return {
        "files": files,
        "per_id": {sid: {"tp": tp.get(sid, 0), "fp": fp.get(sid, 0), "fn": fn.get(sid, 0),
                         "line_hits": line_hits.get(sid, 0)}
                   for sid in sorted(set(tp) | set(fp) | set(fn))},
        "precision": round(n_tp / (n_tp + n_fp), 3) if n_tp + n_fp else None,
        "recall": round(n_tp / (n_tp + n_fn), 3) if n_tp + n_fn else None,
        "line_hit_rate": round(sum(line_hits.values()) / n_tp, 3) if n_tp else None,
        "tp": n_tp, "fp": n_fp, "fn": n_fn,
    }


def main() -> None:
    index = "--no-index" not in sys.argv
    labels_file = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--labels=")),
                       "labels.yaml")
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    gold_dir = Path(args[0]).resolve() if args else GOLD
    res = evaluate(gold_dir, index=index, labels_file=labels_file)
    commit = git_commit()
    res["context"] = {"tool_version": __version__, "commit": commit, "index": index,
                      "python": platform.python_version(),
                      "utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    for row in res["files"]:
        print(f"{row['file']:28s} FP={','.join(row['false_positive']) or '-':30s} "
              f"FN={','.join(row['false_negative']) or '-':20s} line-miss={','.join(row['line_miss']) or '-'}")
    print(f"file-level precision {res['precision']}  recall {res['recall']}  "
          f"(tp={res['tp']} fp={res['fp']} fn={res['fn']}); evidence on a hand-labelled line: "
          f"{res['line_hit_rate']}")
    res["context"]["gold"] = (str(gold_dir.relative_to(REPO_ROOT))
                              if gold_dir.is_relative_to(REPO_ROOT) else gold_dir.name)
    res["context"]["labels"] = labels_file
    suffix = "" if labels_file == "labels.yaml" else "-" + Path(labels_file).stem
    out = Path(__file__).parent / f"results-{gold_dir.name}{suffix}.json"
    out.write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
