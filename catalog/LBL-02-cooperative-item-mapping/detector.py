"""LBL-02 cooperative item mapping: the detector.

What it reports and what it leaves out is the entry's ``detection`` in strategy.yaml.
"""

from __future__ import annotations

import re

from strategylens.detectors import Detector, Finding
from strategylens.model import Node, enclosing_loops, inside, squash, walk


def _loaded(model, fn, node: Node | None) -> bool:
    """Whether ``node`` reads memory, directly or through variables assigned from loads."""
    loaded_vars = {name for name, value, _ in model.assignments(fn)
                   if any(x.type == "subscript_expression" for x in walk(value))}
    return any(x.type == "subscript_expression" for x in walk(node)) or \
        bool(model.identifiers(node) & loaded_vars)


class CooperativeItemMapping(Detector):
    id = "LBL-02"

    def detect(self, model):
        for fn in model.gpu_functions():
            tiv = model.thread_index_vars(fn) | {"threadIdx"}
            block_items = {name for name, value, _ in model.assignments(fn)
                           if re.fullmatch(r"(\([\w\s]+\))?blockIdx\.x", re.sub(r"\s", "", model.text_of(value)))}
            block_sizes = model.block_size_params(fn)
            reported = set()
            for loop in model.loops_in(fn):
                init = loop.node.child_by_field_name("initializer")
                step = loop.step or ""
                if init is None or "gridDim" in step:
                    continue
                init_ids = model.identifiers(init) - ({loop.var} if loop.var else set())
                if not init_ids & tiv and "thread_rank" not in model.text_of(init) and \
                        not self._lane_offset_in_body(model, fn, loop, tiv):
                    continue
                irregular = _loaded(model, fn, init) or _loaded(model, fn, loop.node.child_by_field_name("condition"))
                step_value = loop.step_value if loop.step_value is not None else model.eval_int(
                    re.sub(r"^.*(\+=|=)", "", step).strip(), fn)
                if step_value == 1:  # for (w = 0; ...; ++w) { k = w * WARP_SIZE + lane; }
                    scaled = self._body_stride(model, fn, loop, tiv)
                    if scaled is not None:
                        step = scaled
                        step_value = model.eval_int(scaled, fn)
                step = self._named(model, fn, step)
                for name in block_sizes:  # i += TPB, TPB the block size
                    step = re.sub(rf"\b{re.escape(name)}\b", "blockDim.x", step)
                if step_value == 32 or re.search(r"\bwarpSize\b|WARP|\bwarp_size\b", step):
                    if loop.bound_value is not None and not irregular:
                        continue  # a warp over a compile-time tile (a copy or a tile reduction)
                    reported.add(loop.node.id)
                    yield Finding.at(loop.node, 0.9 if irregular else 0.6, 32.0)
                elif "blockDim" in step and irregular:
                    cond_ids = model.identifiers(loop.node.child_by_field_name("condition")) | init_ids
                    if cond_ids & block_items or "blockIdx" in model.text_of(init):
                        yield Finding.at(loop.node, 0.85, self._block_size(model, fn))
                elif "blockDim" in step and self._item_length(model, fn, loop, block_items):
                    yield Finding.at(loop.node, 0.7, self._block_size(model, fn))
                elif "blockDim" in step and self._block_row(model, fn, loop, block_items):
                    yield Finding.at(loop.node, 0.6, self._block_size(model, fn))
            yield from self._group_strides(model, fn, reported)

    @staticmethod
    def _group_strides(model, fn, reported: set):
        """A group of G threads per item (``lane = threadIdx.x % G`` beside ``g = threadIdx.x /
        G``) whose lanes stride over the item by G: ``for (k = beg + lane; ...; k += G)``, or
        ``lane += G`` in a loop's body. Evidence is the loop header or the body's advance."""
        for lane, size in model.group_lanes(fn).items():
            for loop in model.loops_in(fn):
                if loop.node.id in reported:
                    continue
                init = loop.node.child_by_field_name("initializer")
                header = loop.var is not None and init is not None and \
                    lane in model.identifiers(init) and \
                    squash(re.sub(r"^.*(\+=|=)", "", loop.step or "")).strip("()") == squash(size)
                if header:
                    reported.add(loop.node.id)
                    yield Finding.at(loop.node, 0.8, CooperativeItemMapping._size(model, fn, size))
                    continue
                for n in walk(loop.node.child_by_field_name("body")):
                    if n.type == "assignment_expression" and \
                            model.text_of(n.child_by_field_name("operator")) == "+=" and \
                            model.text_of(n.child_by_field_name("left")) == lane and \
                            squash(model.text_of(n.child_by_field_name("right"))).strip("()") == \
                            squash(size) and enclosing_loops(n, fn)[0].id == loop.node.id:
                        reported.add(loop.node.id)
                        yield Finding.at(n, 0.8, CooperativeItemMapping._size(model, fn, size))
                        break

    @staticmethod
    def _size(model, fn, size: str) -> float | None:
        value = model.eval_int(size, fn)
        return None if value is None else float(value)

    @staticmethod
    def _named(model, fn, step: str) -> str:
        """A step written through locals defined once (``stride = blockDim.x * VEC``;
        ``i += stride``) with those locals' definitions put in."""
        for name in set(re.findall(r"\b[A-Za-z_]\w*\b", step)):
            defs = [v for n, v, _ in model.assignments(fn) if n == name]
            if len(defs) == 1:
                step = re.sub(rf"\b{name}\b", f"({model.text_of(defs[0])})", step)
        return step

    @staticmethod
    def _item_length(model, fn, loop, block_items: set[str]) -> bool:
        """The loop's bound is computed from data loaded at the block's item (r = radius[b] with
        b = blockIdx.x; n = f(r); for (i = threadIdx.x; i < n; ...)): the item's own length."""
        seeds = {name for name, value, _ in model.assignments(fn)
                 if any(x.type == "subscript_expression" and model.identifiers(x) & block_items
                        for x in walk(value))}
        data = model.derived(fn, seeds, [a for a in model.assignments(fn)
                                         if not inside(a[2], loop.node)]) - {loop.var}
        return bool(model.identifiers(loop.node.child_by_field_name("condition")) & data)

    @staticmethod
    def _block_row(model, fn, loop, block_items: set[str]) -> bool:
        """A block per fixed-length row that the block reduces (or a row it gathers through a
        load, ids[blockIdx.x]): the lanes stride over a
        run-time length (not a compile-time tile), fold it into per-thread partials, and a
        global access in the loop indexes by the loop variable and by the block's item
        (blockIdx.x, or a variable or row pointer computed from it), as in a row-wise norm,
        softmax or loss."""
        if loop.var is None or loop.bound_value is not None:
            return False
        items = block_items | {"blockIdx"}
        if not CooperativeItemMapping._accumulates(model, fn, loop):
            # a gathered row: the item's row is found through a load (id = ids[blockIdx.x])
            items = {name for name, value, _ in model.assignments(fn)
                     if any(x.type == "subscript_expression" and model.identifiers(x) & items
                            for x in walk(value))}
        # row = blockIdx.x; id = ids[row]; src += id * stride (not through the lane index; a
        # row per threadIdx.y, y = blockIdx.x * blockDim.y + threadIdx.y, is a row per group)
        derived = model.derived(fn, items, [a for a in model.assignments(fn)
                                            if "threadIdx.x" not in model.text_of(a[1])]) - {loop.var}
        # the lane's position, directly or through row = i / tile, col = i % tile in the body
        lane_defs = [(name, model.identifiers(value)) for name, value, node in model.assignments(fn)
                     if inside(node, loop.node) and loop.var in model.identifiers(value)]
        lane = {loop.var} | {name for name, _ in lane_defs}
        # idx = offset + i: a lane index that itself adds the item's offset
        mixed = {name for name, ids in lane_defs if ids & (derived - lane)}
        for acc in model.accesses_in(fn):
            if acc.space not in ("global", "unknown") or not inside(acc.node, loop.node):
                continue
            text = " ".join([acc.index_text, *acc.indices])
            ids = set(re.findall(r"[A-Za-z_]\w*", text))
            if ids & lane and (ids & (derived - lane) or ids & mixed or acc.array in derived) and \
                    "gridDim" not in text:
                return True
        # an element whose address goes to a load or store helper: Ldg(v, &src[di])
        for node in walk(loop.node):
            if node.type == "pointer_expression" and model.text_of(node).startswith("&"):
                sub = next((x for x in walk(node) if x.type == "subscript_expression"), None)
                if sub is None:
                    continue
                ids = model.identifiers(sub)
                if loop.var in ids and ids & derived:
                    return True
        return False

    @staticmethod
    def _accumulates(model, fn, loop) -> bool:
        """The lanes fold the row's elements into a per-thread partial (``s += ...``,
        ``m = fmaxf(m, ...)``) or a tally (atomics, a shared histogram): the row is reduced by
        the block, not just cut into columns (a block per row of a dense stencil grid is a 2-D
        decomposition, PAR-10)."""
        shared = model.shared_names(fn)
        for call in model.calls_in(fn):  # atomicAdd(&hist[v], 1), inc(shist, v): into a tally
            if inside(call.node, loop.node) and (
                    "atomic" in call.unqualified.lower() or
                    any(re.match(rf"&?\s*{re.escape(n)}\b", a) for a in call.args for n in shared)):
                return True
        for name, value, node in model.assignments(fn):
            if not inside(node, loop.node) or name == loop.var:
                continue
            text = model.text_of(node)
            if "[" in text.split("=")[0]:
                continue  # a store to an array element, not a partial
            if name in model.identifiers(value) or re.search(r"[-+*|&^]=", text):
                return True
        return False

    @staticmethod
    def _lane_offset_in_body(model, fn, loop, tiv) -> bool:
        """``for (base = beg; base < end; base += 32) { k = base + lane; ... }``: the lanes
        split each chunk of the item inside the body instead of in the loop header."""
        return any(True for _ in CooperativeItemMapping._body_lane_indices(model, fn, loop, tiv))

    @staticmethod
    def _body_lane_indices(model, fn, loop, tiv):
        """Values assigned in the loop's body that add a lane to the loop variable."""
        if loop.var is None:
            return
        for _name, value, node in model.assignments(fn):
            ids = model.identifiers(value)
            if inside(node, loop.node) and loop.var in ids and ids & (tiv - {loop.var}) and \
                    "+" in model.text_of(value):
                yield value

    @staticmethod
    def _body_stride(model, fn, loop, tiv) -> str | None:
        """The multiplier of the loop variable in a lane index built in the body
        (``k = w * WARP_SIZE + lane`` gives ``WARP_SIZE``), or None."""
        var = re.escape(loop.var or "")
        for value in CooperativeItemMapping._body_lane_indices(model, fn, loop, tiv):
            text = re.sub(r"\s", "", model.text_of(value))
            m = re.search(rf"(?<![\w.]){var}\*([\w.]+)|([\w.]+)\*{var}(?![\w.])", text)
            if m:
                return m.group(1) or m.group(2)
        return None

    @staticmethod
    def _block_size(model, fn) -> float | None:
        sizes = {la.block_value[0] for la in model.launches_of(fn.name) if la.block_value}
        return float(sizes.pop()) if len(sizes) == 1 else None
