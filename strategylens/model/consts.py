"""Constant evaluation: integer folding through literals, operators, sizeof, #define, constexpr,
enumerators, single-assignment locals and template values (per instantiation too), and the
dead regions it implies (``#if 0``, ``if (0)``)."""

from __future__ import annotations

import bisect
import re

from tree_sitter import Node

from strategylens.model.categories import type_size
from strategylens.model.items import Function, Loop, Macro
from strategylens.model.syntax import parser, walk

def int_literal(text: str) -> int | None:
    """Value of a C integer literal (``0x1F``, ``0b101``, ``017``, ``256u``, ``1'000``), or
    None (float literals are not integer constants)."""
    t = text.replace("'", "").rstrip("uUlL")
    try:
        if t.lower().startswith("0x"):
            return int(t, 16)
        if t.lower().startswith("0b"):
            return int(t, 2)
        if len(t) > 1 and t.startswith("0") and t.isdigit():
            return int(t, 8)
        return int(t)
    except ValueError:
        return None


def _cdiv(a: int, b: int) -> int | None:
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a: int, b: int) -> int | None:
    if b == 0:
        return None
    return a - b * _cdiv(a, b)


BINOPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": _cdiv, "%": _cmod,
    "<<": lambda a, b: a << b if 0 <= b < 64 else None,
    ">>": lambda a, b: a >> b if 0 <= b < 64 else None,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b)),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
}


# macros nvcc defines for every file, and those that depend on the pass or the build
PP_PREDEFINED = {"__CUDACC__", "__NVCC__", "__cplusplus", "__CUDACC_VER_MAJOR__",
                 "__CUDACC_VER_MINOR__", "__GNUC__", "__linux__", "__CUDA_RUNTIME_H__"}
PP_UNKNOWN = {"__CUDA_ARCH__", "NDEBUG", "DEBUG", "_DEBUG"}


