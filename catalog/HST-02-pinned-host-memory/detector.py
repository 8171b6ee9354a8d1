"""HST-02 pinned host memory: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import ProgramModel


class PinnedHostMemory(LineDetector):
    id = "HST-02"
    _NAMES = {"cudaMallocHost", "cudaHostAlloc", "cudaHostRegister"}

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        for c in model.reachable_host_calls:
            if c.name in self._NAMES:
                yield Finding(c.line, c.line, 0.95, note=c.name)
