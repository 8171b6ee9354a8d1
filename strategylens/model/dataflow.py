"""Data flow: memory spaces of pointers, definitions of locals, and which variables carry the
thread index."""

from __future__ import annotations

from tree_sitter import Node

from strategylens.model.categories import type_size
from strategylens.model.items import Function
from strategylens.model.syntax import walk


class DataFlow:
    """Spaces of accesses, definitions of locals, thread-index variables."""

    def _resolve_spaces(self) -> None:
        global_space = {v.name: v.space for v in self.vars if v.function is None}
        local_space: dict[str, dict[str, str]] = {}
        for v in self.vars:
            if v.function is not None:
                local_space.setdefault(v.function, {})[v.name] = (
                    "local" if v.space in ("register_array", "static") and v.space != "static"
                    else v.space)
        param_space: dict[str, dict[str, str]] = {}
        for f in self._fn_list:
            ps = param_space.setdefault(f.name, {})
            for p in f.params:
                if p.is_pointer:
                    ps[p.name] = "global" if f.is_kernel else "unknown"
                elif f.is_kernel and type_size(p.type_text) is None and \
                        p.type_text not in ("int", "unsigned", "bool", "size_t"):
                    ps[p.name] = "struct"  # k(Params p): p.a[i] reads global memory
        # device-function pointer parameters take the space of the arguments at their call sites
        for c in self.calls:
            fns = self.functions.get(c.name)
            if not fns or not c.function:
                continue
            f = fns[0]
            if f.is_kernel:
                continue
            for i, p in enumerate(f.params):
                if not p.is_pointer or i >= len(c.args):
                    continue
                a = c.args[i].lstrip("&(").split("[")[0].split("+")[0].strip(" )")
                sp = self._space_of(a, c.function, global_space, local_space, param_space)
                cur = param_space[f.name].get(p.name, "unknown")
                if sp != "unknown" and cur in ("unknown", sp):
                    param_space[f.name][p.name] = sp
                elif sp != cur and cur != "unknown":
                    param_space[f.name][p.name] = "unknown"
        # host pointers filled by cudaMalloc / cudaMallocAsync point to device memory
        for c in self.calls:
            if c.category in ("alloc", "async_alloc") and c.args and c.function:
                target = c.args[0].split("&", 1)[-1].strip(" )")
                if target.isidentifier() and target not in param_space.get(c.function, {}):
                    local_space.setdefault(c.function, {}).setdefault(target, "global")
        # local pointers initialised from a known space
        for fname, names in self._assigns.items():
            for name, nodes in names.items():
                if name in local_space.get(fname, {}) or name in param_space.get(fname, {}):
                    continue
                ty = self._local_types.get(fname, {}).get(name, "")
                if not ty.endswith("*") and "auto" not in ty:
                    continue
                spaces = set()
                for d in nodes:
                    v = d.child_by_field_name("value") or d.child_by_field_name("right")
                    if v is None:
                        continue
                    base, _ = self._access_base(v)
                    spaces.add(self._space_of(base, fname, global_space, local_space,
                                              param_space))
                if len(spaces) == 1:
                    local_space.setdefault(fname, {})[name] = spaces.pop()
        self._param_space = param_space
        for a in self.accesses:
            a.space = self._space_of(a.array, a.function, global_space, local_space, param_space)

    @staticmethod
    def _space_of(name, fname, global_space, local_space, param_space) -> str:
        if fname is not None:
            if name in local_space.get(fname, {}):
                sp = local_space[fname][name]
                return {"register_array": "local", "static": "local"}.get(sp, sp)
            if name in param_space.get(fname, {}):
                sp = param_space[fname][name]
                return "unknown" if sp == "struct" else sp
            base = name.split(".", 1)[0].split("->", 1)[0]
            if base != name and param_space.get(fname, {}).get(base) in ("struct", "global"):
                return "global"  # a pointer member of a kernel's parameter struct
        if name in global_space:
            return {"device": "global", "static": "unknown"}.get(global_space[name],
                                                                global_space[name])
        return "unknown"

    def _defs_for(self, use: Node, name: str, fn: Function) -> list[Node]:
        """Definitions of the variable ``name`` seen at ``use``: the innermost visible
        declaration's initialiser plus assignments within its scope (block scoping, so two
        loops that each declare ``int c`` do not mix)."""
        defs = self._assigns.get(fn.name, {}).get(name, [])
        others = [a for a in defs if a.type != "init_declarator"]
        cands = [(d, sc) for d, sc in self._decls.get(fn.name, {}).get(name, [])
                 if sc.start_byte <= use.start_byte < sc.end_byte
                 and d.start_byte <= use.start_byte]
        if not cands:
            return others  # a parameter or a global, maybe reassigned
        d, sc = max(cands, key=lambda c: (c[1].start_byte, c[0].start_byte))
        inits = [d] if d.type == "init_declarator" else []
        return inits + [a for a in others if sc.start_byte <= a.start_byte < sc.end_byte]

    def uses_thread_index(self, node_or_text: Node | str) -> bool:
        """Whether an expression reads threadIdx/blockIdx or a variable derived from them."""
        if isinstance(node_or_text, str):
            node = self._expr_node(node_or_text)
            if node is None:
                return any(b in node_or_text for b in ("threadIdx", "blockIdx"))
            src, fn = self._tmp_src, None
        else:
            node, src, fn = node_or_text, self.source, self.in_function(node_or_text)
        tiv = self.thread_index_vars(fn) if fn is not None else set()
        for x in walk(node):
            if x.type == "identifier":
                name = src[x.start_byte:x.end_byte].decode("utf8", "replace")
                if name in ("threadIdx", "blockIdx") or name in tiv:
                    return True
            elif x.type == "call_expression":
                name = src[x.start_byte:x.end_byte].decode("utf8", "replace")
                if "thread_rank" in name or "this_grid().thread_rank" in name:
                    return True
        return False

    def thread_index_vars(self, fn: Function | str) -> set[str]:
        """Variables of ``fn`` assigned from threadIdx/blockIdx/blockDim expressions, followed
        through simple assignments."""
        f = self.function_of(fn) if isinstance(fn, str) else fn
        if f is None:
            return set()
        if f.name in self._tiv_cache:
            return self._tiv_cache[f.name]
        assigns = self._assigns.get(f.name, {})
        rhs: dict[str, list[Node]] = {}
        for name, nodes in assigns.items():
            for d in nodes:
                v = d.child_by_field_name("value") or d.child_by_field_name("right")
                if v is not None:
                    rhs.setdefault(name, []).append(v)
        ids: dict[str, set[str]] = {}
        for name, vs in rhs.items():
            s: set[str] = set()
            for v in vs:
                stack = [v]
                while stack:
                    x = stack.pop()
                    if x.type == "subscript_expression":
                        continue  # a value loaded from memory is data, not an index
                    if x.type == "identifier":
                        s.add(self.text_of(x))
                    elif x.type == "call_expression" and "thread_rank" in self.text_of(x):
                        s.add("threadIdx")
                    stack.extend(x.named_children)
            ids[name] = s
        found: set[str] = set()
        seeds = {"threadIdx", "blockIdx", "blockDim"}
        changed = True
        while changed:
            changed = False
            for name, s in ids.items():
                if name not in found and (s & seeds or s & found):
                    found.add(name)
                    changed = True
        self._tiv_cache[f.name] = found
        return found