class Constants:
    """Folds integer expressions; finds code that constants make dead."""

    def _find_dead_regions(self) -> None:
        dead: list[tuple[int, int]] = []
        for n in walk(self.root):
            t = n.type
            if t in ("preproc_if", "preproc_elif"):
                cond = n.child_by_field_name("condition")
                v = self.eval_int(cond)
                alt = n.child_by_field_name("alternative")
                if v == 0:
                    start = cond.end_byte if cond is not None else n.start_byte
                    end = alt.start_byte if alt is not None else n.end_byte
                    dead.append((start, end))
                elif v is not None and alt is not None:
                    dead.append((alt.start_byte, n.end_byte))
            elif t == "preproc_ifdef":
                name_n = n.child_by_field_name("name")
                defined = self._pp_defined(self.text_of(name_n), n)
                if defined is None or name_n is None:
                    continue
                live = defined != any(c.type == "#ifndef" for c in n.children)
                alt = n.child_by_field_name("alternative")
                if not live:
                    dead.append((name_n.end_byte, alt.start_byte if alt else n.end_byte))
                elif alt is not None:
                    dead.append((alt.start_byte, n.end_byte))
            elif t == "if_statement":
                cond = n.child_by_field_name("condition")
                v = self._eval_condition(cond, n)
                if v is None:
                    continue
                cons = n.child_by_field_name("consequence")
                alt = n.child_by_field_name("alternative")
                if v == 0 and cons is not None:
                    dead.append((cons.start_byte, cons.end_byte))
                elif v != 0 and alt is not None:
                    dead.append((alt.start_byte, alt.end_byte))
            elif t == "while_statement":
                cond = n.child_by_field_name("condition")
                if self._eval_condition(cond, n) == 0:
                    body = n.child_by_field_name("body")
                    if body is not None:
                        dead.append((body.start_byte, body.end_byte))
        dead.sort()
        self._dead = dead

    def _eval_condition(self, cond: Node | None, at: Node) -> int | None:
        if cond is None:
            return None
        inner = cond
        if cond.type in ("condition_clause", "parenthesized_expression"):
            kids = [c for c in cond.named_children]
            if len(kids) != 1 or kids[0].type in ("declaration", "init_statement"):
                return None
            inner = kids[0]
        fn = self.in_function(at) if self._fn_starts else None
        return self.eval_int(inner, fn)

    def _pp_defined(self, name: str, at: Node) -> bool | None:
        """Whether macro ``name`` is defined at ``at``: by a ``#define`` above it or by the
        compiler (``__CUDACC__``); None when it depends on the compilation pass or on flags the
        file cannot show (``__CUDA_ARCH__``)."""
        if name in PP_UNKNOWN:
            return None
        if name in PP_PREDEFINED:
            return True
        m = self.macros.get(name)
        if m is None and self.missing_includes:
            # as the compiler does without -D; build options (-DCURAND) are commoner than
            # feature macros of a header, but say so
            self.note(f"{name} is defined nowhere that was read: taken as undefined (it may "
                      "come from a header not found or from -D)")
        return m is not None and m.line < self.line_of(at)

    def _live_macros(self) -> None:
        """A macro defined in a dead branch (``#if 1 ... #else #define EXP exp #endif``) gives way
        to its definition in the live branch."""
        if not self._dead:
            return
        live: dict[str, Node] = {}
        for n in walk(self.root):
            if n.type in ("preproc_def", "preproc_function_def") and not self._in_dead(n):
                live[self.text_of(n.child_by_field_name("name"))] = n
        for name, m in list(self.macros.items()):
            n = live.get(name)
            if n is None or m.line == self.line_of(n) or m.line == 0:
                continue
            ps = n.child_by_field_name("parameters")
            params = [self.text_of(c) for c in ps.named_children] if ps else None
            if n.type == "preproc_function_def" and params is None:
                params = []
            vt = self._directive_value(n.child_by_field_name("value"))
            new = Macro(name, vt, None, self.line_of(n), params)
            if params is None and vt:
                new.value = self.eval_int(vt)
            if m.value is not None and self.constants.get(name) == m.value:
                if new.value is None:
                    del self.constants[name]
                else:
                    self.constants[name] = new.value
            self.macros[name] = new

    def macro_target(self, name: str) -> str:
        """The function an object-like macro names (``#define EXP __expf``), else ``name``."""
        m = self.macros.get(name)
        if m is not None and m.params is None and m.value_text and \
                re.fullmatch(r"[A-Za-z_]\w*(::\w+)*", m.value_text.strip()):
            return m.value_text.strip()
        return name

    def _in_dead(self, node: Node) -> bool:
        s = node.start_byte
        i = bisect.bisect_right(self._dead, (s, float("inf")))
        # regions may nest; check every region that starts before s
        for a, b in self._dead[:i]:
            if a <= s < b:
                return True
        return False

    def _expr_node(self, text: str) -> Node | None:
        src = ("int __sl_e = (" + text + ");").encode("utf8")
        tree = parser().parse(src)
        d = tree.root_node.named_children[0] if tree.root_node.named_child_count else None
        if d is None or d.type != "declaration":
            return None
        init = d.child_by_field_name("declarator")
        if init is None or init.type != "init_declarator":
            return None
        v = init.child_by_field_name("value")
        if v is None or v.has_error:
            return None
        self._tmp_src = src
        return v

    def eval_int(self, expr: str | Node | None, function: Function | None = None) -> int | None:
        """Fold an integer expression through literals, operators, sizeof, #define, constexpr,
        const int, template bindings/defaults and enumerators; None when not constant."""
        if expr is None:
            return None
        if isinstance(expr, str):
            key = (function.name if function else "") + "\0" + expr
            if key in self._expr_cache:
                return self._expr_cache[key]
            self._expr_cache[key] = None  # guards recursion
            node = self._expr_node(expr)
            val = None
            if node is not None:
                try:
                    val = self._eval(node, function, node_src=self._tmp_src)
                except RecursionError:  # generated code with thousands of terms
                    val = None
            self._expr_cache[key] = val
            return val
        try:
            return self._eval(expr, function, node_src=self.source)
        except RecursionError:
            return None

    def warp_sized(self, expr: str, function: Function | None = None) -> bool:
        """``expr`` is the warp size: 32 once folded, the built-in ``warpSize``, or a name
        spelled as the warp size (``WARP_SIZE``, ``kWarpSize``) defined where the model cannot
        see it (a header not given)."""
        text = expr.strip().strip("()").strip()
        value = self.eval_int(text, function)
        if value is not None:
            return value == 32
        return text == "warpSize" or bool(re.fullmatch(r"(\w+::)*k?_?warp_?size", text, re.I))

    def instance_values(self, expr: str | Node, function: Function,
                        _depth: int = 0) -> list[int] | None:
        """The value of ``expr`` in each instantiation of template ``function`` that the file
        makes (``k<4, 4><<<...>>>``, ``launch<64, 64, 16, 4, 4>(...)``, followed through callers
        that are templates themselves); None when some instantiation leaves it unknown.
        ``eval_int`` gives a value only when every instantiation agrees; this gives all of them
        (for example the outputs per thread of each tile configuration)."""
        plain = self.eval_int(expr, function)
        if plain is not None:
            return [plain]
        if _depth > 3 or not function.template_params:
            return None
        sites = self._template_sites.get(function.name, [])
        if not sites:
            return None
        values: list[int] = []
        for args, node in sites:
            caller = self.in_function(node)
            envs: list[dict[str, int]] = []
            per_param: list[list[int]] = []
            for i in range(len(function.template_params)):
                if i >= len(args):
                    per_param.append([])
                    continue
                vals = (self.instance_values(args[i], caller, _depth + 1)
                        if caller is not None else None)
                if vals is None:
                    v = self.eval_int(args[i])
                    vals = [v] if v is not None else []
                per_param.append(vals)
            # a caller instantiated several ways passes each way on: pair values by position
            width = max((len(v) for v in per_param), default=0)
            for k in range(width):
                envs.append({p: vals[k] if k < len(vals) else vals[-1]
                             for p, vals in zip(function.template_params, per_param, strict=True)
                             if vals})
            for env in envs:
                v = self._eval_with(expr, function, env)
                if v is None:
                    return None
                values.append(v)
        return values or None

    def template_value_params(self, function: Function) -> list[str]:
        """Non-type template parameters (``int TM``, ``bool STABLE``, an enum) of ``function``
        and of the class templates around it, in order."""
        cache = self.__dict__.setdefault("_tvp_cache", {})
        key = function.node.start_byte
        if key in cache:
            return cache[key]
        names: list[str] = []
        p = function.node.parent
        while p is not None and p.type != "translation_unit":
            if p.type == "template_declaration":
                plist = p.child_by_field_name("parameters")
                for x in (plist.named_children if plist is not None else []):
                    if x.type in ("parameter_declaration", "optional_parameter_declaration"):
                        d = x.child_by_field_name("declarator")
                        if d is not None and d.type == "identifier":
                            names.append(self.text_of(d))
            p = p.parent
        cache[key] = names
        return names

    def template_types(self, function: Function, name: str, _depth: int = 0) -> set[str] | None:
        """The types template type parameter ``name`` of ``function`` takes in the
        instantiations the file makes (``runTest<float, float4>`` ... ``k<T, V>`` passes V on:
        followed through callers that are templates), aliases resolved; None when some
        instantiation leaves it unknown or there is none."""
        if name not in function.template_params or _depth > 4:
            return None
        i = function.template_params.index(name)
        sites = self._template_sites.get(function.name, [])
        out: set[str] = set()
        for args, node in sites:
            if i >= len(args):
                default = function.template_defaults.get(name)
                if default is None:
                    return None
                out.add(self.resolve_type(default))
                continue
            arg = args[i].strip()
            caller = self.in_function(node)
            if caller is not None and arg in caller.template_params:
                sub = self.template_types(caller, arg, _depth + 1)
                if sub is None:
                    return None
                out |= sub
            else:
                out.add(self.resolve_type(arg.replace("const ", "").strip()))
        return out or None

    def instantiations(self, function: Function) -> list[list[str]]:
        """The explicit template argument lists of the calls and launches of ``function`` that
        the file makes (``k<64, 4><<<g, b>>>(...)`` gives ``['64', '4']``)."""
        return [list(args) for args, _ in self._template_sites.get(function.name, [])]

    def compile_time(self, expr: str | Node | None, function: Function | None) -> bool:
        """Whether ``expr`` is a compile-time constant: it folds (``eval_int``), or every name in
        it is a non-type template parameter (of unknown value where no instantiation in the file
        binds it), a constant, a macro or an enumerator, and it reads no memory and calls
        nothing. An unknown template value is noted."""
        if expr is None:
            return False
        if self.eval_int(expr, function) is not None:
            return True
        if function is None:
            return False
        node = self._expr_node(expr) if isinstance(expr, str) else expr
        if node is None:
            return False
        src = self._tmp_src if isinstance(expr, str) else self.source
        tparams = set(self.template_value_params(function))
        unknown = []
        for x in walk(node):
            if x.type in ("subscript_expression", "call_expression", "field_expression",
                          "pointer_expression", "assignment_expression", "update_expression"):
                return False
            if x.type == "identifier":
                name = src[x.start_byte:x.end_byte].decode("utf8", "replace")
                if name in tparams:
                    unknown.append(name)
                elif self._lookup(name, function) is None:
                    return False
        if not unknown:
            return False
        for name in unknown:
            self.note(f"template parameter {name} of {function.name}: value unknown, taken as "
                      "a compile-time constant")
        return True

    def static_trip(self, loop: Loop) -> bool:
        """Whether ``loop`` runs a compile-time number of times (``for (i = 0; i < TM; ++i)``
        with TM a template parameter), known or not."""
        if loop.trip_count is not None:
            return True
        fn = self.function_of(loop.function) if loop.function else None
        bounds = self._loop_bounds(loop) if fn is not None else None
        if bounds is None or loop.step_value is None or loop.step_op is None:
            return False
        start, _, bound = bounds
        return self.compile_time(start, fn) and self.compile_time(bound, fn)

    def _loop_bounds(self, loop: Loop) -> tuple[Node, str, Node] | None:
        """``(start, comparison, bound)`` of ``for (int i = start; i < bound; ...)``."""
        node = loop.node
        if loop.var is None:
            return None
        init_n, cond_n = node.child_by_field_name("initializer"), node.child_by_field_name("condition")
        start = None
        if init_n is not None and init_n.type == "declaration":
            d = init_n.child_by_field_name("declarator")
            if d is not None and d.type == "init_declarator":
                start = d.child_by_field_name("value")
        elif init_n is not None and init_n.type == "assignment_expression":
            start = init_n.child_by_field_name("right")
        if start is None or cond_n is None or cond_n.type != "binary_expression" or \
                self.text_of(cond_n.child_by_field_name("left")) != loop.var:
            return None
        bound = cond_n.child_by_field_name("right")
        if bound is None:
            return None
        return start, self.text_of(cond_n.child_by_field_name("operator")), bound

    def trip_counts(self, loop: Loop) -> list[int] | None:
        """Trip count of ``loop`` in each instantiation of its (template) function: the plain
        ``trip_count`` when it is known, else the counts of ``for (int i = A; i < B; i += C)``
        with A and B folded per instantiation (``i < TM`` with TM = 4 and 2 gives [4, 2])."""
        if loop.trip_count is not None:
            return [loop.trip_count]
        fn = self.function_of(loop.function) if loop.function else None
        if fn is None or loop.var is None or loop.step_value is None or loop.step_op is None:
            return None
        node = loop.node
        init_n, cond_n = node.child_by_field_name("initializer"), node.child_by_field_name("condition")
        start = None
        if init_n is not None and init_n.type == "declaration":
            d = init_n.child_by_field_name("declarator")
            if d is not None and d.type == "init_declarator":
                start = d.child_by_field_name("value")
        elif init_n is not None and init_n.type == "assignment_expression":
            start = init_n.child_by_field_name("right")
        if start is None or cond_n is None or cond_n.type != "binary_expression" or \
                self.text_of(cond_n.child_by_field_name("left")) != loop.var:
            return None
        op = self.text_of(cond_n.child_by_field_name("operator"))
        starts = self.instance_values(start, fn)
        bounds = self.instance_values(cond_n.child_by_field_name("right"), fn)
        if not starts or not bounds:
            return None
        width = max(len(starts), len(bounds))
        counts = []
        for k in range(width):
            a = starts[min(k, len(starts) - 1)]
            b = bounds[min(k, len(bounds) - 1)]
            t = self._trip_count(a, b, op, loop.step_value, loop.step_op)
            if t is None:
                return None
            counts.append(t)
        return counts

    @staticmethod
    def _trip_count(init, bound, cmp_op, step, step_op) -> int | None:
        if init is None or bound is None or step is None or cmp_op is None:
            return None
        if step_op in ("+", "-"):
            if step == 0:
                return None
            if cmp_op == "<" and step > 0:
                return max(0, -(-(bound - init) // step))
            if cmp_op == "<=" and step > 0:
                return max(0, (bound - init) // step + 1)
            if cmp_op == ">" and step < 0:
                return max(0, -(-(init - bound) // -step))
            if cmp_op == ">=" and step < 0:
                return max(0, (init - bound) // -step + 1)
            if cmp_op == "!=" and (bound - init) % step == 0 and (bound - init) // step >= 0:
                return (bound - init) // step
            return None
        # multiplicative loops: simulate a few steps
        v, count = init, 0
        ops = {"*": lambda x: x * step, "<<": lambda x: x << step,
               "/": lambda x: _cdiv(x, step), ">>": lambda x: x >> step}
        if step_op not in ops or (step_op in ("*", "/") and step in (0, 1)) or step == 0:
            return None
        test = BINOPS[cmp_op]
        while test(v, bound) and count < 4096:
            count += 1
            v = ops[step_op](v)
            if v is None:
                return None
        return count if count < 4096 else None

    def _eval_with(self, expr: str | Node, function: Function, env: dict[str, int]) -> int | None:
        """``eval_int`` with template parameters of ``function`` bound to ``env``."""
        saved_bind = self._template_bindings.get(function.name)
        saved_cache = self._expr_cache
        self._template_bindings[function.name] = {**(saved_bind or {}),
                                                  **{k: str(v) for k, v in env.items()}}
        self._expr_cache = {}
        try:
            return self.eval_int(expr, function)
        finally:
            self._expr_cache = saved_cache
            if saved_bind is None:
                self._template_bindings.pop(function.name, None)
            else:
                self._template_bindings[function.name] = saved_bind

    def _lookup(self, name: str, fn: Function | None) -> int | None:
        if fn is not None:
            fc = self.function_constants.get(fn.name)
            if fc and name in fc:
                return fc[name]
            if any(p.name == name for p in fn.params):
                return None  # a parameter shadows file-level constants
            if name in self._local_types.get(fn.name, {}):
                return self._single_definition(name, fn)
            tb = self._template_bindings.get(fn.name)
            if tb and name in tb:
                if name in self._evaluating:
                    return None
                self._evaluating.add(name)
                try:
                    return self.eval_int(tb[name])
                finally:
                    self._evaluating.discard(name)
        if name in self.constants:
            return self.constants[name]
        m = self.macros.get(name)
        if m is not None and m.params is None and m.value_text:
            if name in self._evaluating:
                return None
            self._evaluating.add(name)
            try:
                return self.eval_int(m.value_text)
            finally:
                self._evaluating.discard(name)
        return None

    def _single_definition(self, name: str, fn: Function) -> int | None:
        """Value of a local that is initialised once and never assigned again
        (``int threads = 256;``), else None."""
        defs = self._assigns.get(fn.name, {}).get(name, [])
        if len(defs) != 1 or defs[0].type != "init_declarator" or \
                len(self._decls.get(fn.name, {}).get(name, [])) != 1:
            return None
        key = f"{fn.name}::{name}"
        if key in self._evaluating:
            return None
        self._evaluating.add(key)
        try:
            return self._eval(defs[0].child_by_field_name("value"), fn, self.source)
        finally:
            self._evaluating.discard(key)

    def _eval(self, n: Node, fn: Function | None, node_src: bytes) -> int | None:
        t = n.type
        txt = lambda x: node_src[x.start_byte:x.end_byte].decode("utf8", "replace")  # noqa: E731
        if t == "number_literal":
            s = txt(n)
            if any(ch in s for ch in ".eEpP") and not s.lower().startswith("0x"):
                return None
            if s.lower().startswith("0x") and ("." in s or "p" in s.lower()):
                return None
            return int_literal(s)
        if t == "preproc_defined":
            ident = next((c for c in n.named_children if c.type == "identifier"), None)
            d = self._pp_defined(txt(ident), n) if ident is not None else None
            return None if d is None else int(d)
        if t == "true":
            return 1
        if t in ("false", "null", "nullptr"):
            return 0
        if t == "char_literal":
            s = txt(n)
            return ord(s[1]) if len(s) == 3 else None
        if t == "identifier":
            return self._lookup(txt(n), fn)
        if t == "qualified_identifier":
            nm = n.child_by_field_name("name")
            return self._lookup(txt(nm), fn) if nm is not None else None
        if t in ("parenthesized_expression", "condition_clause"):
            kids = n.named_children
            return self._eval(kids[0], fn, node_src) if len(kids) == 1 else None
        if t == "unary_expression":
            op = txt(n.child_by_field_name("operator"))
            v = self._eval(n.child_by_field_name("argument"), fn, node_src)
            if v is None:
                return None
            return {"-": -v, "+": v, "~": ~v, "!": int(not v)}.get(op)
        if t == "binary_expression":
            op = txt(n.child_by_field_name("operator"))
            a = self._eval(n.child_by_field_name("left"), fn, node_src)
            if a is None:
                return None
            if op == "&&" and not a:
                return 0
            if op == "||" and a:
                return 1
            b = self._eval(n.child_by_field_name("right"), fn, node_src)
            if b is None or op not in BINOPS:
                return None
            return BINOPS[op](a, b)
        if t == "conditional_expression":
            c = self._eval(n.child_by_field_name("condition"), fn, node_src)
            if c is None:
                return None
            return self._eval(n.child_by_field_name("consequence" if c else "alternative"),
                              fn, node_src)
        if t == "sizeof_expression":
            ty = n.child_by_field_name("type")
            if ty is not None:
                inner = ty.child_by_field_name("type")
                decl = ty.child_by_field_name("declarator")
                if decl is not None and "pointer" in decl.type:
                    return 8
                tt = txt(inner) if inner is not None else txt(ty)
                if fn is not None and tt in self._template_bindings.get(fn.name, {}):
                    tt = self._template_bindings[fn.name][tt]  # sizeof(T) with T = float
                return type_size(self.type_aliases.get(tt, tt))
            val = n.child_by_field_name("value")
            if val is not None:
                name = txt(val).strip("() ")
                if fn is not None and name in self._template_bindings.get(fn.name, {}):
                    name = self._template_bindings[fn.name][name]
                if type_size(self.type_aliases.get(name, name)) is not None:
                    return type_size(self.type_aliases.get(name, name))  # sizeof(float4)
                for v in self.vars:
                    if v.name == name and v.size_bytes is not None:
                        return v.size_bytes
                lt = self._local_types.get(fn.name if fn else "", {}).get(name)
                if lt:
                    return 8 if lt.endswith("*") else type_size(lt)
            return None
        if t == "cast_expression":
            return self._eval(n.child_by_field_name("value"), fn, node_src)
        if t == "call_expression":
            f = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            a = args.named_children if args is not None else []
            if f is None:
                return None
            if f.type == "template_function" and txt(f.child_by_field_name("name")) in (
                    "static_cast", "reinterpret_cast") and len(a) == 1:
                return self._eval(a[0], fn, node_src)
            fname = txt(f)
            if fname in ("min", "max", "std::min", "std::max", "umin", "umax") and len(a) == 2:
                x, y = (self._eval(v, fn, node_src) for v in a)
                if x is None or y is None:
                    return None
                return min(x, y) if "min" in fname else max(x, y)
            if fname in ("int", "unsigned", "size_t") and len(a) == 1:
                return self._eval(a[0], fn, node_src)
            m = self.macros.get(fname)
            if m is not None and m.params is not None and len(m.params) == len(a):
                return self._eval_fn_macro(m, [txt(x) for x in a], fn)
            return None
        return None

    def _eval_fn_macro(self, m: Macro, args: list[str], fn: Function | None) -> int | None:
        """Expand a function-like macro by substituting its parameters token-wise."""
        node = self._expr_node(m.value_text)
        if node is None:
            return None
        src = self._tmp_src
        pieces = []
        last = node.start_byte
        sub = dict(zip(m.params, args, strict=True))
        for x in walk(node):
            if x.type == "identifier" and x.child_count == 0:
                name = src[x.start_byte:x.end_byte].decode()
                if name in sub:
                    pieces.append(src[last:x.start_byte].decode())
                    pieces.append("(" + sub[name] + ")")
                    last = x.end_byte
        pieces.append(src[last:node.end_byte].decode())
        if m.name in self._evaluating:
            return None
        self._evaluating.add(m.name)
        try:
            return self.eval_int("".join(pieces), fn)
        finally:
            self._evaluating.discard(m.name)
