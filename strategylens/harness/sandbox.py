"""The parent's handle on one child process: start it isolated, talk to it, enforce the limits.

The child runs in an empty temporary directory with a minimal environment, the file-access shim
preloaded, and (inside, before the solution loads) Landlock limited to :func:`allowed_paths`.
Requests and replies are JSON lines over a dedicated pipe pair, so a solution printing to
stdout cannot corrupt the protocol; its stdout and stderr go to files that are reported. The
parent enforces a wall-clock limit per call and per solution and size, and a memory limit by
watching the child's RSS (RLIMIT_AS breaks CUDA's address-space reservations).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from strategylens.harness.build import name_launches
from strategylens.resources import PACKAGE_DIR, SOURCE_ROOT, TASKS_DIR, cache_root

CHILD_COMMAND = "from strategylens.harness.child import child_main; child_main()"
SHIM_LINES_MAX = 5000  # per read of the shim pipe


class ChildFailed(Exception):
    """The child ended or misbehaved; ``reason`` is the recorded cause."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


def allowed_paths(cuda_home: Path) -> list[str]:
    """Trees the child may read under Landlock: system libraries, Python, CUDA, this package.

    The checkout (tasks, caches), the bundled tasks and every other temporary directory stay
    out of reach, unless one lies inside an allowed tree (a wheel's bundled tasks lie inside
    the Python prefix: the shim still reports any file the solution opens there).
    """
    roots = {"/usr", "/lib", "/lib64", "/etc", "/opt", "/proc", "/sys", "/dev", str(cuda_home),
             sys.prefix, sys.base_prefix, str(PACKAGE_DIR)}
    secret = [SOURCE_ROOT.resolve(), TASKS_DIR.resolve(), cache_root().resolve()]
    for p in sys.path:
        if not p or not Path(p).is_dir():
            continue
        rp = Path(p).resolve()
        if any(rp == s or s.is_relative_to(rp) or rp.is_relative_to(s) for s in secret):
            continue  # the repository and the caches (expected outputs) stay unreadable
        roots.add(str(rp))
    return sorted(roots)


def read_rss(pid: int) -> int:
    """Resident memory of a process not counting shared memory (the harness's input buffers,
    which the child maps whole when they stay resident), in bytes."""
    rss = shmem = 0
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("RssShmem:"):
                    shmem = int(line.split()[1]) * 1024
    except OSError:
        pass
    return rss - shmem


