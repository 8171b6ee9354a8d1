"""CMP-05 fast math intrinsics: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel, short_name


FAST_INTRINSICS = {
    "__expf": 0.9, "__exp10f": 0.9, "__logf": 0.9, "__log2f": 0.9, "__log10f": 0.9,
    "__powf": 0.9, "__sinf": 0.9, "__cosf": 0.9, "__tanf": 0.9, "__sincosf": 0.9,
    "__fdividef": 0.9, "__saturatef": 0.85, "__frsqrt_rn": 0.85, "rsqrtf": 0.8, "rsqrt": 0.75,
    "fmaf": 0.75, "fma": 0.7, "__fmaf_rn": 0.8, "__fmaf_rz": 0.8, "__fmaf_ru": 0.8,
    "__fmaf_rd": 0.8, "__fma_rn": 0.8, "__fmaf_ieee_rn": 0.8, "rcbrtf": 0.7,
    # half precision: fused multiply-add and the approximate reciprocals
    "__hfma": 0.75, "__hfma2": 0.75, "__hfma_sat": 0.75, "__hfma2_sat": 0.75, "hrsqrt": 0.8,
    "h2rsqrt": 0.8, "hrcp": 0.8, "h2rcp": 0.8,
}


class FastMathIntrinsics(Detector):
    id = "CMP-05"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        dev = {f.name for f in model.gpu_functions()}
        for c in model.calls_in():
            if c.function not in dev:
                continue
            name = model.macro_target(c.name)  # #define EXP __expf
            conf = FAST_INTRINSICS.get(short_name(name))
            if conf is not None:
                yield Finding(c.line, c.line, conf, None, name)
