"""Every detector runs to completion on every CUDA file the project holds: a detector that raises
is reported by the tagger as a warning and loses its labels, so it must never happen silently."""

from __future__ import annotations

from strategylens import REPO_ROOT
from strategylens.catalog import load_catalog
from strategylens.detectors import load_detectors
from strategylens.tag import tag_file


def test_no_detector_raises_on_any_project_file():
    catalog = load_catalog(check_examples=False)
    detectors = load_detectors(catalog)
    files = sorted(REPO_ROOT.glob("catalog/*/*/*.cu")) + sorted(REPO_ROOT.glob("tasks/*/solutions/*.cu")) \
        + sorted(REPO_ROOT.glob("tests/**/*.cu"))
    assert len(files) > 200
    failures = []
    for path in files:
        result = tag_file(path, detectors=detectors, index=False, catalog=catalog)
        failures += [w for w in result.warnings if "failed:" in w]
    assert failures == []