class Child:
    """One child process and its protocol, limits and logs.

    ``limits`` is any object with ``call_timeout_s``, ``solution_timeout_s`` and
    ``mem_limit_bytes`` (a :class:`~strategylens.harness.session.RunConfig`). ``memfds`` are
    the shared buffers the child maps (passed at start, named in ``setup["layouts"]``);
    ``copy_in`` maps paths inside the child's folder to files copied there first (an AccelEval
    adapter's data_dir).
    """

    def __init__(self, native: dict[str, Path], setup: dict, limits,
                 memfds: list[int] = (), copy_in: dict[str, Path] | None = None) -> None:
        self.cfg = limits
        self.workdir = Path(tempfile.mkdtemp(prefix="sl-child-"))
        for rel, src in (copy_in or {}).items():  # files the solution's side may read
            dst = self.workdir / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
        req_r, self.req_w = os.pipe()
        self.resp_r, resp_w = os.pipe()
        self.shim_r, shim_w = os.pipe()
        pass_fds = [req_r, resp_w, shim_w, *memfds]
        if setup.get("landlock"):
            setup["rw_paths"] = list(setup.get("rw_paths", [])) + [str(self.workdir)]
        self.so_path = setup.get("so_path")  # the build's library, for naming launches
        if setup.get("so_path"):  # the solution loads from the child's own directory
            local = self.workdir / "solution.so"
            shutil.copy2(setup["so_path"], local)
            setup["so_path"] = str(local)
        env = {
            "PATH": "/usr/bin:/bin", "HOME": str(self.workdir), "TMPDIR": str(self.workdir),
            "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": os.pathsep.join([str(SOURCE_ROOT)] + [
                p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
            "SL_PROTO_FDS": f"{req_r},{resp_w}", "SL_SHIM_FD": str(shim_w),
            "LD_PRELOAD": str(native["slshim"]), "CUDA_MODULE_LOADING": "LAZY",
        }
        for k in ("LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "NCCL_NVLS_ENABLE"):
            if k in os.environ:
                env[k] = os.environ[k]
        self.stdout_path = self.workdir.parent / f"{self.workdir.name}.stdout"
        self.stderr_path = self.workdir.parent / f"{self.workdir.name}.stderr"
        with open(self.stdout_path, "wb") as so, open(self.stderr_path, "wb") as se:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", CHILD_COMMAND],
                cwd=self.workdir, env=env, stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                pass_fds=pass_fds, start_new_session=True)
        for fd in (req_r, resp_w, shim_w):
            os.close(fd)
        self.shim_lines: list[str] = []
        self.load_lines: int | None = None  # how many of them the load logged (set by a session)
        self._shim_thread = threading.Thread(target=self._drain_shim, daemon=True)
        self._shim_thread.start()
        self._buf = b""
        self._kept: dict = {}
        self.started = time.monotonic()
        self.send(dict(setup, slchild=str(native["slchild"])))

    def _drain_shim(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self.shim_r, 65536)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            self.shim_lines += [ln.decode(errors="replace") for ln in lines[:SHIM_LINES_MAX]]

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def restart_clock(self) -> None:
        """Start the per-solution-and-size wall-clock limit again (a new size in this child)."""
        self.started = time.monotonic()

    def send(self, msg: dict) -> int:
        data = (json.dumps(msg) + "\n").encode()
        t = time.perf_counter_ns()
        try:
            os.write(self.req_w, data)
        except BrokenPipeError:
            raise ChildFailed(*self._death()) from None
        return t

    def recv(self, timeout_s: float | None = None) -> tuple[dict, int]:
        """Next reply and the parent's clock when its last byte arrived."""
        timeout_s = self.cfg.call_timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + timeout_s
        t = time.perf_counter_ns()  # a reply already buffered arrived no later than now
        while b"\n" not in self._buf:
            now = time.monotonic()
            if now > deadline:
                self.kill()
                raise ChildFailed("timeout", f"no reply within {timeout_s:.0f} s")
            if now - self.started > self.cfg.solution_timeout_s:
                self.kill()
                raise ChildFailed("timeout", f"solution exceeded {self.cfg.solution_timeout_s:.0f} s")
            ready, _, _ = select.select([self.resp_r], [], [], min(0.05, deadline - now))
            if not ready:
                if read_rss(self.proc.pid) > self.cfg.mem_limit_bytes:
                    self.kill()
                    raise ChildFailed("memory-limit",
                                      f"resident memory over {self.cfg.mem_limit_bytes >> 20} MiB "
                                      "(shared input buffers not counted)")
                continue
            chunk = os.read(self.resp_r, 1 << 20)
            t = time.perf_counter_ns()
            if not chunk:
                raise ChildFailed(*self._death())
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            msg = json.loads(line)
            if not isinstance(msg, dict) or "op" not in msg:
                raise ValueError("not a reply")
        except ValueError:
            self.kill()
            raise ChildFailed("protocol-garbage", repr(line[:200])) from None
        if msg["op"] == "error":
            self.kill()
            raise ChildFailed(msg.get("reason", "error"), msg.get("detail", ""))
        return msg, t

    def _death(self) -> tuple[str, str]:
        """Why the child ended: ``crash`` (a signal) or ``exit`` (a status), with what it left
        behind: the CUDA errors the shim saw (failed launches, errors the solution read), the
        end of its stderr and of its stdout (an error macro may print to either)."""
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            rc = self.proc.wait()
        self._shim_thread.join(timeout=2)  # the shim pipe ends with the child
        if rc < 0:
            name = signal.Signals(-rc).name if -rc in signal.valid_signals() else str(-rc)
            head, reason = f"killed by {name}", "crash"
        else:
            head, reason = f"child exited with status {rc} mid-run", "exit"
        parts = [head]
        cuda = self.cuda_errors()
        if cuda:
            parts.append("CUDA: " + " | ".join(cuda[-4:]))
        err, out = self.stderr_tail(), self.stdout_tail()
        if err:
            parts.append(f"stderr: {err}")
        if out:
            parts.append(f"stdout: {out}")
        return reason, "; ".join(parts)

    def cuda_errors(self) -> list[str]:
        """CUDA errors the shim logged: launches that failed, errors the solution read."""
        return name_launches([ln.partition("\t")[2] for ln in self.shim_lines
                              if ln.startswith("cuda\t")], self.so_path)

    def stderr_tail(self, n: int = 600) -> str:
        """The end of the child's stderr (kept after close)."""
        if "stderr" in self._kept:
            return self._kept["stderr"][-n:]
        try:
            with open(self.stderr_path, "rb") as fh:
                fh.seek(max(0, fh.seek(0, os.SEEK_END) - n))
                return fh.read().decode(errors="replace").strip()
        except OSError:
            return ""

    def stdout_tail(self, n: int = 400) -> str:
        """The end of the solution's stdout (kept after close)."""
        if "stdout_tail" in self._kept:
            return self._kept["stdout_tail"][-n:]
        try:
            with open(self.stdout_path, "rb") as fh:
                fh.seek(max(0, fh.seek(0, os.SEEK_END) - n))
                return fh.read().decode(errors="replace").strip()
        except OSError:
            return ""

    def stdout_head(self, n: int = 300) -> tuple[int, str]:
        """Bytes the solution wrote to stdout and their start (kept after close)."""
        if "stdout" in self._kept:
            size, head = self._kept["stdout"]
            return size, head[:n]
        try:
            with open(self.stdout_path, "rb") as fh:
                return os.fstat(fh.fileno()).st_size, fh.read(n).decode(errors="replace")
        except OSError:
            return 0, ""

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send({"op": "exit"})
                self.recv(10)
            except ChildFailed:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        for fd in (self.req_w, self.resp_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self._shim_thread.join(timeout=2)
        try:
            os.close(self.shim_r)
        except OSError:
            pass
        shutil.rmtree(self.workdir, ignore_errors=True)
        if not self._kept:  # what stdout_head, stdout_tail and stderr_tail report from now on
            self._kept = {"stdout": self.stdout_head(), "stderr": self.stderr_tail(),
                          "stdout_tail": self.stdout_tail()}
        for p in (self.stdout_path, self.stderr_path):
            p.unlink(missing_ok=True)
