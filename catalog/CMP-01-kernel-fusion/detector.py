"""CMP-01 kernel fusion: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model.categories import reduction_helper
from strategylens.model import (UNKNOWN, Function, LOOP_TYPES, ProgramModel, assignment_of,
                                enclosing_loops, line, nodes_of, short_name, strip,
                                subscript_indices)


def _fn_name_line(fn: Function) -> int:
    """Line of the kernel's name in its declarator."""
    decl = fn.node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    if decl is not None:
        name = decl.child_by_field_name("declarator")
        if name is not None:
            return line(name)
    return fn.line_start


class KernelFusion(Detector):
    id = "CMP-01"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        for fn in model.reachable_kernels():
            if fn.body is None:
                continue
            gnames = model.global_names(fn)
            handoffs = self._shared_handoffs(model, fn, gnames)
            reduced = self._reduced_consumers(model, fn, gnames)
            steps = self._time_steps(model, fn)
            stages = max(1 + max(handoffs, reduced), steps)
            if stages >= 2:
                conf = 0.7 if handoffs and reduced else (0.6 if handoffs else 0.65)
                ln = _fn_name_line(fn)
                yield Finding(ln, ln, conf, float(stages),
                              f"{stages} stages in one kernel (intermediate on chip)")

    # -- shape 1 ---------------------------------------------------------------------------
    def _shared_handoffs(self, model, fn, gnames) -> int:
        syncs = [c.start_byte for c in model.fn_nodes(fn, "call_expression")
                 if model.is_barrier(c)]
        count = 0
        for v in model.vars_in(fn, space="shared"):
            if not v.dims and not v.extern:
                continue
            writes, reads, self_update = model.shared_array_uses(fn, v.name)
            if self_update or not writes or not reads:
                continue
            made = []
            for w in writes:
                rhs = assignment_of(w).child_by_field_name("right")
                if model.computed(fn, rhs) and model.reads_global(fn, rhs, gnames) \
                        and not model.single_thread_guarded(fn, w):
                    made.append(w)
            if not made:
                continue
            wtexts = {model.text_of(w) for w in writes}
            first = min(w.start_byte for w in made)
            # the next stage: each thread reads other threads' values around its own position
            # (a read by one thread, or a loop over the whole array, is a reduction instead; a
            # read at a position found from the data, as by a search, is a lookup)
            if any(r.start_byte > first and model.text_of(r) not in wtexts and
                   any(first < s < r.start_byte for s in syncs) and
                   model.uses_thread_index(r) and not model.single_thread_guarded(fn, r)
                   and self._affine_read(model, fn, r) for r in reads):
                count += 1
        return count

    @staticmethod
    def _affine_read(model, fn, read) -> bool:
        """A shared read whose indices are affine in the thread index (``s[tid - 1]``)."""
        return read.type != "subscript_expression" or all(
            model.linear_tx(ix, fn)[0] is not UNKNOWN for ix in subscript_indices(read))

    # -- shape 3 ---------------------------------------------------------------------------
    def _time_steps(self, model, fn) -> int:
        """Several update steps inside one kernel: a loop with a barrier whose body writes a
        shared array from neighbouring shared elements at constant offsets (temporal blocking).
        Reduction trees and scans read at an offset that changes with the loop and are left out.
        Returns the number of steps fused (the trip count when known, else 2), or 0."""
        shared = {v.name for v in model.vars_in(fn, space="shared")}
        for lp in model.loops_in(fn):
            if not lp.has_sync or lp.var is None:
                continue
            for n in nodes_of(lp.node.child_by_field_name("body"), "assignment_expression"):
                left = strip(n.child_by_field_name("left"))
                if left is None or left.type != "subscript_expression" or \
                        model.array_name(left) not in shared:
                    continue
                rhs = n.child_by_field_name("right")
                idx = set()
                for sub in nodes_of(rhs, "subscript_expression"):
                    if sub.parent is not None and sub.parent.type == "subscript_expression":
                        continue  # the a[i] inside a[i][j]
                    if model.array_name(sub) in shared and subscript_indices(sub):
                        last = subscript_indices(sub)[-1]
                        if lp.var in model.identifiers(last):
                            idx = set()
                            break
                        idx.add(model.text_of(last).replace(" ", ""))
                if len(idx) >= 3 and model.computed(fn, rhs):
                    return lp.trip_count if lp.trip_count and lp.trip_count > 1 else 2
        return 0

    # -- shape 2 ---------------------------------------------------------------------------
    def _reduced_consumers(self, model, fn, gnames) -> int:
        shared = {v.name: v for v in model.vars_in(fn, space="shared")}
        workspaces = {name for name, v in shared.items()
                      if (v.dims or v.extern) and model.shared_array_uses(fn, name)[2]}
        scalars = {name for name, v in shared.items() if not v.dims and not v.extern}

        def reduced_read(node) -> bool:
            for s in nodes_of(node, "subscript_expression"):
                if model.array_name(s) in workspaces and all(
                        model.eval_int(ix, fn) is not None for ix in subscript_indices(s)):
                    return True
            for c in nodes_of(node, "call_expression"):
                name = short_name(model.text_of(c.child_by_field_name("function")))
                args = c.child_by_field_name("arguments")
                if name in ("__shfl_sync", "__shfl") and args is not None and \
                        args.named_child_count >= 3 and \
                        model.eval_int(args.named_children[2], fn) == 0:
                    return True
            return bool(model.identifiers(node) & scalars)

        # a scalar that one thread loads from global data: a later loop must read that data
        # again (the smallest size, then the sizes scaled), not other arrays
        scalar_writes = {name: [w for w in model.fn_nodes(fn, "assignment_expression")
                                if model.text_of(w.child_by_field_name("left")) == name]
                         for name in scalars}
        sources: dict[str, set[str] | None] = {}
        for name, writes in scalar_writes.items():
            rhs = [w.child_by_field_name("right") for w in writes]
            found = {model.array_name(a) for v in rhs + [d for r in rhs
                                                          for x in model.identifiers(r)
                                                          for d in model.local_defs(fn, x)]
                     for a in nodes_of(v, "subscript_expression")} & gnames
            sources[name] = found or None
        # names holding a block-reduced value, and the earliest point each becomes available
        reduced: dict[str, int] = {}
        # butterfly reductions leave the total in every lane: v += __shfl_xor_sync(m, v, o)
        for n in model.fn_nodes(fn, "assignment_expression"):
            left = n.child_by_field_name("left")
            if left is None or left.type != "identifier":
                continue
            calls = [short_name(model.text_of(c.child_by_field_name("function")))
                     for c in nodes_of(n.child_by_field_name("right"), "call_expression")]
            loops = enclosing_loops(n, fn)
            if loops and any(c in ("__shfl_xor_sync", "__shfl_xor") for c in calls):
                reduced.setdefault(model.text_of(left), loops[0].end_byte)
        # reduction helpers from a header the file lacks (warp_reduce_sum(v), block_reduce<..>
        # (v, buf)): the value they return, or the variable they reduce in place
        helpers = {c.node.id: c for c in model.calls_in(fn)
                   if reduction_helper(c.name) is not None}
        for c in helpers.values():
            p = c.node.parent
            if p is not None and p.type == "expression_statement":
                for a in reversed(c.node.child_by_field_name("arguments").named_children):
                    if a.type == "identifier" and model.text_of(a) not in scalars:
                        reduced.setdefault(model.text_of(a), c.node.end_byte)
                        break
        for n in model.fn_nodes(fn, "init_declarator", "assignment_expression"):
            if n.type == "init_declarator":
                d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            else:
                d, v = n.child_by_field_name("left"), n.child_by_field_name("right")
            if d is None or d.type != "identifier" or v is None or \
                    model.text_of(d) in scalars:
                continue
            if reduced_read(v) or model.identifiers(v) & set(reduced) or any(
                    c.id in helpers for c in nodes_of(v, "call_expression")):
                reduced.setdefault(model.text_of(d), n.end_byte)
                from_scalars = [sources.get(x) for x in model.identifiers(v) & scalars]
                if from_scalars and all(from_scalars):
                    sources.setdefault(model.text_of(d), set().union(*from_scalars))
        consumers = 0
        for name, after in reduced.items():
            if self._consumed(model, fn, gnames, {name}, after, sources.get(name)):
                consumers += 1
        for name in scalars:
            writes = scalar_writes[name]
            # with its sources, once it is complete (its fields too: s.x = min(s.x, v.x))
            after = min(w.end_byte for w in writes) if writes else 0
            if writes and sources.get(name):
                after = max(w.end_byte for w in model.fn_nodes(fn, "assignment_expression")
                            if model.text_of(w.child_by_field_name("left")).split(".")[0] == name)
            if writes and self._consumed(model, fn, gnames, {name}, after, sources.get(name)):
                consumers += 1
        return consumers

    def _consumed(self, model, fn, gnames, names, after, only=None) -> bool:
        """Whether a loop or statement after ``after`` reads global data (one of ``only`` when
        given) and uses ``names``."""
        gnames = gnames if only is None else gnames & only
        loops = {(lp.node.start_byte, lp.node.end_byte): lp for lp in model.loops_in(fn)}
        for st in model.fn_nodes(fn, *LOOP_TYPES):
            lp = loops.get((st.start_byte, st.end_byte))
            if st.start_byte < after or lp is None or lp.var is None or \
                    not (model.identifiers(st) & names):
                continue
            for s in nodes_of(st, "subscript_expression", "pointer_expression"):
                if model.array_name(s) in gnames and assignment_of(s) is None and \
                        lp.var in model.identifiers(s):
                    return True
            # reads through a load helper at an offset computed in the loop (gamma + idx)
            inner = {lp.var} | {model.text_of(d.child_by_field_name("declarator"))
                                for d in nodes_of(st, "init_declarator")}
            for a in model.accesses_in(fn):
                if a.space == "global" and a.is_read and not a.is_write and \
                        a.node.type != "subscript_expression" and \
                        st.start_byte <= a.node.start_byte < st.end_byte and \
                        a.index_node is not None and model.identifiers(a.index_node) & inner:
                    return True
        return False
