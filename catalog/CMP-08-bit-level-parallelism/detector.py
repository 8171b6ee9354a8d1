"""CMP-08 bit level parallelism: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import ProgramModel, line, nodes_of, short_name, strip, subscript_indices


BIT_CALLS = {"__popc", "__popcll", "__ffs", "__ffsll", "__clz", "__clzll", "__brev", "__brevll",
             "__fns", "__ballot_sync", "__ballot", "__funnelshift_l", "__funnelshift_r",
             "__funnelshift_lc", "__funnelshift_rc", "__byte_perm"}


BIT_ATOMICS = {"atomicOr", "atomicAnd", "atomicXor", "atomicOr_block", "atomicAnd_block",
               "atomicXor_block", "atomicOr_system", "atomicAnd_system", "atomicXor_system"}


class BitLevelParallelism(Detector):
    id = "CMP-08"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        dev = {f.name for f in model.gpu_functions()}
        seen: set[int] = set()
        for c in model.calls_in():
            if c.function not in dev:
                continue
            short = short_name(c.name)
            if short in ("__ballot_sync", "__ballot") and self._vote_only(c.node):
                continue
            if short in BIT_CALLS or (short in BIT_ATOMICS and len(c.args) >= 2 and
                                      model.eval_int(c.args[1]) not in (0, 1)):
                if c.line not in seen:
                    seen.add(c.line)
                    yield Finding(c.line, c.line, 0.8 if short != "__ballot_sync" else 0.65,
                                  None, c.name)
        for fn in model.gpu_functions():
            if fn.body is None:
                continue
            for n in model.fn_nodes(fn, "binary_expression", "assignment_expression"):
                if not model.is_reachable(n) or line(n) in seen:
                    continue
                op = model.text_of(n.child_by_field_name("operator"))
                if op not in ("&", "|", "^", "&=", "|=", "^="):
                    continue
                sides = [n.child_by_field_name("left"), n.child_by_field_name("right")]
                if any(self._word_of(model, fn, s) for s in sides):
                    seen.add(line(n))
                    yield Finding(line(n), line(n), 0.75, None, "bitset word operation")
            for ln, note in self._mask_words(model, fn):
                if ln not in seen:
                    seen.add(ln)
                    yield Finding(ln, ln, 0.7, None, note)

    @staticmethod
    def _mask_words(model, fn):
        """A word loaded from memory and treated as a mask: rotated ((w >> s) | (w << (W - s)))
        or consumed a bit per pass of a loop (w & 1 tested, w >>= 1)."""
        def loaded(name: str) -> bool:
            return any(any(True for _ in nodes_of(d, "subscript_expression"))
                       for d in model.initialisers(fn, name))

        def shifted(node, op):  # the name shifted by op, else None
            node = strip(node)
            if node is None or node.type != "binary_expression" or \
                    model.text_of(node.child_by_field_name("operator")) != op:
                return None
            w = strip(node.child_by_field_name("left"))
            return model.text_of(w) if w is not None and w.type == "identifier" else None
        for n in model.fn_nodes(fn, "binary_expression"):
            if model.text_of(n.child_by_field_name("operator")) != "|" or not model.is_reachable(n):
                continue
            a, b = n.child_by_field_name("left"), n.child_by_field_name("right")
            for x, y in ((a, b), (b, a)):
                w = shifted(x, ">>")
                if w is not None and w == shifted(y, "<<") and loaded(w):
                    yield line(n), "mask word rotated"
        for lp in model.loops_in(fn):
            body = lp.node
            steps = [n for n in nodes_of(body, "assignment_expression")
                     if model.text_of(n.child_by_field_name("operator")) == ">>=" and
                     model.eval_int(n.child_by_field_name("right"), fn) == 1]
            for st in steps:
                w = model.text_of(strip(st.child_by_field_name("left")))
                tests = [t for t in nodes_of(body, "binary_expression")
                         if model.text_of(t.child_by_field_name("operator")) == "&" and
                         model.text_of(strip(t.child_by_field_name("left"))) == w and
                         model.eval_int(t.child_by_field_name("right"), fn) == 1]
                if tests and loaded(w) and model.is_reachable(st):
                    yield line(st), "mask consumed a bit per pass"
                    for t in tests:
                        yield line(t), "mask bit tested"

    @staticmethod
    def _vote_only(node) -> bool:
        """A ballot used directly as a branch condition (a warp vote, CMP-06), not as bits."""
        p = node.parent
        while p is not None and p.type in ("parenthesized_expression", "unary_expression",
                                           "condition_clause"):
            if p.type == "condition_clause":
                return True
            p = p.parent
        return p is not None and p.type in ("if_statement", "while_statement")

    @staticmethod
    def _word_of(model, fn, node) -> bool:
        node = strip(node)
        if node is None or node.type != "subscript_expression":
            return False
        for ix in subscript_indices(node):
            ix = strip(ix)
            if ix is not None and ix.type == "binary_expression":
                op = model.text_of(ix.child_by_field_name("operator"))
                k = model.eval_int(ix.child_by_field_name("right"), fn)
                if (op == ">>" and k in (5, 6)) or (op == "/" and k in (32, 64)):
                    return True
        return False
