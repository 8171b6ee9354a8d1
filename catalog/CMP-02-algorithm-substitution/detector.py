"""CMP-02 algorithm substitution: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from strategylens.detectors import Detector, Finding
from strategylens.model import (ProgramModel, assignment_of, line, nodes_of, short_name, squash,
                                strip, subscript_indices)


class AlgorithmSubstitution(Detector):
    id = "CMP-02"

    def detect(self, model: ProgramModel) -> Iterator[Finding]:
        seen: set[int] = set()
        for ln, conf, note in self._all(model):
            if ln not in seen:
                seen.add(ln)
                yield Finding(ln, ln, conf, None, note)

    def _all(self, model):
        yield from self._jacobi_swap(model)
        yield from self._radix_digits(model)
        yield from self._level_loops(model)
        yield from self._colour_launches(model)
        for fn in model.gpu_functions():
            yield from self._pointer_jumps(model, fn)
            yield from self._compare_exchanges(model, fn)
            yield from self._radix_scatters(model, fn)
            for node, cls, _ in model.cub_collectives(fn):
                if cls in ("BlockRadixSort", "BlockMergeSort", "WarpMergeSort"):
                    yield line(node), 0.55, f"block-level sort primitive ({cls})"
        for fn in model.reachable_kernels():
            if fn.body is None:
                continue
            params = {p.name for p in fn.params}
            int_params = {p.name for p in fn.params if not p.is_pointer}
            yield from self._kernel_shapes(model, fn, params, int_params)

    def _kernel_shapes(self, model, fn, params, int_params):
        written: dict[str, list[str]] = {}
        for n in model.fn_nodes(fn, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if left is not None and left.type == "subscript_expression":
                written.setdefault(model.array_name(left), []).append(
                    model.text_of(n.child_by_field_name("right")))
        for n in model.fn_nodes(fn, "assignment_expression", "init_declarator", "if_statement",
                          "call_expression", "binary_expression"):
            if not model.is_reachable(n):
                continue
            if n.type == "assignment_expression":
                left = strip(n.child_by_field_name("left"))
                right = strip(n.child_by_field_name("right"))
                if left is not None and right is not None and left.type == "subscript_expression" \
                        and right.type == "subscript_expression":
                    arr = model.array_name(left)
                    inner = [strip(i) for i in subscript_indices(right)]
                    if model.array_name(right) == arr and inner and inner[0] is not None and \
                            inner[0].type == "subscript_expression" and \
                            model.array_name(inner[0]) == arr:
                        yield line(n), 0.6, "pointer jumping"
            if n.type in ("init_declarator", "assignment_expression"):
                d = n.child_by_field_name("declarator") or n.child_by_field_name("left")
                v = n.child_by_field_name("value") or n.child_by_field_name("right")
                v = strip(v)
                if d is not None and d.type == "identifier" and v is not None and \
                        v.type == "binary_expression" and \
                        model.text_of(v.child_by_field_name("operator")) == "^":
                    a, b = v.child_by_field_name("left"), v.child_by_field_name("right")
                    if model.uses_thread_index(a) and model.eval_int(b, fn) is None and \
                            self._exchange(model, fn, model.text_of(d)):
                        yield line(n), 0.6, "bitonic partner index"
            if n.type == "if_statement":
                cond = n.child_by_field_name("condition")
                for b in nodes_of(cond, "binary_expression"):
                    op = model.text_of(b.child_by_field_name("operator"))
                    if op not in ("==", "!="):
                        continue
                    lhs, rhs = strip(b.child_by_field_name("left")), strip(b.child_by_field_name("right"))
                    for x, y in ((lhs, rhs), (rhs, lhs)):
                        if x is None or y is None:
                            continue
                        if y.type == "identifier" and model.text_of(y) in int_params:
                            if self._parity(model, fn, x):
                                yield line(n), 0.55, "red-black colour"
                            elif op == "==" and x.type == "subscript_expression" and any(
                                    self._is_plus_one(model, r, model.text_of(y))
                                    for r in written.get(model.array_name(x), [])):
                                yield line(n), 0.55, "level-synchronous BFS"

    def _pointer_jumps(self, model, fn):
        """``a[p] = v`` where ``v`` comes, through locals, from ``a[j]`` and ``j`` itself from a
        read of ``a``: each element takes its successor's successor (``x[i] = x[x[i]]``, path
        halving ``next = a[cur]; a[prev] = next``, a packed list ``n = l[i]; l[i] = f(l[n])``)."""
        if fn.body is None:
            return
        for n in model.fn_nodes(fn, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if model.text_of(n.child_by_field_name("operator")) != "=" or left is None or \
                    left.type != "subscript_expression" or not model.is_reachable(n):
                continue
            arr = squash(model.text_of(left.child_by_field_name("argument")))
            right = n.child_by_field_name("right")
            if arr and any(self._reads_of(model, fn, i, arr, 1)
                           for r in self._reads_of(model, fn, right, arr, 2)
                           for i in subscript_indices(r)):
                yield line(n), 0.55, "pointer jumping"

    def _compare_exchanges(self, model, fn):
        """An ``if`` that compares two elements of one array (or keys looked up through them)
        and swaps them, one of them picked by the thread index, run as a step of a network:
        inside a device loop with a barrier, or in a kernel a host loop launches again and
        again (bitonic or odd-even merge steps, transposition sort). A swap in a loop without a
        barrier is a thread's own serial sort."""
        if fn.body is None:
            return
        host_loop = fn.is_kernel and any(la.in_loop is not None for la in model.launches_of(fn.name))
        tids = model.thread_index_vars(fn)
        for n in model.fn_nodes(fn, "if_statement"):
            pair = self._swapped_pair(model, n.child_by_field_name("consequence"))
            if pair is None or not model.is_reachable(n) or not any(
                    model.uses_thread_index(i) or model.identifiers(i) & tids for i in pair[2]):
                continue
            x, y = pair[0], pair[1]
            if not any(self._compares(model, b, x, y)
                       for b in nodes_of(n.child_by_field_name("condition"), "binary_expression")):
                continue
            loops = [lp for lp in model.loops_in(fn) if lp.node.start_byte <= n.start_byte and
                     n.end_byte <= lp.node.end_byte]
            if (loops and any(lp.has_sync for lp in loops)) or (not loops and host_loop):
                yield line(n), 0.5, "compare-exchange step of a sorting network"

    def _radix_scatters(self, model, fn):
        """``out[pos] = key`` where ``pos`` comes, through locals and their fields, from a digit
        of that same key, ``(key >> shift) & M`` with a variable shift: a radix sort (or split)
        pass that scatters each key by its digit. A digit stored as a value is not a scatter."""
        if fn.body is None:
            return
        for n in model.fn_nodes(fn, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            key = strip(n.child_by_field_name("right"))
            if model.text_of(n.child_by_field_name("operator")) != "=" or left is None or \
                    key is None or left.type != "subscript_expression" or \
                    key.type not in ("identifier", "field_expression", "subscript_expression") \
                    or not model.is_reachable(n):
                continue
            want = squash(model.text_of(key))
            exprs = list(subscript_indices(left))
            seen: set[str] = set()
            for _ in range(3):
                if any(self._digit_of(model, fn, b, want) for e in exprs
                       for b in nodes_of(e, "binary_expression")):
                    yield line(n), 0.5, "radix scatter by a digit of the key"
                    break
                nxt = []
                for e in exprs:
                    for name in model.identifiers(e) - seen:
                        seen.add(name)
                        nxt += self._values_of(model, fn, name)
                exprs = nxt

    @staticmethod
    def _values_of(model, fn, name) -> list:
        """Values assigned to local ``name`` or to its fields (``rank.x = ...``)."""
        out = [r for _, r in model.local_defs_op(fn, name)]
        for a in model.fn_nodes(fn, "assignment_expression"):
            target = strip(a.child_by_field_name("left"))
            if target is not None and target.type == "field_expression" and \
                    model.text_of(target.child_by_field_name("argument")) == name:
                out.append(a.child_by_field_name("right"))
        return out

    @staticmethod
    def _digit_of(model, fn, b, key: str) -> bool:
        """``b`` is ``(key >> shift) & M`` with a constant mask and a shift that is not one."""
        if model.text_of(b.child_by_field_name("operator")) != "&":
            return False
        shifted = strip(b.child_by_field_name("left"))
        if shifted is None or shifted.type != "binary_expression" or \
                model.text_of(shifted.child_by_field_name("operator")) != ">>":
            return False
        return squash(model.text_of(shifted.child_by_field_name("left"))) == key and \
            model.eval_int(shifted.child_by_field_name("right"), fn) is None and \
            model.eval_int(b.child_by_field_name("right"), fn) is not None

    @staticmethod
    def _swapped_pair(model, body):
        """``(a[x], a[y], index nodes)`` when ``body`` swaps two elements of one array: a swap
        call (``swap(a[x], a[y])``) or ``a[x] = a[y]`` with a store to ``a[y]``."""
        if body is None:
            return None
        for c in nodes_of(body, "call_expression"):
            args = c.child_by_field_name("arguments")
            if "swap" in short_name(model.text_of(c.child_by_field_name("function"))).lower() \
                    and args is not None and args.named_child_count == 2:
                a, b = (strip(x) for x in args.named_children)
                if a is not None and b is not None and a.type == b.type == "subscript_expression" \
                        and squash(model.text_of(a.child_by_field_name("argument"))) == \
                        squash(model.text_of(b.child_by_field_name("argument"))) and \
                        squash(model.text_of(a)) != squash(model.text_of(b)):
                    return squash(model.text_of(a)), squash(model.text_of(b)), \
                        subscript_indices(a) + subscript_indices(b)
        stores = {}
        for n in nodes_of(body, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if left is not None and left.type == "subscript_expression":
                stores[squash(model.text_of(left))] = (left, strip(n.child_by_field_name("right")))
        for x, (left, right) in stores.items():
            if right is not None and right.type == "subscript_expression":
                y = squash(model.text_of(right))
                if y != x and y in stores and squash(model.text_of(
                        left.child_by_field_name("argument"))) == squash(model.text_of(
                        right.child_by_field_name("argument"))):
                    return x, y, subscript_indices(left) + subscript_indices(right)
        return None

    @staticmethod
    def _compares(model, b, x, y) -> bool:
        """``b`` orders an operand that holds ``x`` against one that holds ``y``."""
        if model.text_of(b.child_by_field_name("operator")) not in ("<", ">", "<=", ">="):
            return False
        lt = squash(model.text_of(b.child_by_field_name("left")))
        rt = squash(model.text_of(b.child_by_field_name("right")))

        def has(text, part):
            return re.search(r"(?<![\w.>])" + re.escape(part), text) is not None
        return (has(lt, x) and has(rt, y)) or (has(lt, y) and has(rt, x))

    @staticmethod
    def _reads_of(model, fn, expr, arr, depth: int) -> list:
        """Subscripts of ``arr`` in ``expr`` or in the definitions of the locals it names,
        followed ``depth`` levels (few: definitions are found by name in the whole function)."""
        out, seen, frontier = [], set(), [expr]
        for _ in range(depth + 1):
            nxt = []
            for e in frontier:
                out += [s for s in nodes_of(e, "subscript_expression")
                        if squash(model.text_of(s.child_by_field_name("argument"))) == arr]
                for name in model.identifiers(e) - seen:
                    seen.add(name)
                    nxt += [r for _, r in model.local_defs_op(fn, name)]
            frontier = nxt
        return out

    @staticmethod
    def _colour_launches(model):
        """Red-black updates over two colour arrays (evidence: both launches)."""
        for a, b in model.colour_launches:
            yield a.line, 0.5, "red-black colour launches"
            yield b.line, 0.5, "red-black colour launches"

    def _level_loops(self, model):
        """A host loop that launches a kernel with a level argument it advances by one, where
        the kernel stores ``level + 1`` into an array element (level-synchronous BFS; evidence:
        the level loop)."""
        for la in model.launches_of():
            lp = la.in_loop
            k = model.function_of(la.kernel)
            if lp is None or k is None or k.body is None:
                continue
            args = model.launch_arg_texts(la)
            for i, p in enumerate(k.params):
                if p.is_pointer or i >= len(args):
                    continue
                arg = args[i].strip()
                advanced = (arg == lp.var and lp.step_value == 1) or (
                    arg != lp.var and self._incremented(model, lp.node, arg))
                if advanced and self._writes_plus_one(model, k, p.name):
                    yield lp.line_start, 0.55, "level-synchronous BFS (level loop)"
                    break
                # the host passes `level + 1` and the kernel stores the parameter as it is
                m = re.fullmatch(r"\(?\s*(\w+)\s*\+\s*1\s*\)?", arg)
                if m and (m.group(1) == lp.var or self._incremented(model, lp.node, m.group(1))) \
                        and self._stores_value(model, k, p.name):
                    yield lp.line_start, 0.55, "level-synchronous BFS (level loop)"
                    break
        # the same level loop inside one persistent kernel (levels separated by grid barriers)
        for k in model.reachable_kernels():
            for lp in model.loops_in(k):
                if lp.var and lp.step_value == 1 and self._writes_plus_one(model, k, lp.var):
                    yield lp.line_start, 0.55, "level-synchronous BFS (device level loop)"

    @staticmethod
    def _stores_value(model, k, name) -> bool:
        """Kernel ``k`` stores parameter ``name`` itself into an array element (``lev[v] = d``)."""
        for n in model.fn_nodes(k, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if left is not None and left.type == "subscript_expression" and \
                    model.text_of(strip(n.child_by_field_name("right"))) == name:
                return True
        return False

    def _writes_plus_one(self, model, k, name) -> bool:
        for n in model.fn_nodes(k, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if left is not None and left.type == "subscript_expression" and \
                    self._is_plus_one(model, model.text_of(n.child_by_field_name("right")), name):
                return True
        for c in model.fn_nodes(k, "call_expression"):
            if short_name(model.text_of(c.child_by_field_name("function"))) in (
                    "atomicCAS", "atomicExch", "atomicMin"):
                args = c.child_by_field_name("arguments")
                if args is not None and any(self._is_plus_one(model, model.text_of(a), name)
                                            for a in args.named_children[1:]):
                    return True
        return False

    @staticmethod
    def _incremented(model, loop_node, name) -> bool:
        for n in nodes_of(loop_node, "update_expression", "assignment_expression"):
            if n.type == "update_expression":
                if model.text_of(n.child_by_field_name("argument")) == name and "++" in model.text_of(n):
                    return True
            elif model.text_of(n.child_by_field_name("left")) == name and \
                    model.text_of(n.child_by_field_name("operator")) == "+=" and \
                    model.eval_int(n.child_by_field_name("right")) == 1:
                return True
        return False

    def _radix_digits(self, model):
        """``(key >> shift) & mask`` in a kernel whose ``shift`` parameter a host loop advances."""
        for la in model.launches_of():
            if la.in_loop is None or la.in_loop.var is None:
                continue
            k = model.function_of(la.kernel)
            if k is None or k.body is None:
                continue
            args = model.launch_arg_texts(la)
            params = [p.name for p in k.params]
            shifts = {params[i] for i, a in enumerate(args)
                      if i < len(params) and la.in_loop.var in a.replace("(", " ").replace(
                          ")", " ").split()}
            for n in model.fn_nodes(k, "binary_expression"):
                if model.text_of(n.child_by_field_name("operator")) != "&":
                    continue
                left = strip(n.child_by_field_name("left"))
                if left is not None and left.type == "binary_expression" and \
                        model.text_of(left.child_by_field_name("operator")) == ">>" and \
                        model.text_of(strip(left.child_by_field_name("right"))) in shifts and \
                        model.eval_int(n.child_by_field_name("right"), k) is not None:
                    yield line(n), 0.5, "radix digit pass"

    def _exchange(self, model, fn, name) -> bool:
        """``name`` indexes an array that is both read and written (a compare-exchange)."""
        arrays_r, arrays_w = set(), set()
        for s in model.fn_nodes(fn, "subscript_expression"):
            if name in {model.text_of(strip(i)) for i in subscript_indices(s)}:
                (arrays_w if assignment_of(s) is not None else arrays_r).add(model.array_name(s))
        return bool(arrays_r & arrays_w)

    @staticmethod
    def _parity(model, fn, x) -> bool:
        x = strip(x)
        if x is None or x.type != "binary_expression":
            return False
        op = model.text_of(x.child_by_field_name("operator"))
        k = model.eval_int(x.child_by_field_name("right"), fn)
        left = strip(x.child_by_field_name("left"))
        return ((op == "%" and k == 2) or (op == "&" and k == 1)) and left is not None and \
            left.type == "binary_expression" and \
            model.text_of(left.child_by_field_name("operator")) == "+" and \
            model.uses_thread_index(left)

    @staticmethod
    def _is_plus_one(model, rhs_text, param) -> bool:
        return rhs_text.replace(" ", "") in (f"{param}+1", f"1+{param}")

    def _jacobi_swap(self, model):
        stencil = {k.name for k in model.reachable_kernels() if self._is_relaxation(model, k)}
        for loop in model.loops_in():
            fn = model.function_of(loop.function) if loop.function else None
            if fn is None or fn.is_kernel or fn.is_device and not fn.is_host:
                continue
            launches = [la for la in model.launches_of()
                        if la.kernel in stencil and
                        loop.node.start_byte <= la.node.start_byte < loop.node.end_byte]
            if not launches:
                continue
            args = set()
            for la in launches:
                args |= {a.strip("&* ") for a in model.launch_arg_texts(la)}
            for ln, a, b in self._swaps(model, loop.node):
                if a in args and b in args:
                    yield ln, 0.5, f"Jacobi ping-pong swap of {a} and {b}"

    @staticmethod
    def _is_relaxation(model, k) -> bool:
        """A Jacobi-style update: an element is written from its neighbours in another array
        (two or more distinct indices) without reading the old value at its own index, as in
        x_new[i] = (b[i] - sum_j a_ij x[j]) / a_ii. Explicit time steps read the centre too."""
        if k.body is None:
            return False
        ptrs = {p.name for p in k.params if p.is_pointer}
        for n in model.fn_nodes(k, "assignment_expression"):
            left = strip(n.child_by_field_name("left"))
            if left is None or left.type != "subscript_expression" or \
                    model.array_name(left) not in ptrs:
                continue
            target = model.array_name(left)
            own = [model.text_of(i).replace(" ", "") for i in subscript_indices(left)]
            exprs = [n.child_by_field_name("right")]
            for name in model.identifiers(exprs[0]):
                exprs += [r for op, r in model.local_defs_op(k, name)]
            reads: dict[str, set[str]] = {}
            for e in exprs:
                for sub in nodes_of(e, "subscript_expression"):
                    arr = model.array_name(sub)
                    if arr in ptrs and arr != target:
                        reads.setdefault(arr, set()).add(
                            ",".join(model.text_of(i).replace(" ", "")
                                     for i in subscript_indices(sub)))
            if any(len(ix) >= 2 and ",".join(own) not in ix for ix in reads.values()):
                return True
        return False

    def _swaps(self, model, loop_node):
        for c in nodes_of(loop_node, "call_expression"):
            if short_name(model.text_of(c.child_by_field_name("function"))) == "swap":
                args = c.child_by_field_name("arguments")
                if args is not None and args.named_child_count == 2:
                    yield line(c), model.text_of(args.named_children[0]), \
                        model.text_of(args.named_children[1])
        # t = a; a = b; b = t;
        assigns = []
        for n in nodes_of(loop_node, "init_declarator", "assignment_expression"):
            d = n.child_by_field_name("declarator") or n.child_by_field_name("left")
            v = n.child_by_field_name("value") or n.child_by_field_name("right")
            if d is not None and v is not None and n.type == "init_declarator" and \
                    d.type == "pointer_declarator":
                d = d.child_by_field_name("declarator")
            if d is not None and v is not None and d.type == "identifier" and \
                    strip(v) is not None and strip(v).type == "identifier":
                assigns.append((line(n), model.text_of(d), model.text_of(strip(v))))
        for i in range(len(assigns) - 2):
            (l1, t, a), (_, a2, b), (_, b2, t2) = assigns[i:i + 3]
            if a == a2 and b == b2 and t == t2:
                yield l1, a, b
