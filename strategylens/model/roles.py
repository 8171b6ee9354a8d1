"""Roles of host code in a whole program: which host functions are the solution and which are
the program around it (verification against a CPU version, input set-up, timing), and which
host loops only repeat the solution to time it.

A file whose entry point is found (``solution_compute`` by default) is all solution. A program
run from ``main`` mixes both: ``main`` is the driver (it runs once, and often holds the solution
inline); a host function that does no device work takes its role from its name (``gold_conv``,
``compareResults``: verification; ``init_array``, ``generate_input``: set-up; ``get_time``:
timing); a loop that reruns the same launches on the same inputs between two clock readings, or
up to a repetition count (``for (i < repeat)``), is a timing loop, and so is a loop whose device
work all lies in timing loops (a sweep over block sizes). Detectors about the solution's host
code look at ``solution`` and ``driver`` code only, and at no timing loop.
"""

from __future__ import annotations

import re
from functools import cached_property

from tree_sitter import Node

from strategylens.model.host import is_cub_device, is_library_compute, is_thrust_algorithm
from strategylens.model.items import Function, Launch, Loop
from strategylens.model.syntax import call_args, in_lambda, inside, walk

_VERIFY = {"verify", "verification", "validate", "validation", "valid", "check", "compare",
           "comparison", "gold", "golden", "reference", "ref", "cpu", "serial", "seq",
           "sequential", "correct", "correctness", "host", "diff", "error", "errors"}
_CHECKING = {"verify", "verification", "validate", "validation", "compare", "comparison"}
_SETUP = {"init", "initialize", "initialise", "generate", "gen", "random", "rand", "fill", "read",
          "load", "parse", "usage", "print", "dump", "write", "save", "display", "show", "setup",
          "make", "create", "argv", "populate"}
_TIMING = {"timer", "elapsed", "wtime", "rtclock", "time", "walltime", "seconds", "now", "tick",
           "tock", "benchmark", "bench", "timing", "profile"}
_CLOCKS = re.compile(r"(^|::)(now|clock|gettimeofday|clock_gettime|omp_get_wtime|MPI_Wtime|"
                     r"rtclock|cudaEventRecord|cudaEventSynchronize|sdkStartTimer|sdkStopTimer|"
                     r"cutStartTimer|cutStopTimer|QueryPerformanceCounter)$|timer|Timer|"
                     r"get_?time|wtime|[Ss]tart_?[Tt]imer|[Ss]top_?[Tt]imer|\btic$|\btoc$|"
                     r"polybench_(start|stop)_instruments")
_REPEAT = re.compile(r"^(g_)?(n_?|num_?|k_?|N)?(repeat|repeats|repetitions?|reps?|warm_?ups?|"
                     r"trials?|runs?|times|ntimes|bench\w*|timing\w*|loops?)(_\w+)?$", re.I)
_DEVICE_WORK = {"alloc", "free", "async_alloc", "copy", "copy_async", "memset", "copy_symbol",
                "coop_launch", "launch_api", "graph", "cublas", "cusparse", "cusolver", "cufft",
                "curand", "thrust", "cub"}
_PINNED_ALLOCS = {"cudaMallocHost", "cudaHostAlloc", "cudaHostRegister"}
ROLES = ("solution", "driver", "verification", "setup", "timing")


