"""The call graph, reachability from the entry point and the accessors detectors read
(``loops_in``, ``accesses_in``, ``calls_in``, ``launches_of``, ``vars_in``, ``query``)."""

from __future__ import annotations

import bisect
import re
from functools import cached_property

from tree_sitter import Node, QueryCursor

from strategylens.model.categories import call_category
from strategylens.model.items import Access, Call, Function, Launch, Loop, VarDecl
from strategylens.model.syntax import compile_query, declarator_name, walk

_MISS = object()
_ALL = object()  # _filter's key for every function


class Queries:
    """Reachability and the accessors over the collected items."""

    def _build_call_graph(self) -> None:
        known = set(self.functions)
        methods_of: dict[str, set[str]] = {}
        by_short: dict[str, set[str]] = {}  # obj.run() may call any method named run
        for name in known:
            if "::" in name:
                cls, short = name.rsplit("::", 1)
                methods_of.setdefault(cls, set()).add(name)
                by_short.setdefault(short, set()).add(name)
        for f in self._fn_list:
            edges = self.call_graph.setdefault(f.name, set())
            if f.body is None:
                continue
            for x in walk(f.body):
                if x.type in ("identifier", "type_identifier", "field_identifier"):
                    t = self.text_of(x)
                    if x.type == "field_identifier" and t in by_short and \
                            not self._in_dead(x):
                        edges.update(by_short[t])
                    if (t in known or t in methods_of) and not self._in_dead(x):
                        if self.in_function(x) is not f or self._only_queried(x):
                            continue
                        if t in known and t != f.name:
                            edges.add(t)
                        for m in methods_of.get(t, ()):
                            edges.add(m)
                elif x.type == "qualified_identifier":
                    t = self.text_of(x)
                    if t in known and not self._in_dead(x):
                        edges.add(t)
        self._add_macro_and_table_edges(known)
        # struct methods call each other
        for name in known:
            if "::" in name:
                cls = name.rsplit("::", 1)[0]
                self.call_graph.setdefault(name, set()).update(methods_of.get(cls, set()) - {name})

    def _add_macro_and_table_edges(self, known: set[str]) -> None:
        """Edges a compiler would see after the preprocessor and through data: a function that
        uses a macro calls what the macro's body names (``#define RUN(T) k<T><<<g, b>>>(...)``,
        followed through nested macros); a function that names a file-scope table or pointer
        (``static kernel_t table[] = {k1, k2};``) may call each function in its initializer."""
        macro_refs: dict[str, set[str]] = {}
        for m in self.macros.values():
            words = set(re.findall(r"[A-Za-z_]\w*", m.value_text or ""))
            macro_refs[m.name] = words & (known | set(self.macros))
        table_refs: dict[str, set[str]] = {}
        for n in self.root.children:
            if n.type != "declaration" or self._in_dead(n):
                continue
            for d in n.children_by_field_name("declarator"):
                if d.type != "init_declarator":
                    continue
                name, _ = declarator_name(d.child_by_field_name("declarator"))
                value = d.child_by_field_name("value")
                refs = {self.text_of(x) for x in walk(value) if x.type == "identifier"} \
                    if value is not None else set()
                if name and refs & known:
                    table_refs[name] = refs & known
        if not any(macro_refs.values()) and not table_refs:
            return

        def expand(name: str, seen: set[str]) -> set[str]:
            out: set[str] = set()
            for r in macro_refs.get(name, ()):
                if r in self.macros and r not in seen:
                    seen.add(r)
                    out |= expand(r, seen)
                elif r in known:
                    out.add(r)
            return out

        for f in self._fn_list:
            if f.body is None:
                continue
            edges = self.call_graph.setdefault(f.name, set())
            for x in walk(f.body):
                if x.type not in ("identifier", "type_identifier") or self._in_dead(x):
                    continue
                t = self.text_of(x)
                if t in macro_refs and t not in known:
                    edges |= expand(t, {t}) - {f.name}
                elif t in table_refs and self.in_function(x) is f:
                    edges |= table_refs[t] - {f.name}

    def _only_queried(self, ident: Node) -> bool:
        """Whether a function name is only an argument of an occupancy / attribute query
        (``cudaOccupancyMaxPotentialBlockSize(&g, &b, kern)``): that does not launch it."""
        p = ident.parent
        for _ in range(4):
            if p is None:
                return False
            if p.type == "argument_list":
                call = p.parent
                return call is not None and call.type == "call_expression" and \
                    call_category(self._callee_name(call)[0]) == "occupancy"
            p = p.parent
        return False

    def _compute_reachability(self) -> None:
        if self.entry_found:
            roots = [self.entry]
        else:  # __host__ __device__ helpers are not host entries
            roots = [f.name for f in self.host_functions if f.body is not None and
                     not f.is_device]
            if roots:
                self.warn(f"entry point '{self.entry}' not found: every host function is a root")
                self.note(f"entry '{self.entry}' not found: every host function is a root")
            else:
                roots = [f.name for f in self._fn_list]
                if self._fn_list:
                    self.warn(f"entry point '{self.entry}' not found and no host code: every "
                              "kernel and device function is a root")
                    self.note(f"entry '{self.entry}' not found and no host code: every kernel "
                              "and device function is a root")
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            todo.extend(self.call_graph.get(n, ()))
        if not self.entry_found and self.kernels and not any(k.name in seen for k in self.kernels):
            # no launch of any kernel is seen (a header, a kernel file, launches the file
            # cannot show): judge what the kernel bodies show
            self.note("no kernel launch seen: every kernel is judged as launched")
            todo = [k.name for k in self.kernels]
            while todo:
                n = todo.pop()
                if n not in seen:
                    seen.add(n)
                    todo.extend(self.call_graph.get(n, ()))
        self.reachable = seen

    def in_function(self, node: Node) -> Function | None:
        """The innermost function definition containing ``node``."""
        key = (node.id, node.start_byte, node.end_byte)
        hit = self._fn_memo.get(key, _MISS)
        if hit is _MISS:
            hit = self._fn_memo[key] = self._in_function(node)
        return hit

    def _in_function(self, node: Node) -> Function | None:
        s = node.start_byte
        i = bisect.bisect_right(self._fn_starts, s)
        best = None
        for f in self._fn_list[max(0, i - 16):i][::-1]:
            if f.node.start_byte <= s < f.node.end_byte or (
                    f.node.start_byte == s and node.end_byte <= f.node.end_byte):
                if best is None or f.node.start_byte > best.node.start_byte:
                    best = f
                    break
        if best is None:
            for f in reversed(self._fn_list[:i]):
                if f.node.start_byte <= s < f.node.end_byte:
                    return f
        return best

    def function_of(self, name: str) -> Function | None:
        """The (first) function of that name."""
        fns = self.functions.get(name)
        return fns[0] if fns else None

    def is_reachable(self, node: Node) -> bool:
        """Inside a function reachable from the entry and not in a constant-false branch."""
        if self._dead and self._in_dead(node):
            return False
        f = self.in_function(node)
        if f is None:
            return True
        return f.name in self.reachable

    def reachable_kernels(self) -> list[Function]:
        return [k for k in self.kernels if k.name in self.reachable]

    def reachable_functions(self) -> list[Function]:
        return [f for f in self._fn_list if f.name in self.reachable]

    def _indexed(self, items, attr: str, all: bool, key) -> list:
        """``items`` whose ``attr`` is ``key`` (every item when None), reachable ones unless
        ``all``. Indexed by ``attr`` once per item list (detectors ask per function or kernel:
        a scan each time made tagging quadratic in file size); the index key notices a list or
        a reachability that grew."""
        at = (id(items), len(items), attr, all, None if all else (
            id(self.reachable), len(self.reachable), len(self._dead)))
        index = self._indexes.get(at)
        if index is None:
            index = {_ALL: []}
            for it in items:
                if all or self.is_reachable(it.node):
                    index[_ALL].append(it)
                    index.setdefault(getattr(it, attr), []).append(it)
            self._indexes[at] = index
        return list(index.get(_ALL if key is None else key, ()))

    def _filter(self, items, fn, all):
        """``items`` in function ``fn`` (all when None), reachable ones unless ``all``."""
        return self._indexed(items, "function", all, fn.name if isinstance(fn, Function) else fn)

    def loops_in(self, fn: Function | str | None = None, all: bool = False) -> list[Loop]:
        """Loops in ``fn`` (every function when None); reachable ones unless ``all``."""
        return self._filter(self.loops, fn, all)

    def accesses_in(self, fn: Function | str | None = None, all: bool = False) -> list[Access]:
        return self._filter(self.accesses, fn, all)

    def calls_in(self, fn: Function | str | None = None, all: bool = False) -> list[Call]:
        return self._filter(self.calls, fn, all)

    def launches_of(self, kernel: str | None = None, all: bool = False) -> list[Launch]:
        return self._indexed(self.launches, "kernel", all, kernel)

    def vars_in(self, fn: Function | str | None = None, space: str | None = None,
                all: bool = False) -> list[VarDecl]:
        name = fn.name if isinstance(fn, Function) else fn
        out = []
        for v in self.vars:
            if name is not None and v.function != name:
                continue
            if space is not None and v.space != space:
                continue
            if not all and not self.is_reachable(v.node):
                continue
            out.append(v)
        return out

    def query(self, pattern: str, capture: str = "evidence",
              reachable: bool = True) -> list[Node]:
        """Nodes captured as ``@capture`` by a tree-sitter query, in source order."""
        caps = QueryCursor(compile_query(pattern)).captures(self.root)
        nodes = caps.get(capture, [])
        out = [n for n in nodes if not reachable or self.is_reachable(n)]
        out.sort(key=lambda n: n.start_byte)
        return out

    def gpu_functions(self) -> list[Function]:
        """Reachable kernels and device functions (the code that runs on the GPU)."""
        return [f for f in self.reachable_functions() if f.is_kernel or f.is_device]

    def host_only_functions(self) -> list[Function]:
        """Reachable functions that are neither kernels nor device functions (``__host__
        __device__`` ones are left out; see :func:`strategylens.model.host.is_host_function`)."""
        return [f for f in self.reachable_functions() if not f.is_kernel and not f.is_device]

    @cached_property
    def _fn_node_index(self) -> dict[str, dict[str, list[Node]]]:
        return {}

    def fn_nodes(self, fn: Function, *types: str) -> list[Node]:
        """Nodes of ``fn``'s body of the given types, in source order (one walk per function
        name; do not modify the list)."""
        index = self._fn_node_index.get(fn.name)
        if index is None:
            index = self._fn_node_index[fn.name] = {}
            for n in walk(fn.body) if fn.body is not None else ():
                index.setdefault(n.type, []).append(n)
        if len(types) == 1:
            return index.get(types[0], [])
        out = [n for t in types for n in index.get(t, [])]
        out.sort(key=lambda n: n.start_byte)
        return out

