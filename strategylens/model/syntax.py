"""tree-sitter-cuda: the language, the parser, queries, and walks over nodes."""

from __future__ import annotations

from functools import lru_cache
from collections.abc import Iterable, Iterator

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser, Query

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
