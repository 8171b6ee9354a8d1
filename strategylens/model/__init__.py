"""Program model of one CUDA file, built once from tree-sitter-cuda; detectors read it.

Contract (the API detectors rely on; lines are 1-based everywhere)::

    build_model(source, path="<string>", entry="solution_compute", index=True) -> ProgramModel

Items (each keeps ``node``, the tree-sitter node, and ``line`` or ``line_start``/``line_end``):

- ``Param(name, type_text, is_pointer, is_const, is_restrict)``
- ``Function(name, node, body, line_start, line_end, qualifiers, is_kernel, is_device, is_host,
  params, template_params, launch_bounds)``; methods are named ``Struct::method``.
- ``Launch(kernel, node, line, caller, grid, block, smem, stream, grid_value, block_value,
  template_args, in_loop, kind)``; ``kind`` is ``'chevron'`` for ``k<<<g, b, smem, stream>>>()``,
  ``'api'`` for cudaLaunchKernel / cudaLaunchKernelEx, ``'cooperative'`` for
  cudaLaunchCooperativeKernel, ``'helper'`` for a kernel handed to a launch helper from a header
  the file lacks (grid and block unknown).
- ``VarDecl(name, space, type_text, dims, dim_values, size_bytes, function, line, node, extern,
  is_static)``; space is ``'shared'``, ``'constant'``, ``'device'`` (``__device__``/``__managed__``
  globals), ``'static'`` (static storage: ``static`` locals and any file-scope variable;
  ``is_static`` says whether the keyword was written), ``'register_array'`` (a local array in
  device code) or ``'local'`` (a local array in host code). An ``extern __shared__`` array takes
  ``size_bytes`` from its kernel's launches when their dynamic shared memory sizes agree.
- ``Loop(kind, node, function, line_start, line_end, var, init, cond, step, step_value,
  bound_value, trip_count, unroll, depth, parent, has_sync, step_op)``; ``unroll`` comes from a
  preceding ``#pragma unroll [N]``: int N, ``'full'`` when bare, 1 means no unroll; ``step_op`` is
  the update operator (``'+'``, ``'-'``, ``'*'``, ``'/'``, ``'<<'``, ``'>>'``); a ``while`` loop
  takes ``var`` and ``step`` from its condition and the single update of that variable in its
  body; ``has_sync`` is true when a block or grid barrier is called inside the loop.
- ``Access(array, node, function, line, index_text, is_write, space, index_node, stride_tx,
  stride_source, indices, is_read, cast_type, stride_expr)``: array subscripts and pointer
  dereferences in device code (kernels, device functions, and ``__device__`` lambdas inside host
  functions, whose accesses carry the host function's name; a lambda parameter index has no
  stride). Host pointers filled by ``cudaMalloc`` count as global memory. ``index_text`` is the
  last (fastest varying) index, ``indices`` all of them; ``cast_type`` the pointee type of a
  ``reinterpret_cast<float4*>(p)[i]`` style access; ``stride_tx`` the coefficient of ``threadIdx.x`` in the linearised index
  (``stride_expr`` its text when it is symbolic, e.g. ``'n'``), including the offset of a local
  pointer into its array (``row = a + tid * n; row[k]`` has stride ``'n'``); ``stride_source`` is
  ``'libclang'`` or ``'tree-sitter'``. ``&a[i]`` is an access only as the target of an atomic or
  the source of ``__ldg``.
- ``Call(name, node, function, line, args, category, receiver)`` for every call expression other
  than ``<<<>>>`` launches; ``name`` is the full callee text for qualified names. Categories:
  alloc, free, async_alloc, copy, copy_async, memset, copy_symbol, sync, device_sync, stream,
  event, graph, pinned, coop_launch, launch_api, occupancy, atomic, shuffle, vote, sync_threads,
  grid_sync, fast_math, ldg, texture, cublas, cusparse, cusolver, cufft, curand, thrust, cub, None.
- ``Pragma(text, line, function, kind, value, node)``; ``Macro(name, value_text, value, line)``.

``ProgramModel`` holds ``path, source, text, lines, tree, root, functions (name -> list),
kernels, device_functions, host_functions, launches, vars, loops, accesses, calls, pragmas,
macros, includes, constants, entry, entry_found, call_graph, reachable, warnings, degraded,
index_status`` and offers ``is_reachable(node)``, ``reachable_kernels()``,
``reachable_functions()``, ``in_function(node)``, ``function_of(name)``, ``loops_in(fn)``,
``accesses_in(fn)``, ``calls_in(fn)``, ``launches_of(kernel)``, ``vars_in(fn, space=None)`` (all
reachable-only unless ``all=True``), ``eval_int(expr, function=None)``, ``text_of(node)``,
``line_of(node)``, ``query(pattern, capture='evidence', reachable=True)``,
``uses_thread_index(node_or_text)`` and ``thread_index_vars(fn)``.

Comments and string literals never produce items. Code in dead branches (``if (0)``, ``#if 0``,
``#ifdef X`` with X not defined above, a condition folding to 0 through constants) and in
functions not reachable from the entry produces items, but ``is_reachable`` and the default
accessors drop them.

``notes`` is a list of short sentences naming an assumption the model made or evidence it lacked
("template parameter TM of sgemm: value unknown", "include \"tiles.cuh\" not found"); any model
module appends to it through ``note(message)``, and the tagger carries it into the file's result.

Beyond the contract: ``function_constants`` (per function), ``type_aliases`` (typedef/using),
``unbalanced_braces`` (line of an unclosed or stray brace, else None), ``index`` (the
:class:`strategylens.model.libclang.IndexResult` when libclang ran), ``subtree(node)`` and the module
function ``walk(node)`` (pre-order walks served as slices of one cached node list: use them
instead of private walkers), ``linear_tx(node, fn)`` (the threadIdx.x coefficient of any
expression), ``cub_collectives(fn)`` (CUB block/warp collectives a function names, aliases
resolved), ``colour_launches`` (launch pairs of a red-black update over two colour arrays), ``unparseable()`` (why the file is not CUDA C++ at all), and the helpers
``call_category``, ``type_size``, ``compile_query``. ``eval_int`` also folds locals that are
initialised once and never reassigned (``int threads = 256;``), ``sizeof(T)`` through template
bindings, ``min``/``max`` and function-like macros.

Parse errors degrade per node: attribute macros (``__align__(16)``) and unknown macros
(``FORCE_INLINE``) that break the parse are blanked (same length, so positions hold) and the file
is parsed again; unknown ones become warnings and set ``degraded``.


Layout: ``items`` (the dataclasses), ``syntax`` (tree-sitter, walks, node helpers), ``categories``
(call categories, type sizes), ``parse`` (parsing and macros), ``consts`` (constant evaluation,
template values and dead regions), ``collect`` (the body walk that fills the items), ``dataflow``
(spaces, definitions of locals, names), ``strides`` (index algebra), ``queries`` (call graph,
reachability, accessors), ``kernel`` and ``host`` (the kernel-side and host-side facts detectors
share), ``problem`` (problem size), ``libclang`` (the index pass) and ``program``
(``ProgramModel`` composing them). Detectors import from this package only.
"""

