"""Detector for CMP-X01 tensor-core-mma: warp-level matrix multiply-accumulate on tensor cores."""

from __future__ import annotations

from strategylens.detectors import Detector, Finding

MMA_CALLS = {"mma_sync", "bmma_sync"}


class TensorCoreMMA(Detector):
    """Reports each `wmma::mma_sync` call in a reachable kernel or device function.

    Intensity is the number of MMA call sites.
    """

    id = "CMP-X01"

    def detect(self, model):
        sites = [c for c in model.calls
                 if c.name.split("::")[-1] in MMA_CALLS and model.is_reachable(c.node)]
        for call in sites:
            yield Finding(call.line, call.line, confidence=0.95, intensity=float(len(sites)))


DETECTORS = [TensorCoreMMA]
