"""Device facts: the GPU, driver, clocks and copy bandwidths, measured once per run in a child
of their own, and the transfer floor computed from them."""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

from strategylens import __version__
from strategylens.harness.build import nvcc_version, run_tool
from strategylens.harness.sandbox import Child
from strategylens.provenance import cpu_model, git_commit, tool_sha


def _smi(query: str) -> str:
    try:
        res = run_tool(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"], 20)
        return res.stdout.strip().splitlines()[0] if res.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError, IndexError):
        return ""


def probe_device(native: dict[str, Path], cfg, bandwidth_bytes: int = 256 << 20) -> dict:
    """GPU facts and copy bandwidths (pageable and pinned, both directions).

    Raises
    ------
    ChildFailed
        When the probe child cannot set up the device (no GPU, no driver).
    """
    child = Child(native, {"cupti": False, "bandwidth_bytes": bandwidth_bytes,
                           "device": cfg.device}, cfg)
    try:
        msg, _ = child.recv(120)
        child.send({"op": "exit"})
    finally:
        child.close()
    fields = "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,compute_cap"
    vals = _smi(fields).split(", ")
    smi = dict(zip(fields.split(","), vals, strict=False)) if len(vals) == 7 else {}
    return {
        "gpu_name": smi.get("name", "unknown"), "driver": smi.get("driver_version", "unknown"),
        "clocks": {k: smi.get(k) for k in ("clocks.sm", "clocks.mem", "clocks.max.sm",
                                           "clocks.max.mem")},
        "compute_cap": smi.get("compute_cap"), "l2_bytes": msg.get("l2_bytes"),
        "bandwidth": msg.get("bandwidth", {}), "nvcc": nvcc_version(), "cpu_model": cpu_model(),
        "commit": git_commit() or "unknown", "tool_sha": tool_sha(),
        "tool_version": __version__, "host": platform.node(),
    }


def transfer_floor_ms(bytes_in: int, bytes_out: int, bandwidth: dict, kind: str) -> float | None:
    """Bytes in over host-to-device bandwidth plus bytes out over device-to-host, in ms."""
    h2d, d2h = bandwidth.get(f"{kind}_h2d"), bandwidth.get(f"{kind}_d2h")
    if not h2d or not d2h or h2d <= 0 or d2h <= 0:
        return None
    return (bytes_in / h2d + bytes_out / d2h) * 1e3
