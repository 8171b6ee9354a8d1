"""Decisions that span families on one persistent-kernel BFS (tests/fixtures/detectors/):
a level loop inside one cooperative kernel, a bitmap frontier, a grid-stride loop through a
stride variable."""

from __future__ import annotations

from pathlib import Path

from strategylens.catalog import load_catalog
from strategylens.detectors import load_detectors
from strategylens.tag import tag_file

FILE = Path(__file__).parent / "fixtures" / "detectors" / "persistent_bfs.cu"


def test_persistent_bfs_labels():
    catalog = load_catalog(check_examples=False)
    result = tag_file(FILE, detectors=load_detectors(catalog), index=False, catalog=catalog)
    got = {lab.id: sorted(e.line_start for e in lab.evidence) for lab in result.labels}
    assert got["HST-04"] == [8]          # iterations inside one kernel with grid barriers
    assert got["CMP-02"] == [8]          # level-synchronous BFS: the device level loop
    assert got["PAR-09"] == [9, 20]      # grid.sync
    assert got["PAR-01"] == [10]         # grid-stride through `stride`
    assert "PAR-02" not in got           # a grid-stride loop is not coarsening
    assert "AP-03" not in got            # u comes from the frontier bitmap: data-driven walk
