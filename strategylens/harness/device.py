"""Device facts: the GPU, driver, clocks and copy bandwidths, measured once per run in a child
of their own, and the transfer floor computed from them."""

from __future__ import annotations

import functools
import os
import platform
import re
import subprocess
from pathlib import Path

from strategylens import __version__
from strategylens.harness.build import nvcc_version, run_tool
from strategylens.harness.sandbox import Child
from strategylens.provenance import cpu_model, git_commit, tool_sha


def _smi(query: str, device: int | None = None) -> str:
    pick = ["-i", str(device)] if device is not None else []
    try:
        res = run_tool(["nvidia-smi", *pick, f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                       20)
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


_CPULIST = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")


def parse_cpulist(text: str) -> set[int]:
    """CPUs of a list in the kernel's format (``"0-15,32-47"``).

    >>> sorted(parse_cpulist("2-4,7"))
    [2, 3, 4, 7]
    """
    text = text.strip()
    if not _CPULIST.match(text):
        raise ValueError(f"CPU list {text!r}: expected numbers and ranges such as '2-7,10'")
    cpus: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if hi and int(hi) < int(lo):
            raise ValueError(f"CPU list {text!r}: range {part} runs backwards")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


@functools.lru_cache(maxsize=8)
def gpu_local_cpus(device: int = 0, sysfs: str = "/sys/bus/pci/devices") -> frozenset[int]:
    """CPUs the kernel lists as local to the GPU's PCI device (its NUMA node); empty when
    nvidia-smi or sysfs cannot say."""
    bus = _smi("pci.bus_id", device).lower()  # 00000000:1a:00.0
    domain, _, rest = bus.partition(":")
    path = Path(sysfs) / f"{domain[-4:]}:{rest}" / "local_cpulist"
    try:
        return frozenset(parse_cpulist(path.read_text()))
    except (OSError, ValueError):
        return frozenset()


def child_cpus(spec: str, device: int = 0) -> list[int] | None:
    """The CPUs a harness child is limited to for ``RunConfig.child_cpus``: None for ``""``
    (the OS places it), the GPU's local CPUs for ``"gpu-local"``, else the CPUs of a list;
    only CPUs this process may use.

    Raises
    ------
    ValueError
        When the spec is malformed or leaves no CPU this process may use.
    """
    if not spec:
        return None
    allowed = os.sched_getaffinity(0)
    want = set(gpu_local_cpus(device)) if spec == "gpu-local" else parse_cpulist(spec)
    cpus = sorted(want & allowed)
    if not cpus:
        raise ValueError(f"RunConfig.child_cpus {spec!r}: no CPU of {sorted(want) or 'it'} is "
                         f"available here (allowed: {sorted(allowed)})")
    return cpus
