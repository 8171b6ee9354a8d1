"""HST-06 vendor math library: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Finding, LineDetector
from strategylens.model import ProgramModel, is_library_compute


class VendorMathLibrary(LineDetector):
    id = "HST-06"
    _DEVICE_RAND = ("curand_uniform", "curand_normal", "curand_log_normal", "curand_poisson",
                    "curand_discrete")

    def find(self, model: ProgramModel) -> Iterator[Finding]:
        for c in model.reachable_host_calls:
            if is_library_compute(c):
                yield Finding(c.line, c.line, 0.9, note=f"{c.category}: {c.name}")
        for c in model.calls:
            if c.category == "curand" and c.name.startswith(self._DEVICE_RAND) \
                    and model.is_reachable(c.node):
                fn = model.function_of(c.function) if c.function else None
                if fn is not None and (fn.is_kernel or fn.is_device):
                    yield Finding(c.line, c.line, 0.5, note=f"cuRAND device API: {c.name}")
