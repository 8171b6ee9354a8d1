"""PAR-06 atomic update: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from strategylens.detectors import Detector, Finding


class AtomicUpdate(Detector):
    id = "PAR-06"

    def detect(self, model):
        sites = []
        for fn in model.gpu_functions():
            for call in model.calls_in(fn):
                if call.category == "atomic" and model.atomic_role(fn, call) in ("combine", "slot"):
                    sites.append(call)
        for call in sites:
            yield Finding.at(call.node, 0.95, float(len(sites)))
