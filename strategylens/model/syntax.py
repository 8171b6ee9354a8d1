"""tree-sitter-cuda: the language, the parser, queries, and walks over nodes."""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser, Query

if TYPE_CHECKING:  # pragma: no cover
    from strategylens.model.items import Function, Loop

LANGUAGE = Language(tree_sitter_cuda.language())


_PARSER: Parser | None = None


def parser() -> Parser:
    """The process-wide tree-sitter-cuda parser."""
    global _PARSER
    if _PARSER is None:
        _PARSER = Parser(LANGUAGE)
    return _PARSER


@lru_cache(maxsize=512)
def compile_query(pattern: str) -> Query:
    """A compiled tree-sitter-cuda query, cached per process."""
    return Query(LANGUAGE, pattern)


SKIP_TYPES = {"comment", "string_literal", "raw_string_literal", "char_literal",
              "system_lib_string", "concatenated_string"}
LOOP_KINDS = {"for_statement": "for", "while_statement": "while", "do_statement": "do",
              "for_range_loop": "for"}
LOOP_TYPES = tuple(LOOP_KINDS)
COMPARISONS = {"<", "<=", ">", ">="}


def declarator_name(node: Node | None) -> tuple[str | None, Node | None]:
    """The declared name under a (possibly nested) declarator."""
    while node is not None:
        t = node.type
        if t in ("identifier", "field_identifier", "operator_name", "destructor_name",
                 "qualified_identifier", "type_identifier"):
            return node.text.decode("utf8", "replace"), node
        if t == "template_function":
            nm = node.child_by_field_name("name")
            return (nm.text.decode("utf8", "replace") if nm else None), nm
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            # parenthesized_declarator, ERROR wrappers: take the first declarator-like child
            nxt = next((c for c in node.named_children
                        if c.type.endswith("declarator") or c.type == "identifier"), None)
        node = nxt
    return None, None


def array_dims(node: Node | None) -> list[Node | None]:
    """Size nodes of an array declarator, outermost first (None for ``[]``)."""
    dims: list[Node | None] = []
    while node is not None and node.type in ("array_declarator", "init_declarator",
                                             "pointer_declarator", "parenthesized_declarator",
                                             "reference_declarator"):
        if node.type == "array_declarator":
            dims.append(node.child_by_field_name("size"))
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in node.named_children if c.type.endswith("declarator")), None)
        node = nxt
    dims.reverse()
    return dims


_INDEXED: list = []  # the models built last in this process, whose node lists walk() reuses


def remember(model) -> None:
    """Keep ``model``'s flat node list for :func:`walk` (the last four models built)."""
    _INDEXED.insert(0, model)
    del _INDEXED[4:]


def walk(node: Node | None) -> Iterable[Node]:
    """``node`` and its descendants in pre-order, not entering comments and string literals
    (a list slice when the node belongs to a recently built model); nothing for None."""
    if node is None:
        return ()
    nid = node.id
    for m in _INDEXED:
        i = m._flat_pos.get(nid)
        if i is not None:
            n = m._flat[i]
            if n.start_byte == node.start_byte and n.end_byte == node.end_byte and \
                    n.type == node.type:
                return m._flat[i:m._flat_end[i]]
    return _walk_nodes(node)


