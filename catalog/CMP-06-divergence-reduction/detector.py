"""CMP-06 divergence reduction: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import (ProgramModel, SCALAR_BYTES, enclosing_loops, line, nodes_of,
                                short_name, strip)


COMPARE_OPS = ("<", ">", "<=", ">=", "==", "!=")


VOTES = ("__any_sync", "__all_sync", "__ballot_sync", "__any", "__all", "__ballot",
         "__syncthreads_or", "__syncthreads_and", "__syncthreads_count")


class DivergenceReduction(Detector):
    id = "CMP-06"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for fn in model.gpu_functions():
            if fn.body is None:
                continue
            voted = {name for name, value, _ in model.assignments(fn)
                     if any(short_name(model.text_of(c.child_by_field_name("function"))) in VOTES
                            for c in nodes_of(value, "call_expression"))}
            for n in model.fn_nodes(fn, "binary_expression", "cast_expression", "unary_expression",
                              "if_statement", "conditional_expression", "assignment_expression",
                              "while_statement", "do_statement"):
                if n.type in ("while_statement", "do_statement"):
                    cond = n.child_by_field_name("condition")
                    if model.identifiers(cond) & voted and line(n) not in seen:
                        # the loop goes on while the warp or block votes so: all agree
                        seen.add(line(n))
                        yield Finding(line(n), line(n), 0.65, None, "loop kept uniform by a vote")
                    continue
                if not model.is_reachable(n):
                    continue
                hit = self._check(model, fn, n)
                if hit and line(n) not in seen:
                    seen.add(line(n))
                    yield Finding(line(n), line(n), hit[0], None, hit[1])

    def _check(self, model, fn, n):
        t = n.type
        if t == "binary_expression" and model.text_of(n.child_by_field_name("operator")) in (
                "*", "+", "-", "&"):
            for side in (n.child_by_field_name("left"), n.child_by_field_name("right")):
                if self._is_compare(model, side):
                    return 0.7, "comparison used arithmetically"
        if t == "cast_expression" and self._is_compare(model, n.child_by_field_name("value")):
            tname = model.text_of(n.child_by_field_name("type")).strip()
            if tname in SCALAR_BYTES and tname != "bool":
                return 0.7, "comparison converted to a number"
        if t == "assignment_expression" and model.text_of(n.child_by_field_name("operator")) in (
                "+=", "-=", "*=") and self._is_compare(model, n.child_by_field_name("right")):
            return 0.65, "comparison accumulated as a number"
        if t == "assignment_expression" and model.text_of(n.child_by_field_name("operator")) in (
                "&=", "|=") and self._is_compare(model, n.child_by_field_name("right")):
            return 0.65, "comparison folded into a flag"  # keep &= (d2 < cut2)
        if t == "assignment_expression" and model.text_of(n.child_by_field_name("operator")) in (
                "+=", "|=", "^=") and self._masked_select(model, n.child_by_field_name("right")):
            return 0.6, "select of a value or nothing accumulated"  # bits |= (c ? 1 << j : 0)
        if t == "unary_expression" and model.text_of(n.child_by_field_name("operator")) == "-" \
                and self._is_compare(model, n.child_by_field_name("argument")):
            return 0.7, "comparison mask"
        if t == "if_statement":
            cond = n.child_by_field_name("condition")
            for c in nodes_of(cond, "call_expression"):
                if short_name(model.text_of(c.child_by_field_name("function"))) in VOTES:
                    return 0.7, "warp-uniform branch on a vote"
        if t == "conditional_expression" and enclosing_loops(n, fn):
            arms = [n.child_by_field_name("consequence"), n.child_by_field_name("alternative")]
            p = n.parent
            while p is not None and p.type == "parenthesized_expression":
                p = p.parent
            target = model.text_of(p.child_by_field_name("left")) \
                if p is not None and p.type == "assignment_expression" else None
            if target and all(a is not None and self._plain(model, a) for a in arms) and \
                    target in {model.text_of(strip(a)) for a in arms}:
                return 0.55, "predicated update (select instead of a branch)"
        return None

    @staticmethod
    def _is_compare(model, node) -> bool:
        node = strip(node)
        return node is not None and node.type == "binary_expression" and \
            model.text_of(node.child_by_field_name("operator")) in COMPARE_OPS

    @classmethod
    def _masked_select(cls, model, node) -> bool:
        """``c ? v : 0`` (or ``c ? 0 : v``) on a comparison, with plain arms: a value or
        nothing, added without a branch. A value compared itself (``p > 0 ? p : 0``) is a
        max, not a predicate."""
        node = strip(node)
        cond = node.child_by_field_name("condition") if node is not None else None
        if node is None or node.type != "conditional_expression" or \
                not cls._is_compare(model, cond):
            return False
        arms = [strip(node.child_by_field_name(k)) for k in ("consequence", "alternative")]
        if any(a is None or not cls._plain(model, a) for a in arms):
            return False
        zero = [a for a in arms if model.text_of(a) in ("0", "0u", "0.0f", "0.0", "0.f")]
        value = [a for a in arms if a not in zero]
        return len(zero) == 1 and len(value) == 1 and \
            not model.identifiers(value[0]) <= model.identifiers(cond)

    @staticmethod
    def _plain(model, node) -> bool:
        return not any(True for _ in nodes_of(
            node, "subscript_expression", "pointer_expression", "call_expression",
            "assignment_expression", "update_expression", "conditional_expression")) or \
            strip(node).type in ("identifier", "number_literal")
