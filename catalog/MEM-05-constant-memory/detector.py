"""MEM-05 constant memory: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel


class ConstantMemory(Detector):
    id = "MEM-05"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        consts = [v for v in model.vars_in(space="constant")]
        if not consts:
            return
        used: set[str] = set()
        names = {v.name for v in consts}
        for fn in model.reachable_functions():
            if fn.body is None:
                continue
            for n in model.fn_nodes(fn, "identifier"):
                nm = model.text_of(n)
                if nm in names and model.is_reachable(n):
                    used.add(nm)
        live = [v for v in consts if v.name in used]
        total = sum(v.size_bytes for v in live) if all(v.size_bytes for v in live) else None
        for v in live:
            yield Finding(v.line, v.line, 0.9, total, f"__constant__ {v.name}")
