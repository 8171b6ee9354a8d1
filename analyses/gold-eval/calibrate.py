"""Calibrate the tagger's label confidences on gold labels, and test the calibration on a set
it was not fitted on.

    # fit on the five older sets, score on the newest (its first contact):
    .venv/bin/python analyses/gold-eval/calibrate.py --test tests/fixtures/gold-independent-c
    # fit on all six and write the model the tagger uses:
    .venv/bin/python analyses/gold-eval/calibrate.py --train gold gold-heldout gold-heldout2 \
        gold-independent-a gold-independent-b gold-independent-c --write-model strategylens/calibration.json

Each reported label of a gold file (IDs marked `unsure` left out) is one example: correct when
the hand labels have the ID. Features: the detector confidence (logit), the number of evidence
spans, and whether the ID is an anti-pattern. A logistic regression (scikit-learn) is fitted on
the training sets and scored on the test set beside the raw confidence: Brier score, log loss
and a reliability table. Only reported labels are scored: calibration says how far to trust a
label, not how many were missed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from strategylens.catalog import load_catalog  # noqa: E402
from strategylens.detectors import load_detectors  # noqa: E402
from strategylens.provenance import git_commit  # noqa: E402
from strategylens.tag import tag_file  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from evaluate import source_file  # noqa: E402  (this folder; the same file lookup)

TRAIN = ["gold", "gold-heldout", "gold-heldout2", "gold-independent-a", "gold-independent-b"]


def examples(gold_dir: Path, catalog, detectors) -> list[dict]:
    labels = yaml.safe_load((gold_dir / "labels.yaml").read_text())
    out = []
    for name, spec in labels.items():
        ref = ROOT / "tasks" / str(spec.get("task")) / "reference.c"
        path = source_file(gold_dir, name, spec)
        try:
            result = tag_file(path, detectors=detectors, catalog=catalog,
                              reference=ref.read_bytes() if ref.is_file() else None)
        except TypeError:  # a tagger from before reference-relative evidence (--dump on it)
            result = tag_file(path, detectors=detectors, catalog=catalog)
        present, unsure = spec.get("present") or {}, set(spec.get("unsure") or [])
        for lb in result.labels:
            if lb.id not in unsure:
                out.append({"file": f"{gold_dir.name}/{name}", "id": lb.id,
                            "confidence": lb.confidence, "n_evidence": len(lb.evidence),
                            "anti": lb.kind == "anti-pattern", "correct": lb.id in present})
    return out


def features(rows: list[dict]) -> np.ndarray:
    from strategylens.tag import label_features  # noqa: PLC0415

    return np.array([label_features(r["confidence"], r["n_evidence"], r["anti"]) for r in rows])


def scores(p: np.ndarray, y: np.ndarray) -> dict:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return {"brier": float(np.mean((p - y) ** 2)),
            "log_loss": float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))),
            "mean_p": float(p.mean()), "precision": float(y.mean())}


def reliability(p: np.ndarray, y: np.ndarray, edges=(0, 0.7, 0.8, 0.9, 0.95, 1.0001)) -> list:
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (p >= lo) & (p < hi)
        if m.any():
            rows.append({"bin": f"{lo:.2f}-{min(hi, 1):.2f}", "n": int(m.sum()),
                         "mean_p": round(float(p[m].mean()), 3),
                         "precision": round(float(y[m].mean()), 3)})
    return rows


def fit(rows: list[dict]):
    from sklearn.linear_model import LogisticRegression

    y = np.array([r["correct"] for r in rows], dtype=float)
    return LogisticRegression(C=1.0).fit(features(rows), y)


def leave_one_set_out(files: list[Path], out: Path) -> int:
    """Fit on every first-contact set but one, score on that one; pooled and per set."""
    sets = {json.loads(f.read_text())["set"]: json.loads(f.read_text())["examples"]
            for f in files}
    raw, cal, ys, per_set = [], [], [], []
    for name, rows in sets.items():
        model = fit([r for other, rs in sets.items() if other != name for r in rs])
        y = np.array([r["correct"] for r in rows], dtype=float)
        p_raw = np.array([r["confidence"] for r in rows])
        p_cal = model.predict_proba(features(rows))[:, 1]
        per_set.append({"set": name, "n": len(rows), "wrong": int((1 - y).sum()),
                        "raw": scores(p_raw, y), "calibrated": scores(p_cal, y)})
        raw.append(p_raw)
        cal.append(p_cal)
        ys.append(y)
    raw, cal, y = np.concatenate(raw), np.concatenate(cal), np.concatenate(ys)
    report = {"method": "leave one first-contact set out", "sets": per_set,
              "pooled_raw": scores(raw, y), "pooled_calibrated": scores(cal, y),
              "reliability_raw": reliability(raw, y),
              "reliability_calibrated": reliability(cal, y)}
    out.write_text(json.dumps(report, indent=1) + "\n")
    for r in per_set:
        print(f"{r['set']:24s} n={r['n']:3d} wrong={r['wrong']:2d}  Brier raw "
              f"{r['raw']['brier']:.4f} calibrated {r['calibrated']['brier']:.4f}")
    print(f"pooled: n={len(y)} wrong={int((1 - y).sum())}  Brier raw "
          f"{report['pooled_raw']['brier']:.4f} calibrated {report['pooled_calibrated']['brier']:.4f}"
          f"; log loss raw {report['pooled_raw']['log_loss']:.4f} calibrated "
          f"{report['pooled_calibrated']['log_loss']:.4f}")
    print("reliability raw", report["reliability_raw"])
    print("reliability calibrated", report["reliability_calibrated"])
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", nargs="+", default=TRAIN)
    ap.add_argument("--test", type=Path)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("calibration-test.json"))
    ap.add_argument("--write-model", type=Path,
                    help="write the fitted model here (the tagger reads strategylens/"
                         "calibration.json)")
    ap.add_argument("--examples", type=Path, nargs="+",
                    help="fit on these example files (written by --dump at a set's first "
                         "contact) instead of tagging the --train sets now")
    ap.add_argument("--dump", type=Path,
                    help="write the --test set's examples (tagged now) to this file and stop")
    ap.add_argument("--loso", action="store_true",
                    help="with --examples: leave one set out, fit on the rest, score on it")
    args = ap.parse_args()
    if args.loso:
        return leave_one_set_out(args.examples, args.out)
    catalog = load_catalog()
    detectors = load_detectors(catalog)
    if args.dump:
        rows = examples(args.test.resolve(), catalog, detectors)
        args.dump.write_text(json.dumps({"set": args.test.name, "commit": git_commit(),
                                         "examples": rows}, indent=1) + "\n")
        print(f"wrote {args.dump}: {len(rows)} labels, "
              f"{sum(not r['correct'] for r in rows)} wrong")
        return 0
    # raw detector confidences: the shipped calibration must not feed back into its own fit
    if args.examples:
        train = [r for f in args.examples for r in json.loads(f.read_text())["examples"]]
        args.train = [json.loads(f.read_text())["set"] + " (first contact)"
                      for f in args.examples]
    else:
        train = [r for d in args.train
                 for r in examples(ROOT / "tests" / "fixtures" / d, catalog, detectors)]
    ytr = np.array([r["correct"] for r in train], dtype=float)
    model = fit(train)
    if args.write_model:
        args.write_model.write_text(json.dumps({
            "features": ["logit(confidence)", "log1p(n_evidence)", "anti-pattern"],
            "coef": [round(float(c), 6) for c in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 6),
            "trained_on": args.train, "n": len(train), "wrong": int((1 - ytr).sum()),
            "commit": git_commit(), "fitted_by": "analyses/gold-eval/calibrate.py",
        }, indent=1) + "\n")
        print(f"wrote {args.write_model}: {len(train)} labels, {int((1 - ytr).sum())} wrong")
    if args.test is None:
        return 0
    test = json.loads(args.test.read_text())["examples"] if args.test.suffix == ".json" \
        else examples(args.test.resolve(), catalog, detectors)
    yte = np.array([r["correct"] for r in test], dtype=float)
    raw, cal = np.array([r["confidence"] for r in test]), model.predict_proba(features(test))[:, 1]
    report = {
        "train_sets": args.train, "test_set": str(args.test),
        "n_train": len(train), "wrong_train": int((1 - ytr).sum()),
        "n_test": len(test), "wrong_test": int((1 - yte).sum()),
        "model": {"features": ["logit(confidence)", "log1p(n_evidence)", "anti-pattern"],
                  "coef": [round(float(c), 4) for c in model.coef_[0]],
                  "intercept": round(float(model.intercept_[0]), 4)},
        "test_raw": scores(raw, yte), "test_calibrated": scores(cal, yte),
        "reliability_raw": reliability(raw, yte), "reliability_calibrated": reliability(cal, yte),
        "wrong_labels": [{k: r[k] for k in ("file", "id", "confidence")} | {
            "calibrated": round(float(p), 3)} for r, p in zip(test, cal, strict=True)
            if not r["correct"]],
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: report[k] for k in ("n_train", "wrong_train", "n_test", "wrong_test",
                                              "model", "test_raw", "test_calibrated")}, indent=1))
    for name in ("reliability_raw", "reliability_calibrated"):
        print(name, report[name])
    return 0 if math.isfinite(report["test_calibrated"]["brier"]) else 1


if __name__ == "__main__":
    sys.exit(main())
