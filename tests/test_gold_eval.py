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
