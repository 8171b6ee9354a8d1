"""PAR-01 grid stride loop: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from strategylens.detectors import Detector, Finding


class GridStrideLoop(Detector):
    id = "PAR-01"

    def detect(self, model):
        for fn in model.gpu_functions():
            for loop, conf in model.grid_stride_loops(fn):
                yield Finding.at(loop.node, conf)
