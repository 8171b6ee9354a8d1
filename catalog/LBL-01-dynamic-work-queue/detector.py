"""LBL-01 dynamic work queue: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from strategylens.detectors import Detector, Finding
from strategylens.model import call_args


class DynamicWorkQueue(Detector):
    id = "LBL-01"

    def detect(self, model):
        for fn in model.gpu_functions():
            for call in model.calls_in(fn):
                if call.category != "atomic":
                    continue
                args = call_args(call.node)
                if not args or not model.target_is_scalar(fn, args[0]):
                    continue
                if model.atomic_role(fn, call) == "work":
                    yield Finding.at(call.node, 0.9)
