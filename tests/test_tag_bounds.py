"""The per-file time and memory bounds of tagging: a file over either is killed with an error
that names the bound and the flag to raise it, and the files after it are still tagged."""

from __future__ import annotations

import time

from strategylens.tag import Bounds, FileResult
from strategylens.tag.workers import run_bounded


def slow_or_big(path: str, data: bytes, index: bool) -> FileResult:
    if path == "slow.cu":
        time.sleep(30)
    if path == "big.cu":
        hog = bytearray(600 * 2**20)  # touched pages count as resident memory
        for i in range(0, len(hog), 4096):
            hog[i] = 1
    return FileResult(path, True)


def test_a_file_over_the_time_bound_is_stopped_and_the_rest_tagged():
    start = time.monotonic()
    results = {r.path: r for r in run_bounded([("slow.cu", b""), ("ok.cu", b"")], slow_or_big,
                                              1, Bounds(timeout_s=1.0, memory_mib=None), True)}
    assert time.monotonic() - start < 20
    assert results["ok.cu"].ok
    assert results["slow.cu"].error == (
        "slow.cu: not tagged: took longer than the 1 s limit for one file; raise it with "
        "--timeout SECONDS (0: no limit) or tag it with --no-index")


def test_a_file_over_the_memory_bound_is_stopped_and_the_rest_tagged():
    results = {r.path: r for r in run_bounded([("big.cu", b""), ("ok.cu", b"")], slow_or_big,
                                              1, Bounds(timeout_s=60, memory_mib=200), True)}
    assert results["ok.cu"].ok
    assert results["big.cu"].error == (
        "big.cu: not tagged: needed more than the 200 MiB memory limit for one file; raise it "
        "with --max-memory MIB (0: no limit)")


def test_without_bounds_results_come_back_in_the_same_shape():
    items = [(f"f{i}.cu", b"") for i in range(5)]
    got = sorted(r.path for r in run_bounded(items, slow_or_big, 2, Bounds(None, None), True))
    assert got == [p for p, _ in items]
