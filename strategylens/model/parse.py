"""Parsing and macros: the tree-sitter parse (with attribute and unknown macros blanked), parse
errors, #define values, functions, parameters, type aliases and template bindings."""

from __future__ import annotations

import os
import re

from tree_sitter import Node, QueryCursor, Tree

from strategylens.model.items import Function, Macro, Param, Pragma
from strategylens.model.preproc import (compile_flags, define_lines, expand_statement_macros,
                                        find_headers, library_defines, normalise_spellings,
                                        position_helpers, qualify_attribute_macros,
                                        resolve_conditionals, unwrap_fragment_conditionals,
                                        wrapper_macros)
from strategylens.model.syntax import (SKIP_TYPES, compile_query, declarator_name, parser, remember,
                                       walk)

_KNOWN_ATTRIBUTE_MACROS = {"__align__", "__launch_bounds__", "alignas", "__restrict__",
                           "__forceinline__", "__noinline__", "__inline__", "__device__",
                           "__host__", "__global__", "__shared__", "__constant__", "__managed__",
                           "__grid_constant__", "__cluster_dims__", "CUDA_CALLABLE"}

# a line holding only an unroll macro, with an optional argument list
_UNROLL_MACRO = re.compile(rb"(?m)^[ \t]*([A-Za-z_]\w*(?:[ \t]*\([^()\n]*\))?)[ \t]*(?://[^\n]*)?$")


_OUTSIDE_OBJECT = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:[ \t]+([^\n]*))?$", re.M)
_OUTSIDE_FUNCTION = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)",
                               re.M)


