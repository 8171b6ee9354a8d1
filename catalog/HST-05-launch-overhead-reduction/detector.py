"""HST-05 launch overhead reduction: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import ProgramModel, copy_direction, inside, line


class LaunchOverheadReduction(LineDetector):
    id = "HST-05"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for c in model.reachable_host_calls:
            if c.name in ("cudaGraphLaunch", "cudaGraphLaunch_v2"):
                seen.add(c.line)
                yield Finding(c.line, c.line, 0.95, note="CUDA graph replay")
            elif c.category == "cublas" and "Batched" in c.name or c.name == "cufftPlanMany":
                seen.add(c.line)
                yield Finding(c.line, c.line, 0.8, note=f"batched library call {c.name}")
        for lp in model.host_loops():
            if not model.device_work_in(lp):
                continue
            for c in model.reachable_host_calls:
                if not inside(c.node, lp.node):
                    continue
                if copy_direction(c) != "d2h" and c.category not in ("sync", "device_sync"):
                    continue
                guard = model.modulo_guard(lp, c.node)
                if guard is not None and line(guard) not in seen:
                    seen.add(line(guard))
                    yield Finding(line(guard), line(guard), 0.75,
                                  note="host check only every K iterations")
