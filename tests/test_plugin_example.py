"""The worked template in examples/strategylens-tensorcore adds a strategy without forking.

The plugin is made importable and its entry point registered exactly as `pip install` would: a
`.dist-info` folder with `entry_points.txt` on the path. That one entry point (group
`strategylens.catalogs`, naming the plugin's catalog folder) is all it takes: the catalog, the
detector registry, `catalog test` and `tag` all see CMP-X01 without STRATEGYLENS_CATALOG, and
`--catalog DIR` and the variable still work without the entry point.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from strategylens import REPO_ROOT
from strategylens import catalog as cat

PLUGIN = REPO_ROOT / "examples" / "strategylens-tensorcore"
PLUGIN_CATALOG = PLUGIN / "strategylens_tensorcore" / "catalog"


@pytest.fixture
def installed_plugin(tmp_path, monkeypatch):
    """Register the plugin's entry point the way an installed distribution does."""
    dist = tmp_path / "strategylens_tensorcore-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: strategylens-tensorcore\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text(
        "[strategylens.catalogs]\ntensorcore = strategylens_tensorcore:CATALOG\n")
    monkeypatch.syspath_prepend(str(PLUGIN))
    monkeypatch.syspath_prepend(str(tmp_path))
    return os.pathsep.join([str(tmp_path), str(PLUGIN)])


def test_plugin_catalog_validates_beside_builtin():
    c = cat.load_catalog([PLUGIN_CATALOG])
    assert [str(e) for e in c.errors] == []
    entry = c.get("CMP-X01")
    assert (entry.slug, entry.structural, entry.status) == ("tensor-core-mma", False, "experimental")
    assert cat.counts(c)["strategies"] == 44


def test_entry_point_alone_registers_the_plugin_catalog(installed_plugin, monkeypatch):
    monkeypatch.delenv(cat.ENV_VAR, raising=False)
    dirs = cat.catalog_dirs()
    assert dirs == [cat.BUILTIN_CATALOG.resolve(), PLUGIN_CATALOG.resolve()]
    assert "CMP-X01" in cat.load_catalog(check_examples=False).ids


def test_env_variable_still_adds_a_catalog_without_the_entry_point(monkeypatch):
    monkeypatch.setenv(cat.ENV_VAR, str(PLUGIN_CATALOG))
    assert cat.catalog_dirs() == [cat.BUILTIN_CATALOG.resolve(), PLUGIN_CATALOG.resolve()]
    monkeypatch.delenv(cat.ENV_VAR)
    assert cat.catalog_dirs() == [cat.BUILTIN_CATALOG.resolve()]


def test_plugin_detector_registered_and_annotations_hold(installed_plugin):
    from strategylens import tag
    from strategylens.detectors import load_detectors

    c = cat.load_catalog()
    detectors = load_detectors(c)
    assert [d.name for d in detectors["CMP-X01"]] == ["TensorCoreMMA"]
    outcomes = cat.test_catalog(c, lambda p: tag.tag_file(p, detectors=detectors, catalog=c).labels,
                                only=["CMP-X01"])
    got = sorted((Path(o.example).name, o.line, o.outcome) for o in outcomes if o.id == "CMP-X01")
    assert got == [("mma_in_comment.cu", 5, "validated"), ("mma_in_comment.cu", 14, "validated"),
                   ("unlaunched_wmma.cu", 14, "validated"), ("wmma_device_helper.cu", 13, "reported"),
                   ("wmma_gemm.cu", 17, "reported")]


def test_plugin_through_the_cli(installed_plugin, tmp_path):
    env = {**os.environ, "PYTHONPATH": installed_plugin,
           "STRATEGYLENS_CACHE": str(tmp_path / "cache")}
    env.pop("STRATEGYLENS_CATALOG", None)
    exe = [sys.executable, "-m", "strategylens.cli"]
    proc = subprocess.run(exe + ["catalog", "test", "--only", "CMP-X01"], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    proc = subprocess.run(exe + ["tag", str(PLUGIN_CATALOG / "CMP-X01-tensor-core-mma" / "positive"
                                          / "wmma_gemm.cu"), "--format", "jsonl"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    labels = json.loads(proc.stdout.splitlines()[0])["labels"]
    mma = [lab for lab in labels if lab["id"] == "CMP-X01"]
    assert [(e["line_start"], e["detector"]) for e in mma[0]["evidence"]] == [(17, "TensorCoreMMA")]