def _macro_text(value: str) -> str:
    """A #define's value without trailing comments: tree-sitter keeps `4  // note` as one
    preproc_arg token. Quotes are respected so "//" inside a string literal stays."""
    out, i, quote = [], 0, None
    while i < len(value):
        c = value[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < len(value):
                out.append(value[i + 1])
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            out.append(c)
        elif value.startswith("//", i):
            break
        elif value.startswith("/*", i):
            end = value.find("*/", i + 2)
            if end < 0:
                break
            out.append(" ")
            i = end + 1
        else:
            out.append(c)
        i += 1
    return "".join(out).strip()


def _parse_fails(root: Node) -> bool:
    """Whether a parse lacks a '}', has a stray one, or is mostly errors: a file that cannot be
    tagged."""
    if not root.has_error:
        return False
    error_bytes, error_end = 0, -1
    for n in walk(root):
        if n.is_missing and n.type == "}":
            return True
        if n.type == "ERROR":
            if any(c.type == "}" for c in n.children):
                return True
            if n.start_byte >= error_end:
                error_bytes += n.end_byte - n.start_byte
                error_end = n.end_byte
    return error_bytes > 0.5 * max(1, root.end_byte)


class Parsing:
    """Builds the tree and the file-level items (functions, macros, includes, aliases)."""

    def _parse(self) -> None:
        """Parse; when attribute macros (``__align__(16)``) or unknown macros (``FORCE_INLINE``)
        break the parse, blank exactly those tokens (same byte length, so lines and columns do
        not move) and parse again. Unknown macros are reported as warnings. Statement macros the
        grammar cannot read (a loop header, a launch) are expanded first, lines kept."""
        extra = self._read_headers()
        expanded = expand_statement_macros(self.source, extra)
        if expanded is not None:
            self.source, names = expanded
            self.text = self.source.decode("utf8", "replace")
            self.lines = self.text.splitlines()
            for name in names:
                self.note(f"macro {name} expanded where it is used (a loop, launch or access "
                          "inside)")
        wrapped = wrapper_macros(self.source, extra)
        if wrapped is not None:
            self.source = wrapped[0]
            self.text = self.source.decode("utf8", "replace")
            self.lines = self.text.splitlines()
            self.note("wrapper macros read as the launch or call they wrap: " +
                      ", ".join(wrapped[1]))
        unwrapped = unwrap_fragment_conditionals(self.source)
        if unwrapped is not None:
            self.source = unwrapped[0]
            self.note(f"{unwrapped[1]} conditional fragment(s) inside declarations kept as if "
                      "their condition held")
        qualified = qualify_attribute_macros(self.source, extra)
        if qualified is not None:
            self.source, names, guessed = qualified
            for name, (line, qual) in sorted(guessed.items(), key=lambda kv: kv[1]):
                self.warn(f"line {line}: unknown macro '{name}'; read as {qual} from its name")
                self.degraded = True
            self.text = self.source.decode("utf8", "replace")
            self.lines = self.text.splitlines()
            self.note("attribute macros read as CUDA qualifiers: " + ", ".join(names))
        positions = position_helpers(self.source)
        if positions is not None:
            self.source = positions[0]
            self.note("position helpers read as CUDA built-ins: " + ", ".join(positions[1]))
        self.source = normalise_spellings(self.source)
        self.text = self.source.decode("utf8", "replace")
        self.lines = self.text.splitlines()
        before = list(self.warnings), self.degraded
        src, tree = self._parse_masked(self.source)
        if _parse_fails(tree.root_node):
            after = self.warnings, self.degraded
            self.warnings, self.degraded = before
            resolved = self._resolve_configuration(extra)
            if resolved is not None:
                src, tree = resolved
            else:
                self.warnings, self.degraded = after
        # `for (...)` NEWLINE `#pragma unroll` NEWLINE `for (...) body;` without braces: the
        # grammar closes the outer loop with an empty body at the pragma, so the loops would not
        # nest. Blank such pragmas (same length: lines do not move), parse again, and keep their
        # nodes from the first tree for `pragmas` and `Loop.unroll`.
        hoisted = self._pragmas_inside_headers(tree.root_node) if b"#pragma" in src else []
        if hoisted:
            buf = bytearray(src)
            for n in hoisted:
                for i in range(n.start_byte, n.end_byte):
                    if buf[i] not in (0x0A, 0x0D):
                        buf[i] = 0x20
            self._first_tree = tree  # keeps the hoisted nodes valid
            self._hoisted_pragmas = hoisted
            tree = parser().parse(bytes(buf))
        self.tree = tree
        self.root = tree.root_node

    def _parse_masked(self, source: bytes) -> tuple[bytes, Tree]:
        """Parse ``source`` with unroll macros blanked and, when that fails, the unknown
        macros near the errors blanked too; returns the text parsed and its tree."""
        src = self._mask_unroll_macros(source)
        tree = parser().parse(src)
        if tree.root_node.has_error:
            masked = self._mask_macros(tree.root_node, src)
            if masked is not None:
                src = masked
                tree = parser().parse(src)
        return src, tree

    def _resolve_configuration(self, extra: str) -> tuple[bytes, Tree] | None:
        """The file does not parse as written, as when ``#if`` branches open or close braces
        differently: read it as a compiler would under one set of build options, the
        options it tests but nothing defines taken as defined (all features on) or, when that
        does not parse either, as undefined. Returns the text parsed and its tree, or None
        when neither parses."""
        for assume in (True, False):
            resolved = resolve_conditionals(self.source, extra, assume)
            if resolved is None:
                return None
            kept = list(self.warnings), self.degraded, self.source
            self.source, names = resolved  # the masking reads names through self.source
            src, tree = self._parse_masked(self.source)
            if _parse_fails(tree.root_node):
                self.warnings, self.degraded, self.source = kept
                continue
            self.text = self.source.decode("utf8", "replace")
            self.lines = self.text.splitlines()
            said = ", ".join(names) if names else "no build option"
            self.note("the file parses only under one configuration of its #if groups: read "
                      f"with {said} {'defined' if assume else 'undefined'} (tested but defined "
                      "nowhere that was read), the branches not taken left out")
            return src, tree
        return None

    def _read_headers(self) -> str:
        """The ``#define`` lines that reach this file from outside it: ``-D`` macros (given, or
        from a ``compile_commands.json`` entry for the file) and the headers it includes that
        can be found (its folder, ``-I``). Headers not found are noted."""
        dirs, defines = list(self.include_dirs), dict(self.defines)
        if os.path.isfile(self.path):
            flags = compile_flags(self.path)
            if flags is not None:
                dirs += [d for d in flags[0] if d not in dirs]
                defines = {**flags[1], **defines}
                self.note("include folders and macros taken from compile_commands.json")
        folder = os.path.dirname(os.path.abspath(self.path)) if os.path.isfile(self.path) else None
        headers, missing = find_headers(self.text, folder, dirs)
        self.missing_includes = missing
        for name in missing:
            self.note(f'include "{name}" not found: its macros and declarations are unknown')
        lines = [f"#define {k} {v}" for k, v in defines.items()]
        lines += [define_lines(text) for _, text in headers]
        self.headers_read = [h for h, _ in headers]
        outside = "\n".join(x for x in lines if x)
        library = library_defines(self.text, outside)
        if library:
            self.note("framework macros read with their usual definitions: " + ", ".join(
                ln.split()[1].split("(")[0] for ln in library.splitlines()))
        self._outside_defines = "\n".join(x for x in (outside, library) if x)
        return self._outside_defines

    def _add_outside_macros(self) -> None:
        """Macros from headers and ``-D`` (line 0: defined before every line of the file),
        unless the file defines them itself."""
        for m in _OUTSIDE_OBJECT.finditer(self._outside_defines):
            self.macros.setdefault(m.group(1), Macro(m.group(1), _macro_text(m.group(2) or ""), None, 0))
        for m in _OUTSIDE_FUNCTION.finditer(self._outside_defines):
            params = [x.strip() for x in m.group(2).split(",") if x.strip()]
            body = _macro_text(re.sub(r"\\\r?\n", " ", m.group(3)))
            self.macros.setdefault(m.group(1), Macro(m.group(1), body, None, 0, params))

    def _mask_unroll_macros(self, src: bytes) -> bytes:
        """Blank lines that hold only an unroll macro (``CUTLASS_PRAGMA_UNROLL``, ``CUTE_UNROLL``,
        ``_CCCL_PRAGMA_UNROLL_FULL()``, ``_Pragma("unroll")``): they stand for ``#pragma unroll``
        but break the parse of the loop after them. Their lines are kept in ``unroll_macros``
        (line -> text) for :meth:`_add_unroll_macros`."""
        self.unroll_macros: dict[int, str] = {}
        if b"UNROLL" not in src and b"_Pragma" not in src:
            return src
        buf = bytearray(src)
        for m in _UNROLL_MACRO.finditer(src):
            text = m.group(1).decode("utf8", "replace")
            if b"NOUNROLL" in m.group(1).upper() or not (
                    b"UNROLL" in m.group(1) or b"unroll" in m.group(1)):
                continue
            self.unroll_macros[src.count(b"\n", 0, m.start(1)) + 1] = text
            buf[m.start(1):m.end(1)] = b" " * (m.end(1) - m.start(1))
        return bytes(buf)

    def _add_unroll_macros(self) -> None:
        """An unroll macro becomes an unroll pragma of the loop that follows it."""
        for ln, text in sorted(self.unroll_macros.items()):
            loop = min((lp for lp in self.loops if lp.line_start > ln),
                       key=lambda lp: lp.line_start, default=None)
            if loop is None or loop.line_start > ln + 2:
                continue
            m = re.search(r"\(\s*(\d+)\s*\)", text)
            value = int(m.group(1)) if m else "full"
            if loop.unroll is None:
                loop.unroll = value
            self.pragmas.append(Pragma(f"unroll (macro {text})", ln, loop.function, "unroll",
                                       value, loop.node))
        self.pragmas.sort(key=lambda p: p.line)

    @staticmethod
    def _pragmas_inside_headers(root: Node) -> list[Node]:
        found = []
        loops = QueryCursor(compile_query("[(for_statement) (while_statement)] @loop")).captures(
            root).get("loop", [])
        for n in loops:
            body = n.child_by_field_name("body")
            if body is None or body.type != "expression_statement" or \
                    body.end_byte - body.start_byte > 1:
                continue
            nxt = n.next_sibling
            while nxt is not None and nxt.type == "comment":
                nxt = nxt.next_sibling
            if nxt is not None and nxt.type == "preproc_call" and nxt.text is not None and \
                    nxt.text.lstrip().startswith(b"#pragma"):
                found.append(nxt)
        return found

    def _mask_macros(self, root: Node, src: bytes) -> bytes | None:
        defined = set()
        for n in root.children:
            if n.type in ("preproc_def", "preproc_function_def"):
                defined.add(self.text_of(n.child_by_field_name("name")))
        spans: dict[int, int] = {}
        unknown: dict[str, int] = {}
        stack = [root]
        while stack:
            n = stack.pop()
            if n.type != "ERROR" and not n.is_missing:
                if n.has_error:
                    stack.extend(n.children)
                continue
            cands = [c for c in self._near(n) if c.type in ("identifier", "type_identifier")]
            cands += [c for c in n.children if c.type in ("identifier", "type_identifier")]
            in_lambda = n.parent is not None and n.parent.type == "lambda_expression"
            for c in cands:
                name = self.text_of(c)
                if in_lambda and name in ("__device__", "__host__") and c.parent == n:
                    self._device_lambdas.add(n.parent.start_byte)  # [=] __device__ (int i)
                    spans[c.start_byte] = c.end_byte  # the qualifier only, not the parameters
                    continue
                if name in ("__align__", "alignas"):
                    pass
                elif name in _KNOWN_ATTRIBUTE_MACROS or name in defined:
                    continue
                elif not ((name.isupper() and len(name) > 2 and "_" in name) or
                          (name.startswith("__") and name.endswith("__"))):
                    continue
                else:
                    unknown.setdefault(name, self.line_of(c))
                end = c.end_byte
                j = end
                while j < len(src) and src[j:j + 1] in (b" ", b"\t"):
                    j += 1
                if j < len(src) and src[j:j + 1] == b"(":  # blank a macro's argument list too
                    depth = 0
                    for k in range(j, min(len(src), j + 200)):
                        ch = src[k:k + 1]
                        depth += ch == b"("
                        depth -= ch == b")"
                        if depth == 0:
                            end = k + 1
                            break
                spans[c.start_byte] = end
        if not spans:
            return None
        buf = bytearray(src)
        for a, b in spans.items():
            for k in range(a, b):
                if buf[k] not in (10, 13):
                    buf[k] = 32
        for name, line in sorted(unknown.items(), key=lambda kv: kv[1]):
            self.warn(f"line {line}: unknown macro '{name}'; parsed without it")
        if unknown:
            self.degraded = True
        return bytes(buf)

    def _index_nodes_flat(self) -> None:
        """One pre-order list of every node (not descending into comments and strings) with
        each node's subtree end, so that any subtree walk is a list slice."""
        flat: list[Node] = []
        end: list[int] = []
        pos: dict[int, int] = {}
        stack: list = [self.root]
        while stack:
            n = stack.pop()
            if type(n) is int:
                end[n] = len(flat)
                continue
            i = len(flat)
            flat.append(n)
            end.append(i + 1)
            pos[n.id] = i
            if n.child_count and n.type not in SKIP_TYPES:
                stack.append(i)
                stack.extend(reversed(n.children))
        self._flat, self._flat_end, self._flat_pos = flat, end, pos
        remember(self)

    def subtree(self, node: Node) -> list[Node]:
        """``node`` and its descendants in pre-order (comments and strings not entered)."""
        i = self._flat_pos.get(node.id)
        if i is not None and self._flat[i].start_byte == node.start_byte and \
                self._flat[i].type == node.type:
            return self._flat[i:self._flat_end[i]]
        return list(walk(node))

    def _collect_preproc_and_functions(self) -> None:
        errors = 0
        error_end = -1
        for n in walk(self.root):
            t = n.type
            if t == "ERROR" or n.is_missing:
                errors += 1
                self._note_error(n)
                if n.start_byte >= error_end:  # outermost errors only
                    self.error_bytes += n.end_byte - n.start_byte
                    error_end = n.end_byte
            elif t == "function_definition":
                self._add_function(n)
            elif t == "preproc_def":
                name = self.text_of(n.child_by_field_name("name"))
                vt = self._directive_value(n.child_by_field_name("value"))
                self.macros[name] = Macro(name, vt, None, self.line_of(n))
            elif t == "preproc_function_def":
                name = self.text_of(n.child_by_field_name("name"))
                ps = n.child_by_field_name("parameters")
                params = [self.text_of(c) for c in ps.named_children] if ps else []
                vt = self._directive_value(n.child_by_field_name("value"))
                self.macros[name] = Macro(name, vt, None, self.line_of(n), params)
            elif t == "preproc_include":
                self.includes.append(self.text_of(n.child_by_field_name("path")).strip("<>\""))
            elif t in ("type_definition", "alias_declaration"):
                self._add_alias(n)
        self._add_outside_macros()
        self.error_count = errors
        if errors:
            self.degraded = True
        self._fn_list.sort(key=lambda f: f.node.start_byte)
        self._fn_starts = [f.node.start_byte for f in self._fn_list]
        self.entry_found = self.entry in self.functions

    def _note_error(self, n: Node) -> None:
        line = self.line_of(n)
        if n.is_missing:
            if any(self.text_of(c) in _KNOWN_ATTRIBUTE_MACROS for c in self._near(n)
                   if c.type in ("identifier", "type_identifier")):
                return
            if n.type == "}":
                self._note_unbalanced(n)
                self.warn(f"line {line}: missing '}}' (unbalanced braces)")
            else:
                self.warn(f"line {line}: missing '{n.type}'")
            return
        full = self.text_of(n).strip()
        txt = full.splitlines()[0][:60] if full else ""
        for c in n.children:
            if c.type == "}":
                self._note_unbalanced(c, stray=True)
        # an unknown macro usually sits in the ERROR or just before it
        for c in self._near(n):
            if c.type in ("identifier", "type_identifier"):
                name = self.text_of(c)
                if name in _KNOWN_ATTRIBUTE_MACROS:
                    return  # __align__(16), __device__ lambdas: understood, nothing to say
                if (name.isupper() and len(name) > 1) or (name.startswith("__") and
                                                          name.endswith("__")):
                    if name not in self.macros:
                        self.warn(f"line {line}: unknown macro '{name}'; parsed around it")
                        return
        self.warn(f"line {line}: could not parse `{txt}`")

    @staticmethod
    def _near(n: Node) -> list[Node]:
        """Nodes just around a parse error: its first children, previous siblings, and the
        previous siblings of its parent."""
        near = list(n.children[:3])
        for base in (n, n.parent):
            sib = base.prev_sibling if base is not None else None
            for _ in range(3):
                if sib is None:
                    break
                near.append(sib)
                sib = sib.prev_sibling
        return near

    def _note_unbalanced(self, n: Node, stray: bool = False) -> None:
        if self.unbalanced_braces is not None:
            return
        if stray:
            self.unbalanced_braces = self.line_of(n)
            return
        # the '{' this missing '}' should close: the parent's opening brace
        p = n.parent
        opener = next((c for c in p.children if c.type == "{"), None) if p else None
        self.unbalanced_braces = self.line_of(opener or n)

    def _directive_value(self, val: Node | None) -> str:
        """A #define's value: from its start to the end of the directive's line (continuations
        included), comments removed. tree-sitter ends preproc_arg at an inline /* comment */."""
        if val is None:
            return ""
        src = self.source
        end = src.find(b"\n", val.start_byte)
        while end > 0 and src[end - 1:end] == b"\\":
            end = src.find(b"\n", end + 1)
        end = len(src) if end < 0 else end
        return _macro_text(src[val.start_byte:end].decode("utf8", "replace").replace("\\\n", " "))

    def unparseable(self) -> str | None:
        """Why the file is not CUDA C++ at all (most of it is parse errors), or None."""
        code_lines = sum(1 for ln in self.lines if ln.strip())
        if self.error_bytes > 0.5 * max(1, len(self.source)):
            return f"{100 * self.error_bytes // len(self.source)}% of the file is unparseable"
        if self.error_count >= 5 and 4 * self.error_count > code_lines:
            return f"{self.error_count} parse errors in {code_lines} lines"
        return None

    def _add_alias(self, n: Node) -> None:
        if n.type == "type_definition":
            ty = self.text_of(n.child_by_field_name("type"))
            for d in n.children_by_field_name("declarator"):
                name, _ = declarator_name(d)
                if name:
                    self.type_aliases[name] = ty
        else:
            name = self.text_of(n.child_by_field_name("name"))
            ty = self.text_of(n.child_by_field_name("type"))
            if name:
                self.type_aliases[name] = ty

    def _add_function(self, n: Node) -> None:
        decl = n.child_by_field_name("declarator")
        # walk to the function_declarator (pointer/reference return types wrap it)
        fd = decl
        while fd is not None and fd.type != "function_declarator":
            fd = fd.child_by_field_name("declarator")
        if fd is None:
            return
        name, _ = declarator_name(fd.child_by_field_name("declarator"))
        if not name:
            return
        owner = self._enclosing_class(n)
        if owner and "::" not in name:
            name = f"{owner}::{name}"
        quals: set[str] = set()
        launch_bounds = None
        for c in n.children:
            if c.type in ("__global__", "__device__", "__host__", "__forceinline__",
                          "__noinline__", "inline", "__inline__"):
                quals.add(c.type)
            elif c.type == "storage_class_specifier":
                quals.add(self.text_of(c))
            elif c.type == "launch_bounds":
                launch_bounds = tuple(self.text_of(x) for x in c.named_children)
            elif c.type == "type_qualifier":
                quals.add(self.text_of(c))
            elif c.type == "ERROR" or (c.type == "identifier" and c.prev_sibling is None):
                for x in walk(c):
                    if x.type in ("__global__", "__device__", "__host__", "__forceinline__"):
                        quals.add(x.type)
        if n.parent is not None and n.parent.type == "linkage_specification":
            quals.add('extern "C"')
        if n.parent is not None and n.parent.type == "declaration_list" and \
                n.parent.parent is not None and \
                n.parent.parent.type == "linkage_specification":
            quals.add('extern "C"')
        tparams: list[str] = []
        tdefaults: dict[str, str] = {}
        tp = n.parent
        if tp is not None and tp.type == "template_declaration":
            plist = tp.child_by_field_name("parameters")
            for p in (plist.named_children if plist else []):
                pname, _ = declarator_name(p.child_by_field_name("declarator"))
                if pname is None and p.type == "template_template_parameter_declaration":
                    inner = p.named_children[-1] if p.named_child_count else None  # ActFn
                    pname = next((self.text_of(x) for x in walk(inner)
                                  if x.type == "type_identifier"), None) if inner else None
                if pname is None:
                    pname = next((self.text_of(x) for x in p.named_children
                                  if x.type in ("type_identifier", "identifier")), None)
                if pname:
                    tparams.append(pname)
                    dv = p.child_by_field_name("default_value") or \
                        p.child_by_field_name("default_type")
                    if dv is not None:
                        tdefaults[pname] = self.text_of(dv)
        params = self._params(fd.child_by_field_name("parameters"))
        body = n.child_by_field_name("body")
        if body is not None and (tparams and quals & {"__device__"} or "__global__" in quals):
            params = self._iterator_params(params, tparams, body, "__global__" in quals)
        is_kernel = "__global__" in quals
        is_device = "__device__" in quals
        is_host = (not is_kernel and not is_device) or "__host__" in quals
        f = Function(name, n, body, self.line_of(n), n.end_point[0] + 1, quals, is_kernel,
                     is_device, is_host, params, tparams, launch_bounds, tdefaults)
        self.functions.setdefault(name, []).append(f)
        if is_kernel:
            self.kernels.append(f)
        else:  # __host__ __device__ functions are in both lists
            if is_device:
                self.device_functions.append(f)
            if is_host:
                self.host_functions.append(f)
        self._fn_list.append(f)

    def _enclosing_class(self, n: Node) -> str | None:
        p = n.parent
        while p is not None:
            if p.type in ("struct_specifier", "class_specifier", "union_specifier"):
                nm = p.child_by_field_name("name")
                return self.text_of(nm) if nm is not None else None
            if p.type in ("function_definition", "translation_unit"):
                return None
            p = p.parent
        return None

    def _iterator_params(self, params: list[Param], tparams: list[str], body: Node,
                         kernel: bool) -> list[Param]:
        """Parameters that the body subscripts although they are not pointers: typed by a
        template type parameter (``template <class Iterator> ... const Iterator pos``), or, in a
        kernel, passed by value with any class type (a tensor view or accessor such as
        ``Tensor<float, 2> in`` read as ``in[row][col]``): pointers or iterators over device
        memory, read as pointers."""
        subscripted = {self.text_of(x.child_by_field_name("argument")) for x in walk(body)
                       if x.type == "subscript_expression"}
        out = []
        for p in params:
            base = p.type_text.replace("const ", "").strip()
            if not p.is_pointer and (base in tparams or kernel) and p.name in subscripted:
                p = Param(p.name, p.type_text + " *", True, p.is_const, p.is_restrict)
            out.append(p)
        return out

    def _params(self, plist: Node | None) -> list[Param]:
        out: list[Param] = []
        if plist is None:
            return out
        for p in plist.named_children:
            if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                continue
            decl = p.child_by_field_name("declarator")
            name, _ = declarator_name(decl)
            ty = self.text_of(p.child_by_field_name("type"))
            is_const = any(c.type == "type_qualifier" and self.text_of(c) == "const"
                           for c in p.children)
            ptr = 0
            restrict = False
            d = decl
            while d is not None:
                if d.type in ("pointer_declarator", "array_declarator",
                              "abstract_pointer_declarator"):
                    ptr += 1
                if d.type in ("pointer_declarator",):
                    restrict = restrict or any(
                        c.type == "type_qualifier" and "restrict" in self.text_of(c)
                        for c in d.children)
                d = d.child_by_field_name("declarator")
            out.append(Param(name or "", ("const " if is_const else "") + ty + " *" * ptr,
                             ptr > 0, is_const, restrict))
        return out

    def _bind_templates(self) -> None:
        """Template parameters bound by the launches/calls (when every site agrees) or by
        their defaults."""
        sites: dict[str, list[list[str]]] = {}
        for n in walk(self.root):
            if n.type == "template_instantiation":  # template __global__ void k<64, 8>(...);
                fd = n.child_by_field_name("declarator")
                while fd is not None and fd.type != "function_declarator":
                    fd = fd.child_by_field_name("declarator")
                tf = fd.child_by_field_name("declarator") if fd is not None else None
                if tf is not None and tf.type == "template_function":
                    nm = self.text_of(tf.child_by_field_name("name"))
                    args = tf.child_by_field_name("arguments")
                    if nm in self.functions:
                        sites.setdefault(nm, []).append(
                            [self.text_of(a) for a in (args.named_children if args else [])])
                        self._template_sites.setdefault(nm, []).append((sites[nm][-1], n))
            elif n.type == "call_expression":
                fn = n.child_by_field_name("function")
                if fn is not None and fn.type == "template_function":
                    nm = self.text_of(fn.child_by_field_name("name"))
                    if nm in self.functions:
                        args = fn.child_by_field_name("arguments")
                        sites.setdefault(nm, []).append(
                            [self.text_of(a) for a in (args.named_children if args else [])])
                        self._template_sites.setdefault(nm, []).append((sites[nm][-1], n))
        for name, fns in self.functions.items():
            for f in fns:
                if not f.template_params:
                    continue
                bind: dict[str, str] = dict(f.template_defaults)
                calls = sites.get(name, [])
                for i, tpn in enumerate(f.template_params):
                    vals = {c[i] for c in calls if len(c) > i}
                    if len(vals) == 1:
                        bind[tpn] = vals.pop()
                self._template_bindings[name] = bind