from __future__ import annotations

from tree_sitter import Node

from strategylens.model.categories import (SCALAR_BYTES, THREAD_BUILTINS, VECTOR_BITS,
                                           call_category, type_size)
from strategylens.model.host import (HOST_SORTS, copy_direction, is_cub_device, is_host_function,
                                     is_library_compute, is_thrust_algorithm, library_call)
from strategylens.model.items import (Access, Call, Function, Launch, Loop, Macro, Param, Pragma,
                                      VarDecl)
from strategylens.model.kernel import halving_or_doubling
from strategylens.model.problem import product
from strategylens.model.program import ProgramModel, build_model
from strategylens.model.strides import (UNKNOWN, cg_member, clamp_like, combine, row_major,
                                        set_stride)
from strategylens.model.syntax import (COMPARISONS, LANGUAGE, LOOP_TYPES, ancestors, assignment_of,
                                       body_loops, call_args, compile_query, enclosing_ifs,
                                       enclosing_loops, in_condition_part, innermost_loop, inside,
                                       line, nodes_of, parser, runs_every_iteration, short_name,
                                       squash, strip, subscript_index, subscript_indices, walk)

__all__ = [
    # building and the items
    "ProgramModel", "build_model", "Node", "Access", "Call", "Function", "Launch", "Loop", "Macro",
    "Param", "Pragma", "VarDecl",
    # vocabulary
    "COMPARISONS", "HOST_SORTS", "LOOP_TYPES", "SCALAR_BYTES", "THREAD_BUILTINS", "VECTOR_BITS",
    "call_category", "type_size", "copy_direction", "is_cub_device", "is_host_function",
    "is_library_compute", "is_thrust_algorithm", "library_call", "halving_or_doubling",
    "product",
    # tree-sitter and node helpers
    "LANGUAGE", "compile_query", "parser", "walk", "ancestors", "assignment_of", "body_loops",
    "call_args", "enclosing_ifs", "enclosing_loops", "in_condition_part", "innermost_loop",
    "inside", "line", "nodes_of", "runs_every_iteration", "short_name", "squash", "strip",
    "subscript_index", "subscript_indices",
    # index algebra
    "UNKNOWN", "cg_member", "clamp_like", "combine", "row_major", "set_stride",
]
