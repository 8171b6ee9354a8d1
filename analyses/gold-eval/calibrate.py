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
from strategylens.tagger import label_features, tag_file  # noqa: E402

TRAIN = ["gold", "gold-heldout", "gold-heldout2", "gold-independent-a", "gold-independent-b"]


def examples(gold_dir: Path, catalog, detectors) -> list[dict]:
    labels = yaml.safe_load((gold_dir / "labels.yaml").read_text())
    out = []
    for name, spec in labels.items():
        ref = ROOT / "tasks" / str(spec.get("task")) / "reference.c"
        result = tag_file(gold_dir / name, detectors=detectors, catalog=catalog,
                          reference=ref.read_bytes() if ref.is_file() else None)
        present, unsure = spec.get("present") or {}, set(spec.get("unsure") or [])
        for lb in result.labels:
            if lb.id not in unsure:
                out.append({"file": f"{gold_dir.name}/{name}", "id": lb.id,
                            "confidence": lb.confidence, "n_evidence": len(lb.evidence),
                            "anti": lb.kind == "anti-pattern", "correct": lb.id in present})
    return out


def features(rows: list[dict]) -> np.ndarray:
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


def main() -> int:
    from sklearn.linear_model import LogisticRegression

    ap = argparse.ArgumentParser()
    ap.add_argument("--train", nargs="+", default=TRAIN)
    ap.add_argument("--test", type=Path)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("calibration-test.json"))
    ap.add_argument("--write-model", type=Path,
                    help="write the fitted model here (the tagger reads strategylens/"
                         "calibration.json)")
    args = ap.parse_args()
    catalog = load_catalog()
    detectors = load_detectors(catalog)
    # raw detector confidences: the shipped calibration must not feed back into its own fit
    train = [r for d in args.train
             for r in examples(ROOT / "tests" / "fixtures" / d, catalog, detectors)]
    ytr = np.array([r["correct"] for r in train], dtype=float)
    model = LogisticRegression(C=1.0).fit(features(train), ytr)
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
    test = examples(args.test.resolve(), catalog, detectors)
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
