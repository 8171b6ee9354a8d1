"""PAR-03 warp shuffle collectives: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from strategylens.detectors import Detector, Finding


class WarpShuffleCollectives(Detector):
    id = "PAR-03"

    def detect(self, model):
        for fn in model.gpu_functions():
            for call in model.calls_in(fn):
                if call.category == "shuffle":
                    yield Finding.at(call.node, 0.95)
                elif call.category == "block_reduce":
                    # a block reduction helper from a header: warp shuffles, then one warp
                    # combining the partials, is how such helpers are written
                    yield Finding.at(call.node, 0.6)