def _walk_nodes(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if n.child_count and n.type not in SKIP_TYPES:
            stack.extend(reversed(n.children))


# ---------------------------------------------------------------------------------------------
# node helpers shared by the detectors (nothing here needs the model)

def line(node: Node) -> int:
    """1-based line where ``node`` starts."""
    return node.start_point[0] + 1


def nodes_of(node: Node | None, *types: str) -> Iterator[Node]:
    """Nodes of the given types under ``node`` (itself included), in source order."""
    if node is None:
        return
    for n in walk(node):
        if n.type in types:
            yield n


def unparen(node: Node | None) -> Node | None:
    """The expression without surrounding parentheses (casts kept, unlike :func:`strip`)."""
    while node is not None and node.type == "parenthesized_expression" and \
            node.named_child_count == 1:
        node = node.named_children[0]
    return node


def strip(node: Node | None) -> Node | None:
    """The expression without surrounding parentheses and C-style or static casts."""
    while node is not None:
        if node.type in ("parenthesized_expression", "condition_clause") and \
                node.named_child_count == 1:
            node = node.named_children[0]
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        else:
            return node
    return node


def inside(node: Node, outer: Node) -> bool:
    """Whether ``node`` lies within ``outer`` (byte ranges)."""
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def ancestors(node: Node, stop: Node | None = None) -> Iterator[Node]:
    """The parents of ``node``, innermost first, up to (not including) ``stop``."""
    p = node.parent
    while p is not None and (stop is None or p.id != stop.id):
        yield p
        p = p.parent


def enclosing_loops(node: Node, fn: Function) -> list[Node]:
    """Loop statements around ``node`` inside ``fn``, innermost first."""
    return [a for a in ancestors(node, fn.node) if a.type in LOOP_TYPES]


def body_loops(node: Node, fn: Function) -> list[Node]:
    """Loops whose body (not header) contains ``node``, innermost first."""
    out = []
    child = node
    for a in ancestors(node, fn.node):
        if a.type in LOOP_TYPES:
            body = a.child_by_field_name("body")
            if body is not None and body.start_byte <= child.start_byte < body.end_byte:
                out.append(a)
        child = a
    return out


def innermost_loop(node: Node) -> Node | None:
    """The nearest enclosing loop (or switch, for ``break``) of ``node``."""
    n = node.parent
    while n is not None:
        if n.type in LOOP_TYPES or n.type == "switch_statement":
            return n
        n = n.parent
    return None


def enclosing_ifs(stop: Node, node: Node) -> list[Node]:
    """``if`` statements (and ternaries) between ``node`` and its ancestor ``stop``."""
    out = []
    n = node.parent
    while n is not None and n != stop and inside(n, stop):
        if n.type in ("if_statement", "conditional_expression"):
            out.append(n)
        n = n.parent
    return out


def in_condition_part(if_node: Node, node: Node) -> bool:
    """Whether ``node`` sits in the condition of ``if_node`` rather than in a branch."""
    cond = if_node.child_by_field_name("condition")
    return cond is not None and inside(node, cond)


def runs_every_iteration(loop: Loop, node: Node) -> bool:
    """``node`` is in ``loop``'s body outside any ``if``/ternary branch of that body."""
    return not [i for i in enclosing_ifs(loop.node, node) if not in_condition_part(i, node)]


def subscript_index(node: Node) -> Node | None:
    """The index part of a subscript (the ``[i]`` argument list node)."""
    return node.child_by_field_name("indices") or node.child_by_field_name("index")


def subscript_indices(node: Node) -> list[Node]:
    """Index expressions of ``a[i][j]``, outermost first."""
    out: list = []
    n = node
    while n is not None and n.type == "subscript_expression":
        idx = n.child_by_field_name("indices")
        if idx is not None:
            out[:0] = idx.named_children
        n = n.child_by_field_name("argument")
    return out


def assignment_of(node: Node) -> Node | None:
    """The assignment whose left side is ``node`` (a subscript), if any."""
    p = node.parent
    while p is not None and p.type == "parenthesized_expression":
        p = p.parent
    if p is not None and p.type == "assignment_expression":
        left = unparen(p.child_by_field_name("left"))  # (FLOAT4(x)) = ...: a macro's
        if left is not None and left.id == node.id:
            return p
    return None


def call_args(call: Node) -> list[Node]:
    """Argument nodes of a call expression or a launch."""
    args = call.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


def squash(text: str) -> str:
    """``text`` without whitespace."""
    return re.sub(r"\s+", "", text)


def short_name(name: str) -> str:
    """A callee name without namespaces and receiver (``cg::reduce`` -> ``reduce``,
    ``tile.sync`` -> ``sync``)."""
    return name.split("::")[-1].split(".")[-1]


def in_lambda(node: Node, within: Node) -> bool:
    """``node`` lies in a lambda defined inside ``within`` (run later, not by ``within``)."""
    n = node.parent
    while n is not None and n.id != within.id:
        if n.type == "lambda_expression":
            return True
        n = n.parent
    return False
