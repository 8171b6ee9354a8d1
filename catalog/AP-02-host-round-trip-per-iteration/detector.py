"""AP-02 host round trip per iteration: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import ProgramModel


class HostRoundTripPerIteration(LineDetector):
    id = "AP-02"

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for lp in model.host_loops():
            for ln, conf, note in model.round_trips(lp):
                if ln not in seen:
                    seen.add(ln)
                    yield Finding(ln, ln, conf, note=note)
