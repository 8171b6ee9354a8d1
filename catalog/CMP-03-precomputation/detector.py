"""CMP-03 precomputation: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import (Node, ProgramModel, assignment_of, enclosing_loops, inside, line,
                                nodes_of, short_name, strip, subscript_indices)


MATH_CALLS = {
    "sin", "cos", "tan", "exp", "exp2", "exp10", "log", "log2", "log10", "pow", "sqrt", "cbrt",
    "atan", "atan2", "asin", "acos", "sinh", "cosh", "tanh", "erf", "erfc", "lgamma", "tgamma",
    "hypot", "rsqrt", "sincos", "sinpi", "cospi",
}


def _is_math_call(model: ProgramModel, node: Node) -> bool:
    fn = node.child_by_field_name("function")
    name = short_name(model.text_of(fn)).lstrip("_")
    return name in MATH_CALLS or (name.endswith("f") and name[:-1] in MATH_CALLS)


class Precomputation(Detector):
    id = "CMP-03"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for ln, conf, note in list(self._host_tables(model)) + list(self._setup_kernels(model)) \
                + list(self._shared_tables(model)) + list(self._block_constants(model)):
            if ln not in seen:
                seen.add(ln)
                yield Finding(ln, ln, conf, None, note)

    def _math_rhs(self, model, fn, rhs, scope) -> bool:
        """The right side calls a math function (directly or via a local defined in ``scope``)
        and reads no array."""
        if any(True for _ in nodes_of(rhs, "subscript_expression", "pointer_expression")):
            return False
        if any(_is_math_call(model, c) for c in nodes_of(rhs, "call_expression")):
            return True
        for name in model.identifiers(rhs):
            for _op, d in model.local_defs_op(fn, name):
                if scope.start_byte <= d.start_byte < scope.end_byte and \
                        not any(True for _ in nodes_of(d, "subscript_expression")) and \
                        any(_is_math_call(model, c) for c in nodes_of(d, "call_expression")):
                    return True
        return False

    def _host_tables(self, model):
        copied = set()
        for c in model.calls_in():
            if c.category in ("copy", "copy_symbol", "copy_async") and len(c.args) >= 2:
                copied |= set(c.args[1].replace("(", " ").replace(")", " ").replace(".", " ")
                              .replace("&", " ").replace("[", " ").split())
        for fn in model.reachable_functions():
            if fn.body is None or fn.is_kernel or (fn.is_device and not fn.is_host) or \
                    model.host_role(fn) not in (None, "solution", "driver"):
                continue  # set-up code computes the task's input, not a table for the task
            for n in model.fn_nodes(fn, "assignment_expression"):
                left = strip(n.child_by_field_name("left"))
                if left is None or left.type != "subscript_expression" or \
                        model.text_of(n.child_by_field_name("operator")) != "=":
                    continue
                loops = enclosing_loops(n, fn)
                if not loops or model.array_name(left) not in copied or not model.is_reachable(n):
                    continue
                if self._math_rhs(model, fn, n.child_by_field_name("right"), loops[0]):
                    yield line(n), 0.65, "host-computed table copied to the device"

    def _setup_kernels(self, model):
        kernels = model.reachable_kernels()
        for k in kernels:
            launches = model.launches_of(k.name)
            if not launches or any(la.in_loop is not None for la in launches) or k.body is None:
                continue
            gnames = model.global_names(k)
            others = set()  # buffers another kernel reads
            for la2 in model.launches_of():
                k2 = model.function_of(la2.kernel)
                if la2.kernel == k.name or k2 is None:
                    continue
                read = {x.array for x in model.accesses_in(k2) if x.is_read}
                others |= {a.strip("&* ") for a, p in zip(model.launch_arg_texts(la2), k2.params, strict=False)
                           if p.name in read}
            pnames = [p.name for p in k.params]
            for n in model.fn_nodes(k, "assignment_expression"):
                left = strip(n.child_by_field_name("left"))
                if left is None or left.type != "subscript_expression":
                    continue
                arr = model.array_name(left)
                if arr not in gnames or arr not in pnames or not model.is_reachable(n):
                    continue
                rhs = n.child_by_field_name("right")
                if model.reads_global(k, rhs, gnames) or \
                        not self._math_rhs(model, k, rhs, k.body):
                    continue
                pos = pnames.index(arr)
                if any(pos < len(model.launch_arg_texts(la)) and
                       model.launch_arg_texts(la)[pos].strip("&* ") in others for la in launches):
                    yield line(n), 0.6, f"setup kernel {k.name} fills a table"

    def _shared_tables(self, model):
        for fn in model.reachable_kernels():
            if fn.body is None:
                continue
            gnames = model.global_names(fn)
            for v in model.vars_in(fn, space="shared"):
                if not v.dims:
                    continue
                writes, reads, self_update = model.shared_array_uses(fn, v.name)
                if self_update or not reads:
                    continue
                looped = [r for r in reads if any(not inside(w, lp) for w in writes
                                                  for lp in enclosing_loops(r, fn))]
                for w in writes:
                    rhs = assignment_of(w).child_by_field_name("right")
                    if model.reads_global(fn, rhs, gnames) or not model.is_reachable(w):
                        continue
                    if self._math_rhs(model, fn, rhs, fn.body):
                        yield line(w), 0.6, f"per-block table {v.name}"
                    elif looped and model.computed(fn, rhs) and model.first_thread_guarded(fn, w) \
                            and not any(True for _ in nodes_of(rhs, "call_expression")) and \
                            not model.uses_thread_index(w):
                        # built once by one thread, then read in a loop over the elements
                        yield line(w), 0.55, f"per-block table {v.name}"

    def _block_constants(self, model):
        """The block's first thread computes a value into a __shared__ variable (a math call, a product, a
        quotient or a shift, from parameters, global reads and locals), a barrier follows and
        the block reads it: computed once per block instead of by every thread. Plain loads,
        index sums, and values made from reductions or other shared data (a norm broadcast)
        do not count."""
        for fn in model.reachable_kernels():
            if fn.body is None:
                continue
            shared = {v.name for v in model.vars_in(fn, space="shared")}
            barriers = [c.node for c in model.calls_in(fn) if model.is_barrier(c.node)]
            for n in model.fn_nodes(fn, "assignment_expression"):
                left = strip(n.child_by_field_name("left"))
                name = model.text_of(left) if left is not None and left.type == "identifier" \
                    else model.array_name(left) if left is not None and \
                    left.type == "subscript_expression" else None
                rhs = n.child_by_field_name("right")
                if name not in shared or model.text_of(n.child_by_field_name("operator")) != "=" \
                        or not model.is_reachable(n) or not model.first_thread_guarded(fn, n) \
                        or not any(b.start_byte > n.end_byte for b in barriers) \
                        or not self._computes(model, rhs) \
                        or not self._plain_inputs(model, fn, rhs, shared):
                    continue
                if any(model.text_of(x) == name and x.start_byte > n.end_byte and
                       not model.single_thread_guarded(fn, x)
                       for x in model.fn_nodes(fn, "identifier")):
                    yield line(n), 0.5, f"per-block value {name} computed once"

    @staticmethod
    def _computes(model, rhs) -> bool:
        """A math call, or a product, quotient or shift outside subscripts (``a[t * n + u]``
        is an address)."""
        if any(_is_math_call(model, c) for c in nodes_of(rhs, "call_expression")):
            return True
        indices = [i for s in nodes_of(rhs, "subscript_expression") for i in subscript_indices(s)]
        return any(model.text_of(b.child_by_field_name("operator")) in ("*", "/", "<<") and
                   not any(i.start_byte <= b.start_byte < i.end_byte for i in indices)
                   for b in nodes_of(rhs, "binary_expression"))

    @staticmethod
    def _plain_inputs(model, fn, rhs, shared) -> bool:
        """``rhs`` and the locals it uses (two levels) call nothing but math functions and read
        no shared data."""
        exprs, seen = [rhs], set()
        for _ in range(3):
            nxt = []
            for e in exprs:
                if any(not _is_math_call(model, c) for c in nodes_of(e, "call_expression")) or \
                        model.identifiers(e) & shared:
                    return False
                for name in model.identifiers(e) - seen:
                    seen.add(name)
                    nxt += [r for _, r in model.local_defs_op(fn, name)]
            exprs = nxt
        return True
