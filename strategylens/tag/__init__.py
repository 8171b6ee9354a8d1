"""Tag CUDA files with catalog strategies and anti-patterns.

``file`` tags one file (:func:`tag_source`, :func:`tag_file`: the program model, the detectors,
one :class:`Label` per catalog ID, calibrated probabilities); ``batch`` walks files and folders
in worker processes with a per-file cache (:func:`tag_paths`); ``evidence`` adds what the
harness's recorded runs show (:func:`add_harness_evidence`, ``strategylens tag --store``).
"""

from __future__ import annotations

from strategylens.detectors import Evidence, Label
from strategylens.tag.batch import SUFFIXES, Cache, expand_paths, find_files, tag_paths
from strategylens.tag.evidence import (FLAG_LABELS, ITERATIVE_LAUNCHES, add_harness_evidence,
                                       harness_findings, rows_for)
from strategylens.tag.file import (CALIBRATION, SIZE_LIMIT, FileResult, calibrate,
                                   calibration_model, check_bytes, get_catalog, label_features,
                                   reference_model, resolve_detectors, tag_example, tag_file,
                                   tag_source, without_broken_detectors)
from strategylens.tag.workers import Bounds

__all__ = [
    "Bounds", "CALIBRATION", "Cache", "Evidence", "FLAG_LABELS", "FileResult", "ITERATIVE_LAUNCHES", "Label",
    "SIZE_LIMIT", "SUFFIXES", "add_harness_evidence", "calibrate", "calibration_model",
    "check_bytes", "expand_paths", "find_files", "get_catalog", "harness_findings", "label_features",
    "reference_model", "resolve_detectors", "rows_for", "tag_example", "tag_file", "tag_paths",
    "tag_source", "without_broken_detectors",
]
