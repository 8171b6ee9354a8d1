"""The items of a program model: functions, loops, launches, declarations, accesses, calls,
pragmas and macros. Each keeps ``node``, its tree-sitter node; lines are 1-based."""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node


@dataclass(eq=False)
class Param:
    name: str
    type_text: str
    is_pointer: bool
    is_const: bool
    is_restrict: bool


@dataclass(eq=False)
class Function:
    name: str
    node: Node = field(repr=False)
    body: Node | None = field(repr=False)
    line_start: int
    line_end: int
    qualifiers: set[str]
    is_kernel: bool
    is_device: bool
    is_host: bool
    params: list[Param]
    template_params: list[str]
    launch_bounds: tuple[str, ...] | None
    template_defaults: dict[str, str] = field(default_factory=dict, repr=False)


@dataclass(eq=False)
class Loop:
    kind: str
    node: Node = field(repr=False)
    function: str | None
    line_start: int
    line_end: int
    var: str | None
    init: str | None
    cond: str | None
    step: str | None
    step_value: int | None
    bound_value: int | None
    trip_count: int | None
    unroll: int | str | None
    depth: int
    parent: Loop | None = field(repr=False)
    has_sync: bool
    step_op: str | None = None


@dataclass(eq=False)
class Launch:
    kernel: str
    node: Node = field(repr=False)
    line: int
    caller: str | None
    grid: str
    block: str
    smem: str | None
    stream: str | None
    grid_value: tuple[int, ...] | None
    block_value: tuple[int, ...] | None
    template_args: list[str]
    in_loop: Loop | None = field(repr=False)
    kind: str = "chevron"


@dataclass(eq=False)
class VarDecl:
    name: str
    space: str
    type_text: str
    dims: list[str]
    dim_values: list[int | None]
    size_bytes: int | None
    function: str | None
    line: int
    node: Node = field(repr=False)
    extern: bool
    is_static: bool


@dataclass(eq=False)
class Access:
    array: str
    node: Node = field(repr=False)
    function: str | None
    line: int
    index_text: str
    is_write: bool
    space: str
    index_node: Node | None = field(repr=False)
    stride_tx: int | None = None
    stride_source: str | None = None
    indices: list[str] = field(default_factory=list)
    is_read: bool = True
    cast_type: str | None = None
    stride_expr: str | None = None


@dataclass(eq=False)
class Call:
    name: str
    node: Node = field(repr=False)
    function: str | None
    line: int
    args: list[str]
    category: str | None
    receiver: str | None

    @property
    def unqualified(self) -> str:
        """The callee name without namespaces (``cub::DeviceScan::ExclusiveSum`` ->
        ``ExclusiveSum``)."""
        return self.name.rsplit("::", 1)[-1]


@dataclass(eq=False)
class Pragma:
    text: str
    line: int
    function: str | None
    kind: str
    value: int | str | None
    node: Node = field(repr=False)


@dataclass(eq=False)
class Macro:
    name: str
    value_text: str
    value: int | None
    line: int
    params: list[str] | None = None  # function-like macros
