"""Data flow: memory spaces of pointers, definitions of locals, and which variables carry the
thread index."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

from tree_sitter import Node

from strategylens.model.categories import call_category, type_size
from strategylens.model.items import Function, Loop
from strategylens.model.syntax import ancestors, nodes_of, strip, walk

CONTAINERS = {"vector", "host_vector", "device_vector", "unique_ptr", "array", "valarray"}
_CASTS = {"reinterpret_cast", "static_cast", "const_cast", "dynamic_cast"}


class TypeTable:
    """Declared types of names per function (parameters and local declarations) and globally."""

    def __init__(self, model) -> None:
        self.model = model
        self._fn: dict[str, dict[str, tuple[str, int]]] = {}
        self._global: dict[str, tuple[str, int]] | None = None
        # every declaration of a name declared more than once in a function, with its scope
        self._scoped: dict[str, dict[str, list[tuple[int, int, int, tuple[str, int]]]]] = {}

    def _collect(self, root: Node, skip_functions: bool,
                 scoped: dict | None = None) -> dict[str, tuple[str, int]]:
        out: dict[str, tuple[str, int]] = {}
        for n in walk(root):
            if n.type not in ("declaration", "parameter_declaration", "field_declaration"):
                continue
            if skip_functions and any(a.type == "function_definition" for a in ancestors(n)):
                continue
            tnode = n.child_by_field_name("type")
            if tnode is None:
                continue
            tname = self.model.text_of(tnode).replace("const ", "").replace("struct ", "").strip()
            tname = self.model.resolve_type(tname)
            extra = 0
            head, _, arg = tname.partition("<")
            if arg.endswith(">") and head.split("::")[-1] in CONTAINERS:
                tname, extra = arg[:-1].split(",")[0].strip(), 1  # std::vector<float> -> float[]
            for d in n.children_by_field_name("declarator"):
                name, ptr = self.declared(d)
                if name:
                    out.setdefault(name, (tname, ptr + extra))
                    if scoped is not None:
                        scope = n.parent if n.type == "declaration" and n.parent is not None \
                            else root
                        scoped.setdefault(name, []).append(
                            (scope.start_byte, scope.end_byte, n.start_byte, (tname, ptr + extra)))
        return out

    def declared(self, d: Node) -> tuple[str | None, int]:
        """``(name, pointer/array depth)`` of a declarator."""
        ptr = 0
        while d is not None:
            if d.type in ("identifier", "field_identifier"):
                return self.model.text_of(d), ptr
            if d.type in ("pointer_declarator", "array_declarator", "reference_declarator"):
                if d.type != "reference_declarator":
                    ptr += 1
            elif d.type not in ("init_declarator", "function_declarator"):
                return None, ptr  # function_declarator: "std::vector<float> h(n);" is a variable
            d = d.child_by_field_name("declarator") or (
                d.named_children[-1] if d.type == "reference_declarator" and d.named_child_count
                else None)
        return None, ptr

    def type_of(self, fn: Function | None, name: str,
                at: Node | None = None) -> tuple[str, int] | None:
        """``(base type, pointer/array depth)`` of ``name`` as seen in ``fn``; with ``at``, the
        declaration in scope there when blocks of ``fn`` declare the name differently
        (``const half2* row`` in one branch, ``const float2* row`` in the other)."""
        if fn is not None:
            tab = self._fn.get(fn.name)
            if tab is None:
                scoped = {}
                tab = self._fn[fn.name] = self._collect(fn.node, False, scoped)
                self._scoped[fn.name] = {k: v for k, v in scoped.items() if len(v) > 1}
            decls = self._scoped[fn.name].get(name) if at is not None else None
            if decls:
                seen = [d for d in decls if d[0] <= at.start_byte < d[1] and d[2] <= at.start_byte]
                if seen:
                    return max(seen, key=lambda d: d[2])[3]
            if name in tab:
                return tab[name]
        if self._global is None:
            self._global = self._collect(self.model.root, skip_functions=True)
        return self._global.get(name)


# cooperative-groups calls that read the thread's position (tb.thread_index().x, g.thread_rank())
# and the block's (tb.group_index().x)
_THREAD_CALLS = ("thread_rank", "thread_index")
_BLOCK_CALLS = ("group_index", "block_index")


class DataFlow:
    """Spaces of accesses, definitions of locals, thread-index variables, and the small data-flow
    queries detectors share. The definition tables differ on purpose at their edges (which
    declarators count, compound assignments, non-identifier targets); each says what it keeps."""

    def resolve_type(self, name: str) -> str:
        """``name`` through the file's typedefs and using-aliases (``typedef float4 vec_t``:
        ``vec_t`` is ``float4``; ``const`` and pointers of the alias are dropped)."""
        seen = set()
        while name in self.type_aliases and name not in seen:
            seen.add(name)
            name = self.type_aliases[name].replace("const ", "").replace("struct ", "")
            name = name.replace("*", "").strip()
        return name

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
        # locals a call builds from a kernel's parameter struct (item = extract(p, b)):
        # their pointer members point to global memory too
        for fname, names in self._assigns.items():
            structs = {n for n, sp in param_space.get(fname, {}).items() if sp == "struct"}
            for name, nodes in names.items() if structs else ():
                ty = self._local_types.get(fname, {}).get(name, "")
                if name in param_space[fname] or type_size(ty) is not None or ty.endswith("*"):
                    continue
                vals = [d.child_by_field_name("value") or d.child_by_field_name("right")
                        for d in nodes]
                if vals and all(v is not None and v.type == "call_expression" and
                                self.identifiers(v) & structs for v in vals):
                    local_space.setdefault(fname, {}).setdefault(name, "struct")
        # device-function pointer parameters take the space of the arguments at their call sites
        # (a parameter struct passed on stays one)
        for c in self.calls:
            fns = self.functions.get(c.name)
            if not fns or not c.function:
                continue
            f = fns[0]
            if f.is_kernel:
                continue
            for i, p in enumerate(f.params):
                if not p.is_pointer and i < len(c.args) and "struct" in (
                        local_space.get(c.function, {}).get(c.args[i].strip()),
                        param_space.get(c.function, {}).get(c.args[i].strip())):
                    param_space[f.name].setdefault(p.name, "struct")
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
                    if d.type == "assignment_expression" and self.text_of(
                            d.child_by_field_name("operator")) != "=":
                        continue  # p += stride: a bumped pointer stays in its space
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
                return {"register_array": "local", "static": "local", "struct": "unknown"}.get(
                    sp, sp)
            if name in param_space.get(fname, {}):
                sp = param_space[fname][name]
                return "unknown" if sp == "struct" else sp
            base = name.split(".", 1)[0].split("->", 1)[0].split("(", 1)[0].strip()
            if base != name and (param_space.get(fname, {}).get(base) in ("struct", "global")
                                 or local_space.get(fname, {}).get(base) == "struct"):
                # a pointer member of a kernel's parameter struct, or the row a view parameter
                # returns (out(i)[j])
                return "global"
            if base != name and local_space.get(fname, {}).get(base) == "shared":
                return "shared"  # an array member of a __shared__ struct or union
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
                if any(w in name for w in _THREAD_CALLS):
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
                    elif x.type == "call_expression" and any(
                            w in self.text_of(x) for w in _THREAD_CALLS):
                        s.add("threadIdx")
                    elif x.type == "call_expression" and any(
                            w in self.text_of(x) for w in _BLOCK_CALLS):
                        s.add("blockIdx")
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

    # ----- names ---------------------------------------------------------------------------
    @cached_property
    def types(self) -> TypeTable:
        """Declared types of names (parameters, locals, globals)."""
        return TypeTable(self)

    def identifiers(self, node: Node | None) -> set[str]:
        """Names of the identifiers under ``node`` (field names excluded); a fresh set each
        call, from a memo by the node's span (detectors ask for the same nodes many times)."""
        if node is None:
            return set()
        # the node's id and its text: macro bodies are other trees, over other bytes
        key = (node.id, node.start_byte, node.end_byte, self.text_of(node))
        found = self._ids_memo.get(key)
        if found is None:
            found = self._ids_memo[key] = frozenset(
                self.text_of(n) for n in nodes_of(node, "identifier"))
        return set(found)

    def index_identifiers(self, node: Node | None) -> set[str]:
        """Identifiers of ``node`` outside subscripts: what an index is computed from, leaving
        out values loaded from memory."""
        out, stack = set(), [node] if node is not None else []
        while stack:
            n = stack.pop()
            if n.type == "subscript_expression":
                continue
            if n.type == "identifier":
                out.add(self.text_of(n))
            stack.extend(n.children)
        return out

    def root_identifier(self, node: Node | None) -> str | None:
        """The variable an argument or expression is about: ``&d_x``, ``(void**)&d_x``,
        ``reinterpret_cast<void**>(&d_x)``, ``d_x + off``, ``d_x[i]``, ``*flag`` and
        ``s.data()`` all give the leftmost variable (types and cast names are skipped)."""
        if node is None:
            return None
        if node.type == "identifier":
            return self.text_of(node)
        if node.type in ("type_descriptor", "template_argument_list", "primitive_type",
                         "type_identifier", "sizeof_expression", "string_literal"):
            return None
        if node.type == "call_expression":
            func = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            fname = self.text_of(func.child_by_field_name("name")) if func is not None and \
                func.type == "template_function" else self.text_of(func)
            if fname in _CASTS and args is not None and args.named_children:
                return self.root_identifier(args.named_children[0])
            if func is not None and func.type == "field_expression":
                return self.root_identifier(func.child_by_field_name("argument"))
            return None
        for child in node.named_children:
            found = self.root_identifier(child)
            if found is not None:
                return found
        return None

    def array_name(self, node: Node | None) -> str | None:
        """Name of the array of a subscript or field chain (``a`` in ``a[i][j].x``), through
        parentheses, casts and ``reinterpret_cast<float4*>(p)[i]``."""
        node = strip(node)
        while node is not None:
            if node.type == "identifier":
                return self.text_of(node)
            if node.type in ("subscript_expression", "field_expression"):
                node = strip(node.child_by_field_name("argument"))
            elif node.type == "pointer_expression":
                node = strip(node.child_by_field_name("argument"))
            elif node.type == "call_expression":  # reinterpret_cast<float4*>(p)[i]
                args = node.child_by_field_name("arguments")
                node = strip(args.named_children[0]) if args is not None and \
                    args.named_child_count else None
            else:
                return None
        return None

    def base_name(self, node: Node | None) -> str | None:
        """The variable of a (possibly nested) subscript, field, ``&a[i]``, ``*p`` or unary
        expression; unlike :meth:`array_name` it does not look into calls."""
        while node is not None:
            if node.type == "identifier":
                return self.text_of(node)
            if node.type in ("subscript_expression", "field_expression"):
                node = node.child_by_field_name("argument")
            elif node.type in ("pointer_expression", "parenthesized_expression", "cast_expression",
                               "unary_expression"):
                node = node.child_by_field_name("argument") or node.child_by_field_name("value") \
                    or (node.named_children[-1] if node.named_children else None)
            else:
                return None
        return None

    # ----- definitions of locals -----------------------------------------------------------
    @cached_property
    def _defs_op_cache(self) -> dict[str, dict[str, list[tuple[str, Node]]]]:
        return {}

    def local_defs_op(self, fn: Function, name: str) -> list[tuple[str, Node]]:
        """``(operator, right side)`` of every definition of the local ``name`` in ``fn``
        (initialisers of plain declarators, assignments to a plain variable)."""
        tab = self._defs_op_cache.get(fn.name)
        if tab is None:
            tab = self._defs_op_cache[fn.name] = {}
            for n in self.fn_nodes(fn, "init_declarator", "assignment_expression"):
                if n.type == "init_declarator":
                    d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
                    if d is not None and d.type == "identifier" and v is not None:
                        tab.setdefault(self.text_of(d), []).append(("=", v))
                else:
                    left = n.child_by_field_name("left")
                    if left is not None and left.type == "identifier":
                        tab.setdefault(self.text_of(left), []).append(
                            (self.text_of(n.child_by_field_name("operator")),
                             n.child_by_field_name("right")))
        return tab.get(name, [])

    def local_defs(self, fn: Function, name: str) -> list[Node]:
        """Right-hand sides that define the local ``name`` in ``fn``."""
        return [r for _, r in self.local_defs_op(fn, name)]

    @cached_property
    def _assignments_cache(self) -> dict[str, list[tuple[str, Node, Node]]]:
        return {}

    def assignments(self, fn: Function) -> list[tuple[str, Node, Node]]:
        """``(name, value, statement)`` for every declaration with an initialiser (pointer and
        other declarators unwrapped to their name) and every assignment (plain or compound) to
        a plain variable in ``fn``'s body; computed once per function, do not modify."""
        if fn.name not in self._assignments_cache:
            out = []
            for n in walk(fn.body):
                if n.type == "init_declarator":
                    d = n.child_by_field_name("declarator")
                    v = n.child_by_field_name("value")
                    while d is not None and d.type not in ("identifier",) and \
                            d.child_by_field_name("declarator"):
                        d = d.child_by_field_name("declarator")
                    if d is not None and d.type == "identifier" and v is not None:
                        out.append((self.text_of(d), v, n))
                elif n.type == "assignment_expression":
                    left = n.child_by_field_name("left")
                    if left is not None and left.type == "identifier":
                        out.append((self.text_of(left), n.child_by_field_name("right"), n))
            self._assignments_cache[fn.name] = out
        return self._assignments_cache[fn.name]

    @cached_property
    def _initialisers_cache(self) -> dict[str, dict[str, list[Node]]]:
        return {}

    def initialisers(self, fn: Function, name: str) -> list[Node]:
        """Initialiser and assignment values of ``name`` in ``fn``: declarators through
        :meth:`root_identifier`, assignment targets by their whole text."""
        table = self._initialisers_cache.get(fn.name)
        if table is None:
            table = self._initialisers_cache[fn.name] = {}
            for n in walk(fn.body):
                if n.type == "init_declarator":
                    target, v = self.root_identifier(n.child_by_field_name("declarator")), \
                        n.child_by_field_name("value")
                elif n.type == "assignment_expression":
                    target, v = self.text_of(n.child_by_field_name("left")), \
                        n.child_by_field_name("right")
                else:
                    continue
                if target and v is not None:
                    table.setdefault(target, []).append(v)
        return table.get(name, [])

    def local_flows(self, node: Node) -> list[tuple[str, Node]]:
        """``(variable, value)`` for every initialiser and assignment under ``node`` (targets
        through :meth:`root_identifier`)."""
        out = []
        for n in walk(node):
            if n.type == "init_declarator":
                left, right = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            elif n.type == "assignment_expression":
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            else:
                continue
            target = self.root_identifier(left) if left is not None else None
            if target and right is not None:
                out.append((target, right))
        return out

    def pointer_views(self, node: Node | None, names: set[str]) -> set[str]:
        """``names`` and the locals under ``node`` that point into them, to a fixpoint: copies
        (``q = p``), casts (``(T*)p``), offsets (``p + k``) and brace-initialised structs of such
        pointers (``{ (float4*)p, (float4*)p + n }``)."""
        found = set(names)
        if node is None:
            return found
        pairs = [(target, self.pointer_sources(right)) for target, right in self.local_flows(node)]
        changed = True
        while changed:
            changed = False
            for target, sources in pairs:
                if sources & found and target not in found:
                    found.add(target)
                    changed = True
        return found

    def pointer_sources(self, node: Node | None) -> set[str]:
        """The pointers a value points into: ``p``, ``(T*)p``, ``p + k`` and each member of a
        brace initialiser."""
        while node is not None and node.type in ("cast_expression", "parenthesized_expression"):
            node = node.child_by_field_name("value") or (node.named_children or [None])[-1]
        if node is None:
            return set()
        if node.type == "identifier":
            return {self.text_of(node)}
        if node.type == "binary_expression" and \
                self.text_of(node.child_by_field_name("operator")) in ("+", "-"):
            return self.pointer_sources(node.child_by_field_name("left"))
        if node.type == "initializer_list":
            return {s for kid in node.named_children for s in self.pointer_sources(kid)}
        return set()

    def derived(self, fn: Function, seeds: set[str], through: Iterable | None = None,
                index_only: bool = False) -> set[str]:
        """Names in ``fn`` whose value comes from ``seeds`` through :meth:`assignments` (or the
        ``through`` subset of them), to a fixpoint; with ``index_only``, values loaded through
        subscripts do not carry the dependence."""
        found = set(seeds)
        ids_of = self.index_identifiers if index_only else self.identifiers
        pairs = [(name, ids_of(value)) for name, value, _ in
                 (through if through is not None else self.assignments(fn))]
        changed = True
        while changed:
            changed = False
            for name, ids in pairs:
                if name not in found and ids & found:
                    found.add(name)
                    changed = True
        return found

    def feeds(self, loop: Loop, var: str, targets: set[str]) -> bool:
        """Whether variable ``var`` reaches one of ``targets`` inside ``loop``, directly or
        through locals assigned from it (``inv = 1 / sqrtf(sq)``)."""
        flows = self.local_flows(loop.node)
        reach, frontier = {var}, [var]
        while frontier:
            name = frontier.pop()
            for target, right in flows:
                if target not in reach and name in self.identifiers(right):
                    reach.add(target)
                    frontier.append(target)
        return bool(reach & targets)

    def receiver_of(self, call: Node) -> str | None:
        """The plain variable a call's result is stored in (``v = f()``, ``int v = f()``)."""
        p = call.parent
        while p is not None and p.type in ("parenthesized_expression", "cast_expression"):
            p = p.parent
        if p is None:
            return None
        if p.type == "init_declarator":
            d = p.child_by_field_name("declarator")
            return self.text_of(d) if d is not None and d.type == "identifier" else None
        if p.type == "assignment_expression" and \
                self.text_of(p.child_by_field_name("operator")) == "=":
            left = p.child_by_field_name("left")
            return self.text_of(left) if left is not None and left.type == "identifier" else None
        return None

    def assigned_variable(self, node: Node) -> str | None:
        """The variable that receives the value of expression ``node`` (``x = f()``,
        ``T x = f()``, ``x += f()``), through :meth:`root_identifier`."""
        n = node.parent
        while n is not None and n.type in ("parenthesized_expression", "cast_expression"):
            n = n.parent
        if n is None:
            return None
        if n.type == "init_declarator":
            return self.root_identifier(n.child_by_field_name("declarator"))
        if n.type == "assignment_expression":
            return self.root_identifier(n.child_by_field_name("left"))
        return None

    # ----- what an expression reads --------------------------------------------------------
    @cached_property
    def _global_names_cache(self) -> dict[str, set[str]]:
        return {}

    def global_names(self, fn: Function) -> set[str]:
        """Names that refer to global memory in ``fn``: pointer parameters, __device__ globals
        and local pointers derived from them (``const float* row = x + off``)."""
        cache = self._global_names_cache
        if fn.name in cache:
            return cache[fn.name]
        names = cache[fn.name] = {p.name for p in fn.params if p.is_pointer}
        names |= {v.name for v in self.vars if v.space == "device"}
        for n in self.fn_nodes(fn, "init_declarator"):
            d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if d is not None and d.type == "pointer_declarator" and v is not None and \
                    self.identifiers(v) & names:
                nm = self.types.declared(d)[0]
                if nm:
                    names.add(nm)
        # pointers declared first and pointed at global data later (REAL* x; ... x = all_x;)
        for n in self.fn_nodes(fn, "assignment_expression"):
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None and \
                    self.text_of(n.child_by_field_name("operator")) == "=" and \
                    self._local_types.get(fn.name, {}).get(self.text_of(left), "").endswith("*") \
                    and self.identifiers(right) & names:
                names.add(self.text_of(left))
        return names

    def loads(self, call: Node) -> bool:
        """Whether a call only loads device memory: a texture fetch or ``__ldg``
        (``tex1Dfetch<T>(tex, n)``), or a device function of the file whose body returns one
        such load (``fetch(n, map, tex)`` returning ``tex1Dfetch<T>(tex, n)``)."""
        f = call.child_by_field_name("function")
        if f is not None and f.type == "template_function":
            f = f.child_by_field_name("name")
        name = self.text_of(f).split("::")[-1]
        if call_category(name) in ("texture", "ldg"):
            return True
        fn = self.function_of(name)
        body = fn.body if fn is not None and fn.is_device else None
        if body is None or body.named_child_count != 1 or \
                body.named_children[0].type != "return_statement":
            return False
        value = strip(body.named_children[0].named_children[0]) \
            if body.named_children[0].named_child_count else None
        return value is not None and value.type == "call_expression" and value != call and \
            call_category(self.text_of(value.child_by_field_name("function")).split("<")[0]) \
            in ("texture", "ldg")

    def reads_global(self, fn: Function, rhs: Node | None, global_names: set[str],
                     depth: int = 0) -> bool:
        """Whether an expression reads global memory (one of ``global_names``, a texture fetch
        or ``__ldg`` or a helper returning one), directly or through one local variable
        defined before it."""
        for n in nodes_of(rhs, "subscript_expression", "pointer_expression", "call_expression"):
            if n.type == "call_expression":
                if self.loads(n):
                    return True
            elif self.array_name(n) in global_names:
                return True
        if depth > 0 or rhs is None:
            return False
        for name in self.identifiers(rhs):
            for d in self.local_defs(fn, name):
                if d.start_byte < rhs.start_byte and \
                        self.reads_global(fn, d, global_names, depth + 1):
                    return True
        return False

    def computed(self, fn: Function, rhs: Node | None, depth: int = 0) -> bool:
        """Whether an expression computes a value rather than copying data or a literal (casts,
        parentheses, guards ``c ? a[i] : 0`` and ``make_float4`` of copies are copies)."""
        n = strip(rhs)
        if n is None:
            return False
        t = n.type
        if t in ("subscript_expression", "field_expression", "pointer_expression",
                 "number_literal", "true", "false", "null", "sizeof_expression"):
            return False
        if t == "conditional_expression":
            return self.computed(fn, n.child_by_field_name("consequence"), depth) or \
                self.computed(fn, n.child_by_field_name("alternative"), depth)
        if t == "call_expression":
            if self.loads(n):
                return False
            name = self.text_of(n.child_by_field_name("function")).split("::")[-1]
            if name.startswith("make_") or name == "__ldg":
                args = n.child_by_field_name("arguments")
                return any(self.computed(fn, a, depth) for a in args.named_children) \
                    if args is not None else False
            return True
        if t in ("compound_literal_expression", "initializer_list"):  # (struct p){a[i], b[i]}
            vals = n.child_by_field_name("value") if t == "compound_literal_expression" else n
            return any(self.computed(fn, a, depth) for a in vals.named_children) \
                if vals is not None else False
        if t == "identifier":
            if depth > 0:
                return False
            return any(op != "=" or self.computed(fn, r, depth + 1)
                       for op, r in self.local_defs_op(fn, self.text_of(n)))
        return t in ("binary_expression", "unary_expression", "update_expression")

