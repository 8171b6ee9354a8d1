"""Tagging in worker processes, each file under a time and a memory bound.

A worker is forked once with everything the tagger needs already loaded and then tags one file
at a time. The parent gives each file a deadline and watches the worker's resident memory; a
worker over either bound is killed, the file gets an error that says which bound and how to
raise it, and a fresh worker takes the next file. A worker that dies on its own (a crash in
libclang) has its file tried once more without the libclang index.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import resource
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import wait

from strategylens.tag.file import FileResult

POLL_S = 0.05


@dataclass(frozen=True)
class Bounds:
    """Per-file limits: wall-clock seconds and resident memory in MiB (None or 0: none)."""

    timeout_s: float | None = 60.0
    memory_mib: int | None = 2048

    @property
    def any(self) -> bool:
        return bool(self.timeout_s) or bool(self.memory_mib)


def _rss_mib(pid: int) -> float:
    """Resident memory of a process in MiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def _serve(conn, tag: Callable[[str, bytes, bool], FileResult], memory_mib: int | None) -> None:
    """A worker: tag each (path, data, index) received until None arrives."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    # fresh stdio objects: a lock held by a thread of the parent at fork time stays held here
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    if memory_mib:  # a hard backstop beside the parent's watch: address space now + the bound
        try:
            with open("/proc/self/statm") as fh:
                now = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            cap = now + int(memory_mib * 1.5 * 2**20)
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        except (OSError, ValueError):
            pass
    while True:
        try:
            item = conn.recv()
        except EOFError:
            return
        if item is None:
            return
        path, data, index = item
        try:
            result = tag(path, data, index)
        except MemoryError:
            result = FileResult(path, False, "__memory__")
        if "MemoryError" in (result.error or "") or any("MemoryError" in w
                                                         for w in result.warnings):
            result = FileResult(path, False, "__memory__")
        conn.send(result)


class _Worker:
    def __init__(self, ctx, tag, memory_mib) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, tag, memory_mib), daemon=True)
        self.proc.start()
        child.close()
        self.item: tuple | None = None
        self.started = 0.0

    def give(self, item: tuple) -> None:
        self.item, self.started = item, time.monotonic()
        self.conn.send(item)

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()


def too_slow(path: str, bounds: Bounds) -> str:
    return (f"{path}: not tagged: took longer than the {bounds.timeout_s:g} s limit for one "
            "file; raise it with --timeout SECONDS (0: no limit) or tag it with --no-index")


def too_big(path: str, bounds: Bounds) -> str:
    return (f"{path}: not tagged: needed more than the {bounds.memory_mib} MiB memory limit "
            "for one file; raise it with --max-memory MIB (0: no limit)")


def run_bounded(items: Sequence[tuple[str, bytes]], tag: Callable[[str, bytes, bool], FileResult],
                jobs: int, bounds: Bounds, index: bool) -> Iterator[FileResult]:
    """Tag ``(path, data)`` items in ``jobs`` forked workers, yielding results as they finish.

    ``tag(path, data, index)`` runs in the worker; the detectors it closes over are inherited
    at fork time, so nothing needs to pickle but the result.
    """
    ctx = mp.get_context("fork")
    todo = deque((p, d, index) for p, d in items)
    retried: dict[str, str] = {}  # path -> how its first worker died
    workers: list[_Worker] = []
    try:
        while todo or any(w.item is not None for w in workers):
            while todo and sum(w.item is None for w in workers) == 0 and len(workers) < jobs:
                workers.append(_Worker(ctx, tag, bounds.memory_mib))
            for w in workers:
                if w.item is None and todo:
                    w.give(todo.popleft())
            busy = [w for w in workers if w.item is not None]
            ready = wait([w.conn for w in busy], timeout=POLL_S)
            now = time.monotonic()
            for w in busy:
                path = w.item[0]
                result = None
                if w.conn in ready:
                    try:
                        result = w.conn.recv()
                    except (EOFError, OSError):
                        result = None
                    if result is not None:
                        w.item = None
                        if result.error == "__memory__":
                            result = FileResult(path, False, too_big(path, bounds))
                        if path in retried:
                            result.warnings.append(f"{path}: the tagger crashed "
                                                   f"({retried[path]}); tagged again without "
                                                   "the libclang index")
                        yield result
                        continue
                    # the worker died with the file in hand
                    w.proc.join(timeout=5)
                    code = w.proc.exitcode
                    item, w.item = w.item, None
                    w.kill()
                    workers.remove(w)
                    how = f"signal {-code}" if code is not None and code < 0 else f"exit {code}"
                    if item[2] and path not in retried:
                        retried[path] = how
                        todo.appendleft((item[0], item[1], False))
                        continue
                    yield FileResult(path, False, f"{path}: not tagged: the tagger crashed "
                                                  f"({how}), also without the libclang index")
                    continue
                over_time = bounds.timeout_s and now - w.started > bounds.timeout_s
                over_memory = bounds.memory_mib and _rss_mib(w.proc.pid) > bounds.memory_mib
                if over_time or over_memory:
                    w.item = None
                    w.kill()
                    workers.remove(w)
                    yield FileResult(path, False, too_slow(path, bounds) if over_time
                                     else too_big(path, bounds))
    finally:
        for w in workers:
            try:
                w.conn.send(None)
            except OSError:
                pass
        for w in workers:
            w.proc.join(timeout=1)
            w.kill()
