"""GPU harness: build solutions, run each in an isolated child process, time, audit, profile.

Modules, in the order a run uses them (see analyses/h200/README.md for the measured numbers
behind the defaults):

* ``build``     nvcc builds with the signature wrapper, ptxas resources, the native helpers.
* ``sandbox``   the parent's handle on a child: isolation, protocol, limits, logs.
* ``child``     what runs inside the child beside the solution (imports no numpy).
* ``device``    GPU facts and copy bandwidths; the transfer floor.
* ``buffers``   input sets and the shared memfd the child reads them from.
* ``stopping``  stop criteria of the warm-up and measurement loops.
* ``session``   the phases of one (solution, size) and the trace they record; ``RunConfig``.
* ``validate``  one call's output verdict (poison, stale answers, tight check).
* ``audit``     the flag table and the pure checks over a recorded trace.
* ``rows``      results rows and the re-audit of a store.
* ``runner``    ``benchmark``: build, probe, references, run, audit, store.

Names are imported from their modules on first use, so the child, which imports
``strategylens.harness.child``, does not load numpy or the parent's code.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "audit": ["FLAGS", "CHECKS", "Thresholds", "tamper_bound_ms"],  # the function: .audit.audit
    "build": ["BuildResult", "build_many", "build_native", "build_report", "build_solution",
              "detect_arch", "libraries_used", "name_launches", "nvcc_version", "param_dict", "parse_ptxas",
              "wrapper_source", "CUDA_HOME"],
    "buffers": ["InputSet", "SharedBuffers", "layout_for"],
    "child": ["child_main", "summarize_activity"],
    "device": ["probe_device", "transfer_floor_ms"],
    "rows": ["reaudit", "result_row", "solution_id"],
    "runner": ["NoDevice", "benchmark", "build_only", "bytes_in_out", "input_sets", "n_sets"],
    "sandbox": ["Child", "ChildFailed", "allowed_paths"],
    "session": ["RunConfig", "Session", "rotation", "run_solution"],
    "stopping": ["rel_noise"],
    "validate": ["POISON_BYTE", "poisoned", "validate"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
