"""CMP-09 work pruning: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import (Node, ProgramModel, enclosing_loops, line, nodes_of, strip,
                                subscript_indices)


_VOTES = {"__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__all_sync",
          "__any_sync", "__ballot_sync", "__all", "__any"}

INTEGRAL = {"int", "unsigned", "unsigned int", "bool", "char", "unsigned char", "signed char",
            "short", "unsigned short", "uint8_t", "int8_t", "uint32_t", "int32_t", "uint16_t",
            "int16_t"}


def _body_stmt(node: Node | None) -> Node | None:
    """The single jump statement of an if consequence (``return;``, ``{ ...; return; }``)."""
    if node is None:
        return None
    if node.type == "compound_statement":
        kids = [c for c in node.named_children if c.type != "comment"]
        return kids[-1] if kids and kids[-1].type in (
            "return_statement", "continue_statement", "break_statement") else None
    return node if node.type in ("return_statement", "continue_statement",
                                 "break_statement") else None


class WorkPruning(Detector):
    id = "CMP-09"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        inputs = self._input_buffers(model)
        for fn in model.reachable_kernels():
            if fn.body is None:
                continue
            for n in model.fn_nodes(fn, "if_statement"):
                jump = _body_stmt(n.child_by_field_name("consequence"))
                if jump is None or not model.is_reachable(n):
                    continue
                cond = n.child_by_field_name("condition")
                if self._flag_guard(model, fn, cond, inputs):
                    yield Finding(line(n), line(n), 0.6, None, "skip inactive element")
                elif jump.type in ("break_statement", "continue_statement") and \
                        self._bound_guard(model, fn, n, cond):
                    yield Finding(line(n), line(n), 0.55, None, "bounded search")
                elif jump.type == "break_statement" and self._vote_guard(model, fn, n, cond):
                    yield Finding(line(n), line(n), 0.55, None, "the group votes its work done")
        for fn in model.gpu_functions():
            shared = {v.name for v in model.vars_in(fn, space="shared")}
            for n in model.fn_nodes(fn, "if_statement"):
                if self._zero_skip(model, fn, n, shared) and model.is_reachable(n):
                    yield Finding(line(n), line(n), 0.55, None, "atomic of zero skipped")

    @staticmethod
    def _zero_skip(model, fn, n, shared) -> bool:
        """``if (v != 0) atomicAdd(&a[i], v)``: an atomic update that adds nothing is skipped.
        The merge of a private copy (a shared-memory bin, a partial sum accumulated in a loop)
        belongs to the privatisation (PAR-05)."""
        cond = strip(n.child_by_field_name("condition"))
        body = n.child_by_field_name("consequence")
        if cond is None or body is None or n.child_by_field_name("alternative") is not None or \
                cond.type != "binary_expression" or \
                model.text_of(cond.child_by_field_name("operator")) != "!=":
            return False
        sides = [strip(cond.child_by_field_name(k)) for k in ("left", "right")]
        zero = [x for x in sides if x is not None and x.type == "number_literal" and
                model.text_of(x).rstrip("fFuUlL").strip("0.") == ""]
        value = [x for x in sides if x is not None and x not in zero]
        if len(zero) != 1 or len(value) != 1:
            return False
        names = model.identifiers(value[0])
        if any(model.array_name(a) in shared for name in names
               for d in model.initialisers(fn, name) for a in nodes_of(d, "subscript_expression")) \
                or any(op in ("+=", "-=") for name in names
                       for op, _ in model.local_defs_op(fn, name)):
            return False  # a private copy or a partial sum flushed: the merge, not pruning
        calls = [c for c in model.calls_in() if c.category == "atomic" and
                 body.start_byte <= c.node.start_byte < body.end_byte]
        stmts = [x for x in (body.named_children if body.type == "compound_statement" else [body])
                 if x.type != "comment"]
        return len(calls) == 1 == len(stmts) and len(calls[0].args) >= 2 and \
            model.text_of(value[0]) in calls[0].args[1]

    def _flag_guard(self, model, fn, cond, inputs) -> bool:
        node = strip(cond)
        if node is not None and node.type == "unary_expression" and \
                model.text_of(node.child_by_field_name("operator")) == "!":
            node = strip(node.child_by_field_name("argument"))
        elif node is not None and node.type == "binary_expression" and \
                model.text_of(node.child_by_field_name("operator")) in ("==", "!="):
            lhs, rhs = strip(node.child_by_field_name("left")), strip(node.child_by_field_name("right"))
            if rhs is not None and model.text_of(rhs) in ("0", "1", "true", "false"):
                node = lhs
            elif lhs is not None and model.text_of(lhs) in ("0", "1", "true", "false"):
                node = rhs
            else:
                return False
        if node is None or node.type != "subscript_expression":
            return False
        arr = model.array_name(node)
        params = [p.name for p in fn.params]
        if arr not in params:
            return False
        t = model.types.type_of(fn, arr)
        if t is None or t[0] not in INTEGRAL:
            return False
        if not any(model.uses_thread_index(ix) for ix in subscript_indices(node)):
            return False
        pos = params.index(arr)
        args = [(model.launch_arg_texts(la), la) for la in model.launches_of(fn.name)]
        return bool(args) and all(pos < len(a) and a[pos].split("+")[0].strip("&*() ") not in
                                  inputs.get(la.caller, set()) for a, la in args)

    @staticmethod
    def _input_buffers(model) -> dict[str, set[str]]:
        """Per host function, device buffers filled from that function's own parameters."""
        out: dict[str, set[str]] = {}
        for c in model.calls_in():
            fn = model.function_of(c.function) if c.function else None
            if fn is None or c.category not in ("copy", "copy_async") or len(c.args) < 2:
                continue
            params = {p.name for p in fn.params}
            src = c.args[1].split("+")[0].strip("&*() ")
            if src in params:
                out.setdefault(fn.name, set()).add(c.args[0].split("+")[0].strip("&*() "))
        return out

    @staticmethod
    def _vote_guard(model, fn, if_node, cond) -> bool:
        """``if (__syncthreads_count(done) == BLOCK) break;`` (or a warp vote, directly or
        through a local assigned from it in the loop) where ``done`` is set inside the loop:
        the block or warp stops once every thread's remaining work cannot matter."""
        loops = enclosing_loops(if_node, fn)
        if not loops:
            return False
        loop = loops[0]
        in_loop = [(name, value) for name, value, node in model.assignments(fn)
                   if loop.start_byte <= node.start_byte < loop.end_byte]
        votes = [strip(cond)] + [value for name, value in in_loop
                                 if name in model.identifiers(cond)]
        set_in_loop = {name for name, _ in in_loop}
        for v in votes:
            for call in nodes_of(v, "call_expression"):
                if model.text_of(call.child_by_field_name("function")) not in _VOTES:
                    continue
                args = call.child_by_field_name("arguments")
                if args is not None and model.identifiers(args) & set_in_loop:
                    return True
        return False

    def _bound_guard(self, model, fn, if_node, cond) -> bool:
        loops = enclosing_loops(if_node, fn)
        node = strip(cond)
        if not loops or node is None or node.type != "binary_expression" or \
                model.text_of(node.child_by_field_name("operator")) not in ("<", ">", "<=", ">="):
            return False
        lhs, rhs = strip(node.child_by_field_name("left")), strip(node.child_by_field_name("right"))
        for acc, bound in ((lhs, rhs), (rhs, lhs)):
            if acc is None or bound is None or acc.type != "identifier":
                continue
            if bound.type in ("number_literal",) or model.eval_int(bound, fn) is not None:
                continue
            name = model.text_of(acc)
            accumulated = any(
                model.text_of(a.child_by_field_name("left")) == name and
                model.text_of(a.child_by_field_name("operator")) in ("+=", "-=", "*=")
                for a in nodes_of(loops[0], "assignment_expression"))
            bnames = model.identifiers(bound)
            bound_var = any(
                model.text_of(a.child_by_field_name("left")) in bnames
                for a in model.fn_nodes(fn, "assignment_expression")) or \
                any(True for _ in nodes_of(bound, "subscript_expression"))
            if accumulated and bound_var and not model.uses_thread_index(bound):
                return True
        return False
