"""The walk over function bodies that collects loops, pragmas, calls, launches, declarations and
accesses."""

from __future__ import annotations

import re

from tree_sitter import Node

from strategylens.model.categories import (call_category, capitalised_intrinsic, helper_category,
                                           memory_helper, type_size)
from strategylens.model.items import Access, Call, Function, Launch, Loop, Pragma, VarDecl
from strategylens.model.syntax import LOOP_KINDS, array_dims, declarator_name, unparen, walk


_STRIPED = re.compile(r"(Load|Store)Direct(Warp)?Striped$")
_BITS_IN_NAME = re.compile(r"(?:load|store|ld|st)_?(64|128)(?!\d)", re.IGNORECASE)


def _name_width(name: str) -> int | None:
    """Bytes a load or store helper moves when its name gives the bits (llm.c's ``load128cs``,
    ``store128``, ``ld64``), else None.

    >>> _name_width("load128cs"), _name_width("st_64"), _name_width("load_global")
    (16, 8, None)
    """
    m = _BITS_IN_NAME.search(name.rsplit("::", 1)[-1])
    return int(m.group(1)) // 8 if m else None


# a load or store helper's first template argument read as its width in bytes
HELPER_VECTOR = {8: "int2", 16: "int4"}


class Collection:
    """Fills ``loops``, ``pragmas``, ``calls``, ``launches``, ``vars`` and ``accesses``."""

    def _walk_bodies(self) -> None:
        # global-scope declarations
        for n in walk(self.root):
            if n.type == "function_definition":
                continue
            if n.type == "declaration" and self.in_function(n) is None:
                self._add_declaration(n, None)
            elif n.type == "enumerator":
                self._add_enumerator(n)
            elif n.type in ("preproc_call",) and self.in_function(n) is None:
                self._add_pragma(n, None)
        for f in self._fn_list:
            if f.body is not None:
                self._collect_definitions(f)
        self._wrapper_calls: list[tuple] = []
        for f in self._fn_list:
            if f.body is not None:
                # a constructor's member initialisers run in it: b(__ldg(s + f))
                for init in (c for c in f.node.children if c.type == "field_initializer_list"):
                    self._walk(init, f, [])
                self._walk(f.body, f, [])
        self._add_wrapper_accesses()
        self._merge_constants()
        # dynamic shared memory takes its size from the launches when they agree
        for v in self.vars:
            if v.space == "shared" and v.extern and v.function in self.functions:
                sizes = {self.eval_int(la.smem, self.function_of(la.caller))
                         for la in self.launches if la.kernel == v.function and la.smem}
                if len(sizes) == 1 and None not in sizes:
                    v.size_bytes = sizes.pop()
        # a loop has a barrier when a block or grid synchronisation is called in it
        syncs = [c.node.start_byte for c in self.calls
                 if c.category in ("sync_threads", "grid_sync")]
        for lp in self.loops:
            lp.has_sync = any(lp.node.start_byte <= b < lp.node.end_byte for b in syncs)

    def _add_enumerator(self, n: Node) -> None:
        # enumerators count up from the previous one
        name = self.text_of(n.child_by_field_name("name"))
        val = n.child_by_field_name("value")
        if val is not None:
            v = self.eval_int(val)
        else:
            prev = n.prev_named_sibling
            while prev is not None and prev.type != "enumerator":
                prev = prev.prev_named_sibling
            pv = self.constants.get(self.text_of(prev.child_by_field_name("name"))) \
                if prev is not None else -1
            v = None if pv is None else pv + 1
        if v is not None and name:
            self.constants.setdefault(name, v)

    def _walk(self, node: Node, fn: Function, loops: list[Loop]) -> None:
        """Collect loops, calls, declarations, accesses and pragmas of one function body, in
        source order, over the flat node list (a loop is open until its subtree ends)."""
        flat, ends = self._flat, self._flat_end
        i = self._flat_pos[node.id]
        stop = ends[i]
        open_loops: list[tuple[Loop, int]] = [(lp, stop) for lp in loops]
        device_end = -1  # inside a __device__ lambda of host code until this index
        while i < stop:
            n = flat[i]
            while open_loops and i >= open_loops[-1][1]:
                open_loops.pop()
            cur = open_loops[-1][0] if open_loops else None
            t = n.type
            if t == "lambda_expression" and n.start_byte in self._device_lambdas:
                device_end = max(device_end, ends[i])
            device = fn.is_device or fn.is_kernel or i < device_end
            if t == "function_definition":
                i = ends[i]  # nested methods are walked on their own
                continue
            if t in LOOP_KINDS:
                lp = self._add_loop(n, fn, cur, len(open_loops))
                open_loops.append((lp, ends[i]))
            elif t == "call_expression":
                self._add_call(n, fn, cur)
                if device:
                    self._add_hinted(n, fn)
            elif t == "declaration":
                self._add_declaration(n, fn)
            elif t == "subscript_expression" and device:
                self._add_access(n, fn)
            elif t == "pointer_expression" and n.child_count and n.children[0].type == "*" \
                    and device:
                self._add_deref(n, fn)
            elif t == "preproc_call":
                self._add_pragma(n, fn)
            i += 1

    def _add_pragma(self, n: Node, fn: Function | None) -> None:
        d = n.child_by_field_name("directive")
        if d is None or self.text_of(d).strip() != "#pragma":
            return
        arg = self.text_of(n.child_by_field_name("argument")).strip()
        kind, value = "other", None
        words = arg.split(None, 1)
        if words and words[0] == "unroll":
            kind = "unroll"
            rest = words[1].strip() if len(words) > 1 else ""
            if rest.startswith("(") and rest.endswith(")"):
                rest = rest[1:-1].strip()
            if not rest:
                value = "full"
            else:
                v = self.eval_int(rest, fn)
                value = v if v is not None else rest
        elif words and words[0] == "nounroll":
            kind, value = "unroll", 1
        self.pragmas.append(Pragma(arg, self.line_of(n), fn.name if fn else None, kind, value, n))

    def _add_loop(self, n: Node, fn: Function, parent: Loop | None, depth: int) -> Loop:
        kind = LOOP_KINDS[n.type]
        init_n = n.child_by_field_name("initializer")
        cond_n = n.child_by_field_name("condition")
        step_n = n.child_by_field_name("update")
        var = None
        init_val = None
        if init_n is not None:
            if init_n.type == "declaration":
                d = init_n.child_by_field_name("declarator")
                if d is not None and d.type == "init_declarator":
                    var, _ = declarator_name(d.child_by_field_name("declarator"))
                    init_val = self.eval_int(d.child_by_field_name("value"), fn)
            elif init_n.type == "assignment_expression":
                var = self.text_of(init_n.child_by_field_name("left"))
                init_val = self.eval_int(init_n.child_by_field_name("right"), fn)
            elif init_n.type == "comma_expression":
                left = init_n.child_by_field_name("left")
                if left is not None and left.type == "assignment_expression":
                    var = self.text_of(left.child_by_field_name("left"))
                    init_val = self.eval_int(left.child_by_field_name("right"), fn)
        if cond_n is not None and cond_n.type in ("parenthesized_expression", "condition_clause") \
                and cond_n.named_child_count == 1:
            cond_n = cond_n.named_children[0]
        step_value, step_op = None, None
        if step_n is not None:
            sv, so, sv_var = self._loop_step(step_n, fn)
            step_value, step_op = sv, so
            if var is None:
                var = sv_var
        bound = None
        cmp_op = None
        if cond_n is not None and cond_n.type == "binary_expression":
            op = self.text_of(cond_n.child_by_field_name("operator"))
            left = cond_n.child_by_field_name("left")
            right = cond_n.child_by_field_name("right")
            if op in ("<", "<=", ">", ">=", "!="):
                if var is not None and self.text_of(left) == var:
                    bound, cmp_op = self.eval_int(right, fn), op
                elif var is not None and self.text_of(right) == var:
                    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}
                    bound, cmp_op = self.eval_int(left, fn), flip[op]
                elif var is None:
                    bound = self.eval_int(right, fn)
        if kind in ("while", "do") and var is None and cond_n is not None and \
                cond_n.type == "binary_expression":
            left = cond_n.child_by_field_name("left")
            op = self.text_of(cond_n.child_by_field_name("operator"))
            body = n.child_by_field_name("body")
            if left is not None and left.type == "identifier" and body is not None and \
                    op in ("<", "<=", ">", ">=", "!="):
                name = self.text_of(left)
                steps = [a for a in self._assigns.get(fn.name, {}).get(name, [])
                         if a.type != "init_declarator"
                         and body.start_byte <= a.start_byte < body.end_byte]
                if len(steps) == 1:  # while (i < n) { ...; i += stride; }
                    var = name
                    step_n = steps[0]
                    step_value, step_op, _ = self._loop_step(step_n, fn)
                    bound = self.eval_int(cond_n.child_by_field_name("right"), fn)
                    cmp_op = op
        trip = self._trip_count(init_val, bound, cmp_op, step_value, step_op)
        unroll = self._unroll_for(n, fn)
        lp = Loop(kind, n, fn.name, self.line_of(n), n.end_point[0] + 1, var,
                  self.text_of(init_n) or None, self.text_of(cond_n) or None,
                  self.text_of(step_n) or None, step_value, bound, trip, unroll, depth, parent,
                  False, step_op)
        self.loops.append(lp)
        return lp

    def _loop_step(self, step: Node, fn: Function) -> tuple[int | None, str | None, str | None]:
        if step.type == "comma_expression":
            step = step.child_by_field_name("left") or step
        if step.type == "update_expression":
            arg = self.text_of(step.child_by_field_name("argument"))
            op = self.text_of(step.child_by_field_name("operator"))
            return (1, "+", arg) if op == "++" else (-1, "-", arg)
        if step.type == "assignment_expression":
            var = self.text_of(step.child_by_field_name("left"))
            op = self.text_of(step.child_by_field_name("operator"))
            right = step.child_by_field_name("right")
            if op == "=" and right is not None and right.type == "binary_expression":
                # i = i + c
                bop = self.text_of(right.child_by_field_name("operator"))
                if self.text_of(right.child_by_field_name("left")) == var:
                    op, right = bop + "=", right.child_by_field_name("right")
            v = self.eval_int(right, fn)
            base = op[:-1] if op.endswith("=") else None
            if base == "+":
                return v, "+", var
            if base == "-":
                return (None if v is None else -v), "-", var
            if base in ("*", "/", "<<", ">>"):
                return v, base, var
            return None, None, var
        return None, None, None

    def _unroll_for(self, loop: Node, fn: Function) -> int | str | None:
        prev = loop.prev_sibling
        while prev is not None and prev.type == "comment":
            prev = prev.prev_sibling
        if prev is None or prev.type != "preproc_call":
            # a pragma blanked by _parse that stood right above this loop
            row = loop.start_point[0]
            prev = next((h for h in self._hoisted_pragmas if h.end_point[0] in (row, row - 1)
                         or h.start_point[0] == row - 1), prev)
        if prev is not None and prev.type == "preproc_call":
            d = prev.child_by_field_name("directive")
            arg = self.text_of(prev.child_by_field_name("argument")).strip()
            if d is not None and self.text_of(d).strip() == "#pragma":
                words = arg.split(None, 1)
                if words and words[0] == "unroll":
                    rest = words[1].strip() if len(words) > 1 else ""
                    if rest.startswith("(") and rest.endswith(")"):
                        rest = rest[1:-1].strip()
                    if not rest:
                        return "full"
                    v = self.eval_int(rest, fn)
                    return v if v is not None else rest
                if words and words[0] == "nounroll":
                    return 1
        return None

    def _callee_name(self, call: Node) -> tuple[str, str | None, Node | None, list[str]]:
        """(name, receiver text, receiver node, template args) of a call expression."""
        fnode = call.child_by_field_name("function")
        if fnode is None:
            return "", None, None, []
        targs: list[str] = []
        if fnode.type == "template_function":
            a = fnode.child_by_field_name("arguments")
            targs = [self.text_of(x) for x in (a.named_children if a else [])]
            return self.text_of(fnode.child_by_field_name("name")), None, None, targs
        if fnode.type == "field_expression":
            arg = fnode.child_by_field_name("argument")
            fld = fnode.child_by_field_name("field")
            name = self.text_of(fld)
            if fld is not None and fld.type == "template_method":
                name = self.text_of(fld.child_by_field_name("name"))
            return name, self.text_of(arg), arg, targs
        if fnode.type == "qualified_identifier":
            # drop template arguments inside the qualified name
            parts = []
            q = fnode
            while q is not None and q.type == "qualified_identifier":
                sc = q.child_by_field_name("scope")
                if sc is not None:
                    parts.append(self.text_of(sc.child_by_field_name("name") or sc)
                                 if sc.type == "template_type" else self.text_of(sc))
                q = q.child_by_field_name("name")
            if q is not None:
                if q.type == "template_function":
                    a = q.child_by_field_name("arguments")
                    targs = [self.text_of(x) for x in (a.named_children if a else [])]
                    q = q.child_by_field_name("name")
                parts.append(self.text_of(q))
            return "::".join(parts), None, None, targs
        if fnode.type == "parenthesized_expression":
            return self.text_of(fnode).strip("()"), None, None, targs
        return self.text_of(fnode), None, None, targs

    def _add_call(self, n: Node, fn: Function, loop: Loop | None) -> None:
        name, receiver, recv_node, targs = self._callee_name(n)
        kcs = next((c for c in n.children if c.type == "kernel_call_syntax"), None)
        args_n = n.child_by_field_name("arguments")
        args = [self.text_of(a) for a in (args_n.named_children if args_n else [])]
        line = self.line_of(n)
        if kcs is not None:
            if name not in self.functions and "::" in name and \
                    name.rsplit("::", 1)[1] in self.functions:
                name = name.rsplit("::", 1)[1]  # ns::kernel<<<...>>> launches `kernel`
            cfg = kcs.named_children
            texts = [self.text_of(c) for c in cfg]
            grid = texts[0] if texts else ""
            block = texts[1] if len(texts) > 1 else ""
            self.launches.append(Launch(
                name, n, line, fn.name, grid, block, texts[2] if len(texts) > 2 else None,
                texts[3] if len(texts) > 3 else None,
                self._dim_value(cfg[0] if cfg else None, fn),
                self._dim_value(cfg[1] if len(cfg) > 1 else None, fn), targs, loop, "chevron"))
            return
        if name in ("reinterpret_cast", "static_cast", "const_cast", "dynamic_cast"):
            return
        rtype = None
        if recv_node is not None:
            rtext = self.text_of(recv_node)
            rtype = self._local_types.get(fn.name, {}).get(rtext) or \
                self._local_types.get("", {}).get(rtext) or rtext
            rtype = self.type_aliases.get(rtype, rtype)
            if recv_node.type == "call_expression":
                inner = self._callee_name(recv_node)[0]
                rtype = self.type_aliases.get(inner, inner)
        cat = call_category(name, rtype)
        if cat is None and name in self.type_aliases:
            cat = call_category(self.type_aliases[name])
        outside = (fn.is_device or fn.is_kernel) and cat is None and \
            name.rsplit("::", 1)[-1] not in self.functions  # a helper from a header
        if outside and name not in self.macros:  # SHFL(v, lane): a macro for __shfl
            name = capitalised_intrinsic(name)
            cat = call_category(name) or helper_category(name, rtype)
        self.calls.append(Call(name, n, fn.name, line, args, cat, receiver))
        striped = _STRIPED.match(name.rsplit("::", 1)[-1]) is not None  # a CUB block move
        write = memory_helper(name) if args_n is not None and (cat is None or striped) and \
            (fn.is_device or fn.is_kernel) else None
        if write is not None and (outside or striped):
            width = self.eval_int(targs[0], fn) if targs else _name_width(name)
            self._add_helper_accesses(n, args_n, fn, write, HELPER_VECTOR.get(width), striped)
        elif write is not None and name in self.functions:
            self._wrapper_calls.append((n, args_n, fn, write, name))
        if name in ("cudaLaunchKernel", "cudaLaunchCooperativeKernel") and args_n is not None:
            a = args_n.named_children
            kname = self._strip_fn_ref(a[0]) if a else ""
            self.launches.append(Launch(
                kname, n, line, fn.name, args[1] if len(args) > 1 else "",
                args[2] if len(args) > 2 else "", args[4] if len(args) > 4 else None,
                args[5] if len(args) > 5 else None,
                self._dim_value(a[1] if len(a) > 1 else None, fn),
                self._dim_value(a[2] if len(a) > 2 else None, fn), [], loop,
                "cooperative" if "Cooperative" in name else "api"))
        elif name == "cudaLaunchKernelEx" and args_n is not None and len(args) > 1:
            kname = self._strip_fn_ref(args_n.named_children[1])
            self.launches.append(Launch(kname, n, line, fn.name, args[0], args[0], None, None,
                                        None, None, [], loop, "api"))

    def _add_wrapper_accesses(self) -> None:
        """Thin load/store wrappers the file defines (``ld_vec(p + off)`` returning
        ``*reinterpret_cast<const float4*>(p)``): their pointer parameter's access has no index
        of its own, so each call is also an access at its address argument, moving the type the
        wrapper casts to."""
        for call, args, fn, write, name in self._wrapper_calls:
            found = self.functions.get(name)
            helpers = [h for h in (found if isinstance(found, list) else [found])
                       if h is not None and (h.is_device or h.is_kernel)]
            if not helpers:
                continue
            casts = []  # *p or *reinterpret_cast<const float4*>(p) on a pointer parameter
            # every specialisation (copy_vector<T, 1> and copy_vector<T, 4>)
            params = {p.name for h in helpers for p in h.params if p.is_pointer}
            stack = [h.body for h in helpers if h.body is not None]
            while stack:
                x = stack.pop()
                if x.type == "pointer_expression" and x.children[0].type == "*":
                    name, cast = self._access_base(x.child_by_field_name("argument"))
                    if name in params:
                        casts.append(cast)
                stack.extend(x.named_children)
            if casts:
                self._add_helper_accesses(call, args, fn, write,
                                          next((c for c in casts if c), None))

    def _add_helper_accesses(self, call: Node, args: Node, fn: Function, write: bool,
                             vector: str | None, striped: bool = False) -> None:
        """The memory a load or store helper defined outside the file touches
        (``mem_access::load_global<16>(buf, in + off, ok)``): each argument that is an address
        into an array (``p + off``, ``&p[off]``, or a pointer named alone) is an access at that
        offset; a store writes its first such argument, a load reads them. A first template
        argument of 8 or 16 is the width in bytes (``vector``: the access moves that type).
        ``striped``: a CUB direct striped move, whose first argument is the thread's rank."""
        types = self._local_types.get(fn.name, {})
        pointers = {p.name for p in fn.params if p.is_pointer} | {
            k for k, v in types.items() if v.endswith("*")}
        # CUB's LoadDirectStriped<T>(linear_tid, ptr, items): thread t moves ptr[t + i * T], so
        # the access is at the thread's rank (the first argument)
        local_arrays = {v.name for v in self.vars if v.function == fn.name and v.dims}
        rank = args.named_children[0] if striped and args.named_child_count >= 3 else None
        first = True
        for a in args.named_children:
            inner = unparen(a)
            hit = self._element_address(inner)
            if hit is not None:
                array, cast, idx = hit
            elif inner.type == "identifier":
                array, cast, idx = self.text_of(inner), None, None
            else:
                continue
            if array not in pointers:
                # a local array (copy_vector(temp, src + off)) still takes the store's place
                if first and (hit is not None or array in local_arrays):
                    first = False
                continue
            if rank is not None and a is not rank and (idx is None or "threadIdx" not in
                                                        self.text_of(idx)):
                idx = rank  # p + block_offset: the offset moves no lane, the rank does
            it = self.text_of(idx) if idx is not None else "0"
            w = write and first
            first = False
            self.accesses.append(Access(array, a, fn.name, self.line_of(a), it, w, "unknown",
                                        idx, indices=[it], is_read=not w,
                                        cast_type=vector or cast))

    def _strip_fn_ref(self, node: Node) -> str:
        """Kernel name from ``(void*)kern``, ``&kern``, ``kern<T>``."""
        for x in walk(node):
            if x.type == "identifier" and self.text_of(x) in self.functions:
                return self.text_of(x)
        for x in walk(node):
            if x.type == "identifier":
                return self.text_of(x)
        return self.text_of(node)

    def _dim_value(self, node: Node | None, fn: Function) -> tuple[int, ...] | None:
        if node is None:
            return None
        # dim3(a, b) / dim3{a, b}
        if node.type in ("call_expression", "compound_literal_expression",
                         "initializer_list"):
            args = node.child_by_field_name("arguments") or node.child_by_field_name("value") \
                or node
            vals = [self.eval_int(a, fn) for a in args.named_children]
            return tuple(vals) if vals and None not in vals else None
        if node.type == "identifier":
            init = self._dim3_init(self.text_of(node), fn, node)
            if init is not None:
                return init
        v = self.eval_int(node, fn)
        return (v,) if v is not None else None

    def _add_declaration(self, n: Node, fn: Function | None) -> None:
        quals = set()
        is_static = extern = False
        for c in n.children:
            if c.type == "type_qualifier":
                quals.add(self.text_of(c))
            elif c.type in ("__device__", "__shared__", "__constant__", "__managed__"):
                quals.add(c.type)
            elif c.type == "storage_class_specifier":
                s = self.text_of(c)
                is_static |= s == "static"
                extern |= s == "extern"
        type_text = self._decl_type(n)
        const = "const" in quals or "constexpr" in quals
        for d in n.children_by_field_name("declarator"):
            name, _ = declarator_name(d)
            if name is None:
                # __align__(16) float s[64] parses as parenthesized_declarator with ERROR
                continue
            value = d.child_by_field_name("value") if d.type == "init_declarator" else None
            dims_nodes = array_dims(d)
            is_ptr = any(x.type == "pointer_declarator" for x in walk(d)
                         if x.type.endswith("declarator"))
            if fn is None:
                self._local_types.setdefault("", {})[name] = type_text + ("*" if is_ptr else "")
            # constants
            if const and value is not None and not dims_nodes and not is_ptr:
                v = self.eval_int(value, fn)
                if v is not None:
                    if fn is None:
                        self.constants[name] = v
                    else:
                        self.function_constants.setdefault(fn.name, {})[name] = v
            space = None
            if "__shared__" in quals:
                space = "shared"
            elif "__constant__" in quals:
                space = "constant"
            elif "__device__" in quals or "__managed__" in quals:
                space = "device"
            elif is_static or fn is None:
                if fn is None and (extern and not dims_nodes):
                    space = None
                else:
                    space = "static"
            elif dims_nodes:
                space = "register_array" if (fn.is_device or fn.is_kernel) else "local"
            if space is None:
                continue
            if fn is None and space == "static" and const and not dims_nodes:
                continue  # a file-scope constant, not state
            dims = [self.text_of(x) if x is not None else "" for x in dims_nodes]
            dvals = [self.eval_int(x, fn) if x is not None else None for x in dims_nodes]
            if len(dvals) == 1 and dvals[0] is None and not dims[0] and value is not None and \
                    value.type == "initializer_list":
                dvals = [value.named_child_count]  # float c[] = {1, 2, 3}
            size = None
            esize = type_size(type_text)
            if esize is None and fn is not None and \
                    type_text in self._template_bindings.get(fn.name, {}):
                esize = type_size(self._template_bindings[fn.name][type_text])  # T = float
            if is_ptr:
                esize = 8
            if esize is not None and dvals and None not in dvals:
                size = esize
                for v in dvals:
                    size *= v
            elif esize is not None and not dims_nodes:
                size = esize
            self.vars.append(VarDecl(name, space, type_text + (" *" if is_ptr else ""), dims,
                                     dvals, size, fn.name if fn else None, self.line_of(n), n,
                                     extern, is_static))

    def _decl_type(self, n: Node) -> str:
        """Type text of a declaration (the real type behind ``__align__(16) float``)."""
        type_node = n.child_by_field_name("type")
        type_text = self.text_of(type_node)
        if type_text in ("__align__", "alignas") or (type_node is not None and
                                                     type_node.type == "ERROR"):
            inner = next((x for x in walk(n) if x.type in (
                "primitive_type", "type_identifier", "sized_type_specifier")
                and x != type_node), None)
            type_text = self.text_of(inner) if inner is not None else type_text
        return type_text

    def _collect_definitions(self, fn: Function) -> None:
        """Declarations, assignments and increments of the locals of ``fn``, before anything
        is evaluated, so that constant propagation sees every definition."""
        flat, ends = self._flat, self._flat_end
        i = self._flat_pos[fn.body.id]
        stop = ends[i]
        types = self._local_types.setdefault(fn.name, {})
        decls = self._decls.setdefault(fn.name, {})
        assigns = self._assigns.setdefault(fn.name, {})
        while i < stop:
            n = flat[i]
            t = n.type
            if t == "function_definition":
                i = ends[i]
                continue
            if t == "declaration":
                ty = self._decl_type(n)
                for d in n.children_by_field_name("declarator"):
                    name, _ = declarator_name(d)
                    if name is None:
                        continue
                    is_ptr = any(x.type == "pointer_declarator" for x in walk(d))
                    value = d.child_by_field_name("value") if d.type == "init_declarator" \
                        else None
                    if ty == "auto" and value is not None and value.type == "call_expression":
                        # auto g = cg::this_thread_block(): the type the call makes
                        ty = self._callee_name(value)[0] or ty
                    types[name] = ty + ("*" if is_ptr else "")
                    decls.setdefault(name, []).append((d, n.parent or n))
                    if d.type == "init_declarator" and d.child_by_field_name("value"):
                        assigns.setdefault(name, []).append(d)
            elif t == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    assigns.setdefault(self.text_of(left), []).append(n)
            elif t == "update_expression" or (t == "pointer_expression" and n.child_count
                                                and n.children[0].type == "&"):
                # x++ and &x (which lets a callee write x) are definitions too
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    assigns.setdefault(self.text_of(arg), []).append(n)
            i += 1

    def _merge_constants(self) -> None:
        seen: dict[str, set[int]] = {}
        for consts in self.function_constants.values():
            for k, v in consts.items():
                seen.setdefault(k, set()).add(v)
        for k, vals in seen.items():
            if len(vals) == 1 and k not in self.constants:
                self.constants[k] = next(iter(vals))

    def _access_base(self, arg: Node) -> tuple[str, str | None]:
        """Array name and cast type of a subscript's base expression."""
        cast = None
        node = arg
        for _ in range(8):
            if node.type == "parenthesized_expression" and node.named_child_count == 1:
                node = node.named_children[0]
            elif node.type == "cast_expression":
                td = node.child_by_field_name("type")
                cast = cast or self._pointee(td)
                node = node.child_by_field_name("value")
            elif node.type == "call_expression":
                f = node.child_by_field_name("function")
                a = node.child_by_field_name("arguments")
                if f is not None and f.type == "template_function" and self.text_of(
                        f.child_by_field_name("name")) in ("reinterpret_cast", "static_cast",
                                                           "const_cast"):
                    ta = f.child_by_field_name("arguments")
                    if ta is not None and ta.named_child_count:
                        cast = cast or self._pointee(ta.named_children[0])
                    if a is not None and a.named_child_count:
                        node = a.named_children[0]
                        continue
                break
            elif node.type == "pointer_expression" and node.children[0].type == "&":
                node = node.child_by_field_name("argument")
            elif node.type == "binary_expression":
                node = node.child_by_field_name("left")
            elif node.type == "subscript_expression":
                node = node.child_by_field_name("argument")
            else:
                break
            if node is None:
                return "", cast
        return self.text_of(node), cast

    def _address_of(self, node: Node) -> tuple[str, str | None, Node | None] | None:
        """(array, cast type, element index) of an address written through casts:
        ``reinterpret_cast<const float4*>(&a[i])``, ``(float4*)(a + i)``; None when ``node`` is
        not such an address."""
        cast = None
        for _ in range(8):
            if node.type == "parenthesized_expression" and node.named_child_count == 1:
                node = node.named_children[0]
            elif node.type == "cast_expression":
                cast = cast or self._pointee(node.child_by_field_name("type"))
                node = node.child_by_field_name("value")
            elif node.type == "call_expression":
                f = node.child_by_field_name("function")
                a = node.child_by_field_name("arguments")
                if f is None or f.type != "template_function" or self.text_of(
                        f.child_by_field_name("name")) not in ("reinterpret_cast", "static_cast",
                                                               "const_cast") or \
                        a is None or a.named_child_count != 1:
                    return None
                ta = f.child_by_field_name("arguments")
                if ta is not None and ta.named_child_count:
                    cast = cast or self._pointee(ta.named_children[0])
                node = a.named_children[0]
            else:
                hit = self._element_address(node)  # the cast that counts is the outer one
                return (hit[0], cast, hit[2]) if hit is not None else None
            if node is None:
                return None
        return None

    def _element_address(self, node: Node) -> tuple[str, str | None, Node] | None:
        """(array, the array expression's own cast, element index) of an element address,
        ``p + i`` or ``&p[i]`` (``&(p[i])`` as a macro writes it); None for anything else."""
        if node.type == "binary_expression" and self.text_of(
                node.child_by_field_name("operator")) == "+":
            array, cast = self._access_base(node.child_by_field_name("left"))
            idx = node.child_by_field_name("right")
        elif node.type == "pointer_expression" and node.children[0].type == "&":
            sub = unparen(node.child_by_field_name("argument"))
            if sub is None or sub.type != "subscript_expression":
                return None
            ix = sub.child_by_field_name("indices") or sub.child_by_field_name("index")
            idx = ix.named_children[-1] if ix is not None and \
                ix.type == "subscript_argument_list" and ix.named_child_count else ix
            array, cast = self._access_base(sub.child_by_field_name("argument"))
        else:
            return None
        return (array, cast, idx) if array and idx is not None else None

    def _pointee(self, td: Node | None) -> str | None:
        if td is None:
            return None
        ty = td.child_by_field_name("type")
        return self.text_of(ty) if ty is not None else None

    def _is_write(self, n: Node) -> tuple[bool, bool]:
        p = n.parent
        while p is not None and (p.type == "parenthesized_expression" or (
                p.type == "field_expression" and p.child_by_field_name("argument") == n
                and self.text_of(p.child_by_field_name("operator")) == ".")):
            n, p = p, p.parent  # a[i].x = ... writes the element a[i]
        if p is None:
            return False, True
        if p.type == "assignment_expression" and p.child_by_field_name("left") == n:
            op = self.text_of(p.child_by_field_name("operator"))
            return True, op != "="
        if p.type == "update_expression":
            return True, True
        if p.type == "pointer_expression" and p.children[0].type == "&":
            call = p.parent.parent if p.parent is not None else None
            if call is not None and call.type == "call_expression" and \
                    p.parent.named_children and p.parent.named_children[0] == p:
                name = self._callee_name(call)[0]
                if call_category(name) == "atomic":
                    return True, True
        return False, True

    def _add_access(self, n: Node, fn: Function) -> None:
        if n.parent is not None and n.parent.type == "subscript_expression" and \
                n.parent.child_by_field_name("argument") == n:
            return  # the outer subscript records the whole a[i][j]
        p = n.parent
        while p is not None and p.type == "parenthesized_expression":
            p = p.parent  # &(a[i]) as FLOAT4(a[i]) expands: an address like &a[i]
        if p is not None and p.type == "pointer_expression" and p.children[0].type == "&":
            # &a[i] computes an address; it is an access only as the target of an atomic or
            # the source of __ldg(&a[i]) and its cache-hinted siblings
            call = p.parent.parent if p.parent is not None else None
            if call is None or call.type != "call_expression" or \
                    call_category(self._callee_name(call)[0]) not in ("atomic", "ldg"):
                return
        indices: list[Node] = []
        base = n
        while base is not None and base.type == "subscript_expression":
            idx = base.child_by_field_name("indices") or base.child_by_field_name("index")
            if idx is not None:
                kids = idx.named_children if idx.type == "subscript_argument_list" else [idx]
                indices[:0] = kids
            base = base.child_by_field_name("argument")
        if base is None:
            return
        array, cast = self._access_base(base)
        if not array or not indices:
            return
        inner = self._address_of(base)
        if inner is not None and inner[2] is not None and inner[1] and \
                len(indices) == 1 and self.eval_int(indices[0], fn) == 0:
            # reinterpret_cast<float4*>(&a[i])[0]: a vector access of a at element i
            array, cast, last = inner
            indices = [last]
        w, r = self._is_write(n)
        last = indices[-1]
        self.accesses.append(Access(array, n, fn.name, self.line_of(n), self.text_of(last), w,
                                    "unknown", last, indices=[self.text_of(i) for i in indices],
                                    is_read=r, cast_type=cast))

    def _add_hinted(self, n: Node, fn: Function) -> None:
        """``__ldg(p + i)`` and its cache-hinted siblings: an access of p at element i (the
        ``&p[i]`` form is a subscript, recorded by ``_add_access``)."""
        name = self._callee_name(n)[0]
        args = n.child_by_field_name("arguments")
        if call_category(name) != "ldg" or args is None or not args.named_children:
            return
        first = unparen(args.named_children[0])
        if first is None or first.type != "binary_expression":
            return
        hit = self._element_address(first)
        if hit is None:
            return
        array, cast, idx = hit
        store = name.startswith("__st")
        it = self.text_of(idx)
        self.accesses.append(Access(array, n, fn.name, self.line_of(n), it, store, "unknown",
                                    idx, indices=[it], is_read=not store, cast_type=cast))

    def _add_deref(self, n: Node, fn: Function) -> None:
        arg = n.child_by_field_name("argument")
        if arg is None:
            return
        inner = unparen(arg)
        if inner.type == "binary_expression":
            hit = self._element_address(inner)  # *(p + i)
        elif inner.type in ("identifier", "field_expression"):
            hit = (self.text_of(inner), None, None)
        elif inner.type in ("call_expression", "cast_expression"):
            hit = self._address_of(inner)  # *reinterpret_cast<float4*>(&a[i])
        else:
            hit = None
        if hit is None or not hit[0]:
            return
        array, cast, idx_node = hit
        w, r = self._is_write(n)
        it = self.text_of(idx_node) if idx_node is not None else "0"
        self.accesses.append(Access(array, n, fn.name, self.line_of(n), it, w, "unknown",
                                    idx_node, indices=[it], is_read=r, cast_type=cast))
