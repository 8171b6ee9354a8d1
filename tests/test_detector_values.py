"""What the annotations of the catalog cases cannot say: the intensity and confidence detectors
give on some cases (the lines themselves are checked by the generic catalog test).

Each row names a file under catalog/, the ID whose detector runs on it (alone, as the detector
class would), whether the libclang pass runs, the fields compared (l = first line, e = last line,
c = confidence, i = intensity) and the exact set of values.
"""

from __future__ import annotations

import pytest

from strategylens import REPO_ROOT
from strategylens.detectors import load_detectors
from strategylens.model import build_model

CATALOG = REPO_ROOT / "catalog"
DETECTORS = load_detectors()

VALUES = [
    ("MEM-01-coalesced-access/cases/flattened_index_modulo_is_stride_one.cu", "MEM-01", False,
     "i", {(1.0,)}),
    ("MEM-02-shared-memory-tiling/cases/tiles_reported_with_bytes_and_reduction_workspace_is_not.cu",
     "MEM-02", False, "li", {(4, 2048), (5, 2048)}),
    ("MEM-03-register-blocking/cases/accumulator_block_yes_stack_and_window_no.cu", "MEM-03", False,
     "li", {(3, 4.0)}),
    ("MEM-05-constant-memory/cases/constant_used_only_by_unlaunched_kernel_is_not_reported.cu",
     "MEM-05", False, "li", {(2, 32)}),
    ("MEM-06-vectorized-access/cases/float4_cast_yes_float3_and_component_no.cu", "MEM-06", False,
     "li", {(4, 128.0)}),
    ("MEM-06-vectorized-access/cases/dereference_of_vector_cast.cu", "MEM-06", False, "li",
     {(4, 128.0), (5, 64.0)}),
    ("MEM-09-async-copy-pipelining/cases/stage_index_must_vary.cu", "MEM-09", False, "li",
     {(3, 2.0)}),
    ("CMP-01-kernel-fusion/cases/block_softmax_fuses_three_stages.cu", "CMP-01", False, "li",
     {(2, 3.0)}),
    ("CMP-01-kernel-fusion/cases/computed_intermediate_in_shared_read_by_neighbours.cu", "CMP-01",
     False, "li", {(2, 2.0)}),
    ("CMP-01-kernel-fusion/cases/time_steps_in_shared_memory_but_not_a_scan.cu", "CMP-01", False,
     "li", {(3, 4.0)}),
    ("CMP-04-loop-unrolling/cases/pragmas_and_manual_unroll.cu", "CMP-04", False, "li",
     {(4, 8.0), (8, 4.0), (10, 4.0)}),
    ("CMP-07-compile-time-specialization/cases/counts_distinct_non_type_instantiations.cu",
     "CMP-07", False, "li", {(2, 2.0)}),
    ("HST-03-transfer-compute-overlap/cases/"
     "overlap_needs_two_streams_and_reports_streams_as_intensity-a.cu", "HST-03", False, "li",
     {(13, 2.0), (15, 2.0)}),
    ("PAR-02-thread-coarsening/cases/"
     "coarsening_loop_intensity_and_component_stores_are_not_coarsening.cu", "PAR-02", True, "li",
     {(5, 4.0)}),
    ("PAR-02-thread-coarsening/cases/lanes_stored_as_one_vector.cu", "PAR-02", True, "i", {(4.0,)}),
    ("PAR-06-atomic-update/cases/atomic_roles_work_counter_slot_and_combine.cu", "PAR-06", True,
     "i", {(2.0,)}),
    ("PAR-10-multidimensional-mapping/cases/multidimensional_launches_and_block_per_item.cu",
     "PAR-10", True, "le", {(20, 22), (23, 23)}),  # dim3 declarations through the launch
    ("LBL-02-cooperative-item-mapping/cases/"
     "warp_per_csr_row_versus_thread_per_row_and_dense_rows.cu", "LBL-02", True, "lci",
     {(6, 0.9, 32.0), (19, 0.6, 32.0)}),
]


def findings(case: str, sid: str, index: bool) -> list:
    path = CATALOG / case
    model = build_model(path.read_text(), str(path), index=index)
    return [f for det in DETECTORS[sid] for f in det.detect(model)]


def fields(finding, which: str) -> tuple:
    get = {"l": finding.line_start, "e": finding.line_end, "c": finding.confidence,
           "i": finding.intensity}
    return tuple(get[k] for k in which)


@pytest.mark.parametrize("case, sid, index, which, want", VALUES,
                         ids=[f"{v[1]}:{v[0].rsplit('/', 1)[-1]}" for v in VALUES])
def test_case_values(case, sid, index, which, want):
    assert {fields(f, which) for f in findings(case, sid, index)} == want


def test_mem01_confidence_is_lower_without_libclang():
    case = "MEM-01-coalesced-access/cases/confidence_is_lower_without_libclang.cu"
    with_index, without = findings(case, "MEM-01", True), findings(case, "MEM-01", False)
    assert {f.line_start for f in with_index} == {f.line_start for f in without} == {4}
    assert without[0].confidence < with_index[0].confidence
