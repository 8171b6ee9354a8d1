"""CMP-04 loop unrolling: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import Node, ProgramModel, nodes_of, strip, subscript_indices, walk

_NUMBER = re.compile(r"\b0[xX][0-9a-fA-F]+[uUlL]*\b|\b\d+[uUlLfF]*\b|(?<=[A-Za-z_])\d+\b")


def _shape(text: str) -> str:
    """A statement with its numbers (and numbered names, ``dx2``) blanked: copies of one
    statement unrolled by hand have one shape."""
    return _NUMBER.sub("#", re.sub(r"\s+", "", text))


def _unrolled_runs(model, body) -> list[tuple[int, int, Node]]:
    """(line, repeats, first statement) of runs of statement groups repeated by hand in a block: at least four
    copies of one statement, or three of a group of two to eight, that differ in their numbers
    (offsets, shifts, hex masks, numbered names) and assign or call something
    (``atomicAdd(&h[(v >> 8) & 0xFF], 1)`` four times, once per byte)."""
    out = []
    for block in nodes_of(body, "compound_statement"):
        stmts = [c for c in block.named_children if c.type != "comment"]
        shapes = [_shape(model.text_of(c)) for c in stmts]
        i = 0
        while i < len(stmts):
            found = None
            for p in range(1, 9):
                r = 1
                while i + (r + 1) * p <= len(stmts) and \
                        shapes[i + r * p:i + (r + 1) * p] == shapes[i:i + p]:
                    r += 1
                need = 4 if p == 1 else 3
                group = stmts[i:i + p]
                texts = {tuple(model.text_of(c) for c in stmts[i + k * p:i + (k + 1) * p])
                         for k in range(r)}
                if r >= need and len(texts) == r and any(
                        n.type in ("assignment_expression", "init_declarator", "call_expression")
                        for c in group for n in walk(c)):
                    found = (p, r)
                    break
            if found:
                out.append((stmts[i].start_point[0] + 1, found[1], stmts[i]))
                i += found[0] * found[1]
            else:
                i += 1
    return out


class LoopUnrolling(Detector):
    id = "CMP-04"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        dev = {f.name for f in model.gpu_functions()}
        loops = sorted(model.loops, key=lambda lp: lp.line_start)
        for p in model.pragmas:
            if p.function not in dev or not model.is_reachable(p.node):
                continue
            words = p.text.split("//")[0].split("/*")[0].replace("#pragma", "").split()
            if not words or words[0] != "unroll":
                continue
            rest = " ".join(words[1:]).strip("() ")
            fn = model.function_of(p.function)
            factor = None
            if rest:
                factor = model.eval_int(rest, fn)
                if factor is not None and factor <= 1:
                    continue
            else:
                nxt = next((lp for lp in loops if lp.line_start >= p.line and
                            lp.function == p.function), None)
                factor = nxt.trip_count if nxt is not None else None
            yield Finding(p.line, p.line, 0.9, float(factor) if factor else None,
                          f"#pragma unroll {rest}".strip())
        for lp in model.loops_in():
            if lp.function not in dev or lp.var is None or not lp.step_value or \
                    lp.step_value < 4 or lp.step_op not in (None, "+"):
                continue
            offsets = set()
            for s in nodes_of(lp.node.child_by_field_name("body"), "subscript_expression"):
                for ix in subscript_indices(s):
                    ix = strip(ix)
                    if ix is None:
                        continue
                    if ix.type == "identifier" and model.text_of(ix) == lp.var:
                        offsets.add(0)
                    elif ix.type == "binary_expression" and \
                            model.text_of(ix.child_by_field_name("operator")) == "+" and \
                            model.text_of(strip(ix.child_by_field_name("left"))) == lp.var:
                        k = model.eval_int(ix.child_by_field_name("right"))
                        if k is not None:
                            offsets.add(k)
            if set(range(1, lp.step_value)) <= offsets:
                yield Finding(lp.line_start, lp.line_start, 0.75, float(lp.step_value),
                              f"manual unroll by {lp.step_value}")
        for fn in model.gpu_functions():
            if fn.body is None:
                continue
            for ln, repeats, first in _unrolled_runs(model, fn.body):
                if model.first_thread_guarded(fn, first):
                    continue  # a table one thread sets up once: not a hot loop written out
                yield Finding(ln, ln, 0.7, float(repeats),
                              f"{repeats} hand-unrolled copies of one statement")