def name_words(name: str) -> list[str]:
    """The lower-case words of an identifier (``floydWarshallCPUReference`` -> ``floyd, warshall,
    cpu, reference``; ``GPU_argv_init`` -> ``gpu, argv, init``)."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    return [p.lower() for p in parts]


def role_by_name(name: str) -> str:
    """The role a host function's name suggests: a set-up verb first (``init_array``,
    ``createDataCPU``), else any verification, timing or set-up word, else ``solution``."""
    words = name_words(name)
    if words and words[0] in _SETUP:
        return "setup"
    for role, vocabulary in (("verification", _VERIFY), ("timing", _TIMING), ("setup", _SETUP)):
        if any(w in vocabulary for w in words):
            return role
    return "solution"


class HostRoles:
    """Roles of host functions and host loops (see the module docstring)."""

    @cached_property
    def _device_work_functions(self) -> set[str]:
        """Host functions that do device work, directly or through the functions they call."""
        direct = {la.caller for la in self.launches if la.caller}
        direct |= {c.function for c in self.calls
                   if c.function and c.category in _DEVICE_WORK}
        out = set(direct)
        changed = True
        while changed:
            changed = False
            for caller, callees in self.call_graph.items():
                if caller not in out and callees & out:
                    out.add(caller)
                    changed = True
        return out

    @cached_property
    def launching_functions(self) -> set[str]:
        """Host functions that launch kernels or run library compute, directly or through the
        host functions they call (``update(lattice, ...)`` wrapping two launches)."""
        out = {la.caller for la in self.launches if la.caller}
        out |= {c.function for c in self.calls if c.function and (
            is_library_compute(c) or is_thrust_algorithm(c) or is_cub_device(c))}
        kernels = {k.name for k in self.kernels}
        changed = True
        while changed:
            changed = False
            for caller, callees in self.call_graph.items():
                if caller not in out and caller not in kernels and callees & out:
                    out.add(caller)
                    changed = True
        return out - kernels

    @cached_property
    def host_roles(self) -> dict[str, str]:
        """Role of each host function: ``solution``, ``driver`` (``main`` of a whole program),
        ``verification``, ``setup`` or ``timing``."""
        roles: dict[str, str] = {}
        program = not self.entry_found or self.entry == "main"
        for fn in self._fn_list:
            if fn.is_kernel or (fn.is_device and not fn.is_host):
                continue
            roles[fn.name] = self._role_of(fn) if program else "solution"
        named = sorted(f"{n} ({r})" for n, r in roles.items() if r not in ("solution", "driver")
                       and n in self.reachable)
        if named:
            self.note("host code taken as the program around the solution, not tagged: "
                      + ", ".join(named))
        return roles

    def _role_of(self, fn: Function) -> str:
        short = fn.name.rsplit("::", 1)[-1]
        if short == "main":
            return "driver"
        if fn.name in self.launching_functions or fn.name == self.entry:
            return "solution"
        if fn.name in self._device_work_functions:  # copies or allocates but launches nothing
            if role_by_name(short) != "verification":
                return "solution"
            # allocating the solution's device or pinned buffers is set-up of the solution
            # (``cuda_check_cpu_init``), unless the name says it checks
            allocs = any(c.function == fn.name and (c.category in ("alloc", "async_alloc")
                                                    or c.name in _PINNED_ALLOCS)
                         for c in self.calls)
            checks = set(name_words(short)) & _CHECKING
            return "solution" if allocs and not checks else "verification"
        return role_by_name(short)

    def host_role(self, fn: Function | str | None) -> str | None:
        """The role of a host function (None for device code and unknown names)."""
        name = fn.name if isinstance(fn, Function) else fn
        return self.host_roles.get(name) if name else None

    def solution_code(self, node: Node) -> bool:
        """``node`` lies in solution or driver code (or outside any function)."""
        fn = self.in_function(node)
        return fn is None or self.host_roles.get(fn.name, "solution") in ("solution", "driver")

    # ----- timing loops --------------------------------------------------------------------
    @cached_property
    def timing_loops(self) -> list[Loop]:
        """Host loops that only repeat the solution to time it, and sweeps over such loops."""
        if self.entry_found and self.entry != "main":
            return []
        candidates = [lp for lp in self.loops
                      if lp.function and self.host_roles.get(lp.function) in ("solution", "driver")
                      and self._loop_launches(lp)]
        out = [lp for lp in candidates if self._repeats(lp) or self._checks(lp)]
        for lp in candidates:
            if lp in out:
                continue
            work = self._loop_launches(lp)
            if work and all(any(inside(la.node, t.node) for t in out) for la in work):
                out.append(lp)
        timed = {f for f in self.launching_functions if self._all_timed(f, out)}
        for lp in candidates:
            if lp not in out and all(getattr(w, "name", None) in timed
                                     for w in self._loop_launches(lp)):
                out.append(lp)  # a sweep over a benchmark helper: conv1D(width, ...) per width
        if out:
            lines = ", ".join(str(lp.line_start) for lp in sorted(out, key=lambda x: x.line_start))
            self.note(f"loops at lines {lines} taken as timing or warm-up repetitions, not as "
                      "iterations of the algorithm")
        return out

    def _all_timed(self, fn: str, timing: list[Loop]) -> bool:
        """Every launch of host function ``fn`` (and call of a launching helper) lies in one of
        its timing loops."""
        loops = [t for t in timing if t.function == fn]
        work = [la for la in self.launches if la.caller == fn]
        work += [c for c in self.calls if c.function == fn and c.name in self.launching_functions]
        return bool(loops and work) and all(any(inside(w.node, t.node) for t in loops)
                                            for w in work)

    def is_timing_loop(self, loop: Loop) -> bool:
        return any(loop is t for t in self.timing_loops)

    def _loop_launches(self, loop: Loop) -> list:
        """Launches in ``loop`` and calls of host functions that launch."""
        out: list = [la for la in self.launches if inside(la.node, loop.node)]
        out += [c for c in self.calls if c.name in self.launching_functions
                and c.function == loop.function and inside(c.node, loop.node)
                and not in_lambda(c.node, loop.node)]
        return out

    def _repeats(self, loop: Loop) -> bool:
        counter = {loop.var} if loop.var else set()
        launches = self._loop_launches(loop)
        if any(self.identifiers(a) & counter for la in launches for a in call_args(la.node)):
            return False  # the launches see the iteration: passes, stages, time steps
        if self._idempotent(loop, launches):
            return True  # nothing carries over from one pass to the next
        return self._repeat_bound(loop) and (self._between_clocks(loop)
                                             or self._clocked_inside(loop))

    def _checks(self, loop: Loop) -> bool:
        """Each pass runs the solution and then checks it (a correctness sweep over launch
        configurations) or hands it to a timing helper (``benchmark_kernel(repeat, f, ...)``)."""
        for c in self.calls:
            if c.function != loop.function or not inside(c.node, loop.node):
                continue
            role = self.host_roles.get(c.name)
            if role is None:  # not defined here: only plain words count (not CHECK(cudaX()))
                role = "verification" if set(name_words(c.unqualified)) & _CHECKING else \
                    "timing" if set(name_words(c.unqualified)) & {"benchmark", "bench"} else None
            if role in ("verification", "timing"):
                return True
        return False

    def _repeat_bound(self, loop: Loop) -> bool:
        cond = loop.node.child_by_field_name("condition")
        names = self.identifiers(cond) - ({loop.var} if loop.var else set())
        return any(_REPEAT.match(n) for n in names)

    def _clocked_inside(self, loop: Loop) -> bool:
        """A clock is read inside the loop (``timer.Start(); k<<<...>>>(); timer.Stop();``)."""
        return any(c.function == loop.function and inside(c.node, loop.node) and (
            _CLOCKS.search(c.name) or _CLOCKS.search(c.receiver or "")) for c in self.calls)

    def _between_clocks(self, loop: Loop) -> bool:
        """A clock is read in the same function before the loop and again after it, with no
        other loop of launches in between."""
        fn = self.function_of(loop.function)
        if fn is None:
            return False
        clocks = [c for c in self.calls if c.function == fn.name and (
            _CLOCKS.search(c.name) or _CLOCKS.search(c.receiver or ""))]
        before = [c for c in clocks if c.node.end_byte <= loop.node.start_byte]
        after = [c for c in clocks if c.node.start_byte >= loop.node.end_byte]
        if not before or not after:
            return False
        lo = max(c.node.end_byte for c in before)
        hi = min(c.node.start_byte for c in after)
        for la in self.launches:
            if la.caller == fn.name and (lo <= la.node.start_byte < loop.node.start_byte
                                         or loop.node.end_byte <= la.node.start_byte < hi):
                return False
        return True

    def _idempotent(self, loop: Loop, launches: list[Launch]) -> bool:
        """Every iteration does the same thing: no launch reads what a launch in the loop writes,
        and the body swaps no pointers and updates no variable a launch is given."""
        if not launches:
            return False
        body = loop.node.child_by_field_name("body") or loop.node
        counters = self.loop_var_names(loop)
        for c in self.calls:
            if c.function == loop.function and inside(c.node, body) and c.category in (
                    "copy", "copy_async", "memset") and any(
                        self.identifiers(a) & counters for a in call_args(c.node)):
                return False  # copies move with the loop: a chunk or batch loop
        for la in launches:
            if isinstance(la, Launch) and self.identifiers(la.node) & counters - {loop.var}:
                return False
        decide = self.continuation_vars(loop)
        for c in self.calls:
            if c.function == loop.function and inside(c.node, body) and c.category in (
                    "copy", "copy_async", "copy_symbol") and c.args and \
                    self.identifiers(call_args(c.node)[0]) & decide:
                return False  # a copy back decides whether it goes on: a convergence loop
        passed = {n for la in launches for a in call_args(la.node) for n in self.identifiers(a)}
        for n in walk(body):
            if n.type == "assignment_expression":
                if self.root_identifier(n.child_by_field_name("left")) in passed:
                    return False
            elif n.type == "call_expression" and self.text_of(
                    n.child_by_field_name("function")).endswith("swap"):
                return False
        reads: set[str] = set()
        writes: set[str] = set()
        for la in launches:
            k = self.function_of(la.kernel) if isinstance(la, Launch) else None
            if k is None:
                return False
            args = call_args(la.node)
            for i, p in enumerate(k.params):
                if i >= len(args) or not p.is_pointer:
                    continue
                root = self.root_identifier(args[i])
                w, r = self._param_use(k, p.name)
                if w:
                    writes.add(root)
                if r or not w:
                    reads.add(root)
        return not (writes & reads)

    def _param_use(self, kernel: Function, name: str) -> tuple[bool, bool]:
        """(written, read) for a pointer parameter of a kernel, from its accesses."""
        w = r = False
        for a in self.accesses:
            if a.function == kernel.name and a.array == name:
                w |= a.is_write
                r |= a.is_read
        for c in self.calls:
            if c.function != kernel.name or not any(
                    name in re.findall(r"\w+", a) for a in c.args):
                continue
            if c.category == "atomic" and name in re.findall(r"\w+", c.args[0]):
                w = True
            elif self.function_of(c.name) is not None:
                return True, True  # handed to a device helper: its use is not followed
        return w, r
