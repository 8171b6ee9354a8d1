"""PAR-10 multidimensional mapping: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import cg_member, squash, walk


def _yz_use(model, fn):
    """The first ``threadIdx.y``/``blockIdx.z``-style node in ``fn``'s body, cooperative groups'
    ``block.thread_index().y`` and ``block.group_index().z`` included, or None."""
    for n in walk(fn.body):
        if n.type == "field_expression" and \
                model.text_of(n.child_by_field_name("field")) in ("y", "z"):
            arg = n.child_by_field_name("argument")
            if model.text_of(arg) in ("threadIdx", "blockIdx"):
                return n
            if arg is not None and arg.type == "call_expression" and cg_member(
                    model.text_of(arg.child_by_field_name("function"))) in (
                    "thread_index", "group_index", "block_index"):
                return n
    return None


def _yz_fields_set(model, caller, names) -> list[int]:
    """Lines in ``caller`` that set the y or z field of a launch's dim3 (``grid.y = n / T``) to
    something other than 1."""
    if caller is None or caller.body is None:
        return []
    names = {n.strip() for n in names if n and n.strip().isidentifier()}
    out = []
    for n in model.fn_nodes(caller, "assignment_expression"):
        left = n.child_by_field_name("left")
        if left is None or left.type != "field_expression" or \
                model.text_of(left.child_by_field_name("argument")) not in names or \
                model.text_of(left.child_by_field_name("field")) not in ("y", "z"):
            continue
        if model.eval_int(n.child_by_field_name("right"), caller) != 1 and model.is_reachable(n):
            out.append(model.line_of(n))
    return out


def _uses_yz(model, fn) -> bool:
    return _yz_use(model, fn) is not None


def _block_stride_items(model, fn) -> list:
    """Loops that hand whole items to blocks, ``for (b = blockIdx.x; b < n; b += gridDim.x)``,
    in a kernel whose threads (or the device functions it calls) work together on each item."""
    seen, todo, texts = set(), [fn.name], []
    while todo:  # the kernel and the device functions it calls
        name = todo.pop()
        f = model.function_of(name)
        if name in seen or f is None or f.body is None:
            continue
        seen.add(name)
        texts.append(model.text_of(f.body))
        todo += list(model.call_graph.get(name, ()))
    if not any("threadIdx" in t or "thread_rank" in t for t in texts):
        return []
    out = []
    for loop in model.loops_in(fn):
        init = loop.node.child_by_field_name("initializer")
        value = squash(model.text_of(init)).rstrip(";").split("=", 1)[-1] if init is not None else ""
        if re.fullmatch(r"(\([\w\s]+\))?blockIdx\.x", value) and "gridDim.x" in (loop.step or ""):
            out.append(loop)
    return out


def block_per_item(model, fn, block_x: str | None = None) -> bool:
    """The kernel takes its item from blockIdx.x alone and its threads cooperate on a
    fixed-length item (block-stride loop or shared-memory work). ``block_x``: the launch's block
    extent as written, so that ``i += WARP_SIZE`` with ``dim3 block(WARP_SIZE)`` is block-stride."""
    text = squash(model.text_of(fn.body))
    loop_vars = {lp.var for lp in model.loops_in(fn) if lp.var}
    block_vars = model.derived(fn, {"blockIdx"}, index_only=True) - loop_vars
    thread_vars = model.derived(fn, {"threadIdx"}, index_only=True) - loop_vars
    for _, value, _ in model.assignments(fn):
        ids = model.index_identifiers(value)
        if ids & block_vars and ids & thread_vars:
            return False  # a global thread index: one thread per element, not per item
    for a in model.accesses_in(fn):
        ids = model.index_identifiers(a.index_node)
        if ids & block_vars and ids & thread_vars:
            return False
    item_vars = {name for name, value, _ in model.assignments(fn)
                 if re.fullmatch(r"(\([\w\s]+\))?blockIdx\.x", squash(model.text_of(value)))}
    uses_item = bool(item_vars) or re.search(r"blockIdx\.x\)?\*", text) is not None
    shared = model.shared_names(fn)
    for call in model.calls_in(fn):  # items handed to whole blocks at run time
        if call.category == "atomic" and model.receiver_of(call.node) in shared and \
                model.atomic_role(fn, call) == "work":
            uses_item = True
    if not uses_item:
        return False
    for loop in model.loops_in(fn):
        init = loop.node.child_by_field_name("initializer")
        step = loop.step or ""
        amount = re.sub(r"^\w+\+=", "", squash(step))
        block_step = "blockDim" in step or (block_x is not None and amount == squash(block_x))
        if init is not None and "threadIdx" in model.text_of(init) and block_step \
                and "gridDim" not in step:
            bounds = [loop.node.child_by_field_name("condition"), init]
            if any(x.type == "subscript_expression" for b in bounds for x in walk(b)):
                return False  # item length read from an offsets array: LBL-02
            return True
    return bool(model.shared_names(fn)) and any(
        c.category == "sync_threads" for c in model.calls_in(fn))


class MultidimensionalMapping(Detector):
    id = "PAR-10"

    def detect(self, model):
        for kernel in model.reachable_kernels():
            if kernel.body is None or model.launches_of(kernel.name, all=True):
                continue
            # no launch in the file (a kernel file or header): judge the kernel body
            use = _yz_use(model, kernel)
            if use is not None:
                ln = model.line_of(use)
                yield Finding(ln, ln, confidence=0.7, note=f"{kernel.name} indexes a second "
                              "grid or block dimension (no launch in the file)")
            else:
                for loop in _block_stride_items(model, kernel):
                    yield Finding.at(loop.node, 0.7, note=f"{kernel.name}: a block per item, "
                                     "block-stride over the items (no launch in the file)")
        for launch in model.launches_of():
            kernel = model.function_of(launch.kernel)
            caller = model.function_of(launch.caller) if launch.caller else None
            dims, decl_lines, wide = [], [], []  # wide: declarations of a 2-D or 3-D dim3
            multi = None
            for value, expr in ((launch.grid_value, launch.grid), (launch.block_value, launch.block)):
                found = model.dim3_decl(caller, expr or "", launch.node)
                d = [str(v) for v in value] if value is not None else (found[0] if found else None)
                dims.append(d)
                extra = d is not None and any(model.eval_int(x, caller) != 1 for x in d[1:])
                if found is not None and found[1] is not None:
                    decl_lines.append(found[1])
                    if extra:
                        wide.append(found[1])
                if d is not None:
                    multi = bool(multi) or extra
            fields = _yz_fields_set(model, caller, (launch.grid or "", launch.block or ""))
            if fields:  # dim3 g(1, 1, 1); ... g.y = n / TILE;
                multi = True
                decl_lines += fields
            if kernel is None:
                continue
            if multi or (multi is None and _uses_yz(model, kernel)):
                # the span runs from the dim3 declarations to the launch when they are close
                near = [ln for ln in decl_lines if 0 <= launch.line - ln <= 15]
                start = min(near) if near else launch.line
                yield Finding(start, launch.line, confidence=0.9 if multi else 0.75)
                for ln in sorted(set(wide) - set(near)):
                    yield Finding(ln, ln, confidence=0.9)  # a dim3 declared far from the launch
            elif block_per_item(model, kernel, dims[1][0] if dims[1] else launch.block):
                yield Finding(launch.line, launch.line, confidence=0.8)
