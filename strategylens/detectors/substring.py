"""AccelEval's keyword rules, as a comparator (``strategylens tag --detectors substring``).

AccelEval labels a solution by substring checks over its comment-stripped source (its
``framework/knowledge/auto_detect.py``). This module reproduces those rules on purpose, misfires
included, so users can see how their labels differ from the benchmark's: a ``static`` helper
function counts as persistent allocation, a keyword in a string literal or in dead code counts,
and its comment stripper also cuts ``//`` inside strings. It is the only place in strategylens
where raw text is matched.

Each rule is mapped to the catalog ID it stands for; a rule fires when every group has a match,
and a group matches when any of its keywords occurs. Evidence is the first line of each group.

=======================  ========  ===========================================================
AccelEval feature        ID        keywords (all groups must match; any keyword within a group)
=======================  ========  ===========================================================
uses_shared_memory       MEM-02    ``__shared__`` and ``__syncthreads``
uses_constant_memory     MEM-05    ``__constant__``
uses_ldg                 MEM-04    ``__ldg``
uses_float4              MEM-06    ``float4`` or ``int4``
uses_fmaf, fast_math     CMP-05    ``fmaf``, ``__fmaf_rn``, ``__fdividef``, ``__expf``, ``__logf``,
                                   ``__sinf``
uses_hw_intrinsics,      CMP-08    ``__vcmpltu4``, ``__vcmpgtu4``, ``__vabsdiffu4``, ``__ffs``,
uses_warp_vote                     ``__clz``, ``__brev``, ``__ballot_sync``, ``__popc``,
                                   ``__all_sync``, ``__any_sync``
uses_warp_shuffle        PAR-03    ``__shfl_sync``, ``__shfl_down_sync``, ``__shfl_up_sync``,
                                   ``__shfl_xor_sync``
num_atomicAdd > 0        PAR-06    ``atomicAdd``
uses_template_kernel     CMP-07    ``template`` and ``__global__``
uses_pragma_unroll       CMP-04    ``#pragma unroll``
uses_launch_bounds       PAR-11    ``__launch_bounds__``
has_persistent_alloc     HST-01    ``static`` and ``cudaMalloc``
uses_thrust, uses_cub    HST-07    ``thrust::`` or ``cub::``
uses_cublas              HST-06    ``cublas``
=======================  ========  ===========================================================

Features that stand for no catalog strategy (``uses_cooperative_groups``, ``num_syncthreads``,
``uses_double_buffer``, counts of kernels and copies) are not reported.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator

from strategylens.detectors import Detector, Finding

_BLOCK = re.compile(r"/\*.*?\*/", re.DOTALL)
_LINE = re.compile(r"//.*?$", re.MULTILINE)
_STRIPPED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> stripped text


def strip_comments(text: str) -> str:
    """AccelEval's comment stripper (block comments, then ``//`` to end of line), keeping line
    numbers: a removed block comment leaves its newlines behind."""
    text = _BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return _LINE.sub("", text)


class SubstringRule(Detector):
    """One AccelEval keyword rule: fires when every keyword group has a match."""

    def __init__(self, strategy_id: str, feature: str, groups: list[list[str]]) -> None:
        self.id = strategy_id
        self.name = f"substring:{feature}"
        self.groups = groups

    def detect(self, model) -> Iterator[Finding]:
        text = _STRIPPED.get(model)
        if text is None:
            text = _STRIPPED[model] = strip_comments(model.text)  # shared by the rules
        lines = []
        for group in self.groups:
            hits = [text.find(k) for k in group]
            hits = [h for h in hits if h >= 0]
            if not hits:
                return
            lines.append(text.count("\n", 0, min(hits)) + 1)
        for line in sorted(set(lines)):
            yield Finding(line, line, confidence=0.5)


DETECTORS = [
    SubstringRule("MEM-02", "uses_shared_memory", [["__shared__"], ["__syncthreads"]]),
    SubstringRule("MEM-05", "uses_constant_memory", [["__constant__"]]),
    SubstringRule("MEM-04", "uses_ldg", [["__ldg"]]),
    SubstringRule("MEM-06", "uses_float4", [["float4", "int4"]]),
    SubstringRule("CMP-05", "uses_fast_math", [["fmaf", "__fmaf_rn", "__fdividef", "__expf",
                                                "__logf", "__sinf"]]),
    SubstringRule("CMP-08", "uses_hw_intrinsics", [["__vcmpltu4", "__vcmpgtu4", "__vabsdiffu4",
                                                    "__ffs", "__clz", "__brev", "__ballot_sync",
                                                    "__popc", "__all_sync", "__any_sync"]]),
    SubstringRule("PAR-03", "uses_warp_shuffle", [["__shfl_sync", "__shfl_down_sync",
                                                   "__shfl_up_sync", "__shfl_xor_sync"]]),
    SubstringRule("PAR-06", "num_atomicAdd", [["atomicAdd"]]),
    SubstringRule("CMP-07", "uses_template_kernel", [["template"], ["__global__"]]),
    SubstringRule("CMP-04", "uses_pragma_unroll", [["#pragma unroll"]]),
    SubstringRule("PAR-11", "uses_launch_bounds", [["__launch_bounds__"]]),
    SubstringRule("HST-01", "has_persistent_alloc", [["static"], ["cudaMalloc"]]),
    SubstringRule("HST-07", "uses_thrust_or_cub", [["thrust::", "cub::"]]),
    SubstringRule("HST-06", "uses_cublas", [["cublas"]]),
]
