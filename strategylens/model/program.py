"""The program model of one CUDA file: :class:`ProgramModel` composes the concerns of this
package (parsing, constants, collection, data flow, strides, queries, kernel-side and host-side
facts, problem size); :func:`build_model` builds it and runs the libclang pass."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tree_sitter import Node

from strategylens.model.collect import Collection
from strategylens.model.consts import Constants
from strategylens.model.dataflow import DataFlow
from strategylens.model.host import HostFacts
from strategylens.model.items import Access, Call, Function, Launch, Loop, Macro, Pragma, VarDecl
from strategylens.model.kernel import KernelFacts
from strategylens.model.parse import Parsing
from strategylens.model.problem import ProblemSize
from strategylens.model.queries import Queries
from strategylens.model.roles import HostRoles
from strategylens.model.strides import Strides

_MAX_WARNINGS = 20


class ProgramModel(Parsing, Constants, Collection, DataFlow, Strides, Queries, KernelFacts,
                   HostFacts, HostRoles, ProblemSize):
    """Facts about one CUDA source file; see :mod:`strategylens.model` for the contract."""

    def __init__(self, source: str | bytes, path: str = "<string>",
                 entry: str = "solution_compute", include_dirs: Sequence[str] = (),
                 defines: Mapping[str, str] | None = None) -> None:
        if isinstance(source, str):
            source = source.encode("utf8")
        self.path = path
        self.reference: ProgramModel | None = None  # the task's C reference, set by the tagger
        self.source: bytes = source
        self.text: str = source.decode("utf8", "replace")
        self.lines: list[str] = self.text.splitlines()
        self.tree = None
        self.root: Node = None  # set by _parse
        self.entry = entry
        self.include_dirs = list(include_dirs)  # -I folders, after the file's own folder
        self.defines = dict(defines or {})  # -D macros
        self.missing_includes: list[str] = []  # quoted includes found nowhere
        self.headers_read: list[str] = []
        self._outside_defines = ""
        self.entry_found = False
        self.functions: dict[str, list[Function]] = {}
        self.kernels: list[Function] = []
        self.device_functions: list[Function] = []
        self.host_functions: list[Function] = []
        self.launches: list[Launch] = []
        self.vars: list[VarDecl] = []
        self.loops: list[Loop] = []
        self.accesses: list[Access] = []
        self.calls: list[Call] = []
        self.pragmas: list[Pragma] = []
        self.macros: dict[str, Macro] = {}
        self.includes: list[str] = []
        self.constants: dict[str, int] = {}
        self.function_constants: dict[str, dict[str, int]] = {}
        self.type_aliases: dict[str, str] = {}
        self.call_graph: dict[str, set[str]] = {}
        self.reachable: set[str] = set()
        self.warnings: list[str] = []
        self.notes: list[str] = []  # assumptions and missing evidence, one short sentence each
        self.degraded = False
        self.index_status = "unavailable: not run"
        self.unbalanced_braces: int | None = None  # line of an unclosed '{' (or stray '}')
        self.error_bytes = 0  # bytes covered by parse errors
        self.error_count = 0  # ERROR and MISSING nodes
        self.index = None  # set by the libclang pass (strategylens.model.libclang) when it runs
        self._fn_starts: list[int] = []
        self._fn_memo: dict = {}
        self._macro_bodies: dict[str, Node | None] = {}
        self._lin_memo: dict = {}
        self._lin_self: dict = {}  # strides: a variable's coefficient while reading x = f(x)
        self._device_lambdas: set[int] = set()  # start bytes of __device__ lambdas
        self._fn_list: list[Function] = []
        self._indexes: dict = {}  # queries._indexed: items by function or kernel
        self._ids_memo: dict = {}  # dataflow.identifiers by node and text
        self._dead: list[tuple[int, int]] = []
        self._local_types: dict[str, dict[str, str]] = {}
        self._assigns: dict[str, dict[str, list[Node]]] = {}
        self._decls: dict[str, dict[str, list[tuple[Node, Node]]]] = {}
        self._tiv_cache: dict[str, set[str]] = {}
        self._expr_cache: dict[str, int | None] = {}
        self._evaluating: set[str] = set()
        self._template_bindings: dict[str, dict[str, str]] = {}
        self._template_sites: dict[str, list[tuple[list[str], Node]]] = {}
        self._hoisted_pragmas: list[Node] = []
        self._first_tree = None
        self._build()

    def text_of(self, node: Node | None) -> str:
        """Source text of a node ('' for None)."""
        if node is None:
            return ""
        return self.source[node.start_byte:node.end_byte].decode("utf8", "replace")

    @staticmethod
    def line_of(node: Node) -> int:
        """1-based line where a node starts."""
        return node.start_point[0] + 1

    def warn(self, message: str) -> None:
        if len(self.warnings) < _MAX_WARNINGS:
            self.warnings.append(message)
        elif len(self.warnings) == _MAX_WARNINGS:
            self.warnings.append("more problems not listed")

    def note(self, message: str) -> None:
        """Record an assumption the model made or evidence it lacked ("template parameter TM of
        sgemm: value unknown"); any model module may call it. Repeats are dropped."""
        if message not in self.notes and len(self.notes) < _MAX_WARNINGS:
            self.notes.append(message)

    def _build(self) -> None:
        self._parse()
        self._index_nodes_flat()
        self._collect_preproc_and_functions()
        self._bind_templates()
        self._walk_bodies()
        self._add_helper_launches()
        for n in self._hoisted_pragmas:
            self._add_pragma(n, self.in_function(n))
        if self._hoisted_pragmas:
            self.pragmas.sort(key=lambda p: p.line)
        self._add_unroll_macros()
        self._expr_cache.clear()
        for m in self.macros.values():
            if m.params is None and m.value_text:
                m.value = self.eval_int(m.value_text)
                if m.value is not None:
                    self.constants.setdefault(m.name, m.value)
        self._find_dead_regions()
        self._live_macros()
        self._expr_cache.clear()
        self._resolve_spaces()
        self._build_call_graph()
        self._compute_reachability()
        self._estimate_strides()
        _ = self.timing_loops  # host roles and timing loops, with their notes


def build_model(source: str | bytes, path: str = "<string>", entry: str = "solution_compute",
                index: bool = True, include_dirs: Sequence[str] = (),
                defines: Mapping[str, str] | None = None) -> ProgramModel:
    """Parse ``source`` once and build its :class:`ProgramModel`.

    Parameters
    ----------
    source : str or bytes
        CUDA source text.
    path : str
        Name used in warnings and evidence.
    entry : str
        Entry point for reachability (``solution_compute`` by default).
    index : bool
        Run the libclang index pass (:mod:`strategylens.model.libclang`) to refine access strides.
    include_dirs : sequence of str
        ``-I`` folders searched for included headers after the file's own folder (a
        ``compile_commands.json`` entry for the file adds its own).
    defines : mapping, optional
        ``-D`` macros (name to value).

    Returns
    -------
    ProgramModel
    """
    model = ProgramModel(source, path, entry, include_dirs, defines)
    if index:
        try:
            from strategylens.model import libclang
            libclang.annotate(model)
        except ImportError as exc:  # libclang wheel missing
            model.index_status = f"unavailable: {exc}"
    else:
        model.index_status = "unavailable: disabled (--no-index)"
    return model
