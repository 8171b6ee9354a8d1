"""The agreement analyses in analyses/gold-eval score what they claim to score."""

from __future__ import annotations

import doctest
import importlib.util
from pathlib import Path

from strategylens import REPO_ROOT

HERE = REPO_ROOT / "analyses" / "gold-eval"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_agreement_doctests():
    assert doctest.testmod(_load("agreement")).failed == 0


def test_score_sets_doctests_and_set_groups():
    score_sets = _load("score_sets")
    assert doctest.testmod(score_sets).failed == 0
    groups = score_sets.groups()
    assert groups["corpus"] == sorted(p for p in (REPO_ROOT / "tasks").iterdir()
                                      if (p / "labels.yaml").is_file())
    assert groups["heldout-domains"] == [HERE / "sets" / "heldout-domains"]
    assert groups["gold-heldout"] == [REPO_ROOT / "tests" / "fixtures" / "gold-heldout"]


def test_evaluate_counts_against_hand_labels(tmp_path: Path):
    (tmp_path / "k.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "__global__ void add(const float* a, float* b, int n) {\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
        "        b[i] += a[i];\n"
        "}\n"
        "extern \"C\" void solution_compute(const float* a, float* b, int n) {\n"
        "    add<<<1, 1>>>(a, b, n);\n"
        "}\n")
    # PAR-01 is right, CMP-04 is claimed but absent, AP-01 is unsure and not scored
    (tmp_path / "labels.yaml").write_text(
        "k.cu:\n  present:\n    PAR-01: [3]\n    CMP-04: [3]\n  unsure: [AP-01]\n")
    res = _load("evaluate").evaluate(tmp_path, index=False)
    row = res["files"][0]
    assert "CMP-04" in row["false_negative"] and "PAR-01" not in row["false_negative"]
    assert res["per_id"]["PAR-01"] == {"tp": 1, "fp": 0, "fn": 0, "line_hits": 1}
    assert "AP-01" not in res["per_id"]


def test_calibration_scores_and_reliability():
    import numpy as np

    cal = _load("calibrate")
    y = np.array([1.0, 1.0, 0.0, 1.0])
    perfect = cal.scores(y, y)
    assert perfect["brier"] < 1e-9 and perfect["log_loss"] < 1e-5
    flat = cal.scores(np.full(4, 0.75), y)
    assert flat["brier"] == 0.1875 and flat["precision"] == 0.75
    rel = cal.reliability(np.array([0.65, 0.85, 0.86, 0.97]), y)
    assert [(r["bin"], r["n"], r["precision"]) for r in rel] == [
        ("0.00-0.70", 1, 1.0), ("0.80-0.90", 2, 0.5), ("0.95-1.00", 1, 1.0)]
    x = cal.features([{"confidence": 0.5, "n_evidence": 0, "anti": True}])
    assert x.tolist() == [[0.0, 0.0, 1.0]]


def test_leave_one_set_out_scores_each_set_with_a_model_fitted_on_the_others(tmp_path):
    import json

    cal = _load("calibrate")
    files = []
    for name, wrong_conf in (("s1", 0.55), ("s2", 0.6), ("s3", 0.58)):
        rows = [{"file": f"{name}/f.cu", "id": "MEM-01", "confidence": c, "n_evidence": 1,
                 "anti": False, "correct": c > 0.7} for c in (0.9, 0.85, 0.95, 0.8, wrong_conf)]
        f = tmp_path / f"{name}.json"
        f.write_text(json.dumps({"set": name, "commit": "x", "examples": rows}))
        files.append(f)
    out = tmp_path / "loso.json"
    assert cal.leave_one_set_out(files, out) == 0
    report = json.loads(out.read_text())
    assert [(r["set"], r["n"], r["wrong"]) for r in report["sets"]] == [
        ("s1", 5, 1), ("s2", 5, 1), ("s3", 5, 1)]
    # low confidence means wrong in every set, so a fitted model beats the raw numbers
    assert report["pooled_calibrated"]["brier"] < report["pooled_raw"]["brier"]
