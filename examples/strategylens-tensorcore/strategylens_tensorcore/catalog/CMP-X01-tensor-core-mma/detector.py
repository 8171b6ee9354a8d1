"""CMP-X01 tensor core mma: the detector. What it reports and what it leaves out is the entry's
``detection`` in strategy.yaml."""

from __future__ import annotations

from strategylens.detectors import Detector, Finding

MMA_CALLS = {"mma_sync", "bmma_sync"}


class TensorCoreMMA(Detector):
    id = "CMP-X01"

    def detect(self, model):
        sites = [c for c in model.calls
                 if c.name.split("::")[-1] in MMA_CALLS and model.is_reachable(c.node)]
        for call in sites:
            yield Finding(call.line, call.line, confidence=0.95, intensity=float(len(sites)))
