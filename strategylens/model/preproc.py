"""Textual preprocessing a compiler would do before the grammar sees the file, done so that
lines do not move: statement macros expanded where they are used (a grid-stride loop header, a
launch), and attribute macros that stand for CUDA qualifiers (``CUTLASS_DEVICE``,
``#define HD __host__ __device__``) written as those qualifiers."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
from collections.abc import Sequence

from tree_sitter import Node

from strategylens.model.categories import position_builtin
from strategylens.model.consts import BINOPS, PP_PREDEFINED, PP_UNKNOWN, int_literal
from strategylens.model.syntax import parser

_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)",
                     re.M)
_LOOP_HEADER = re.compile(r"^\s*(for|while)\s*\(")


_GCC_RESTRICT = re.compile(rb"\b__restrict\b(?!__)")


_RESTRICT_MACRO = re.compile(rb"\b[A-Z][A-Z0-9_]*_RESTRICT\b")
# a preprocessor directive with its backslash continuations
_DIRECTIVE_PATTERN = r"^[ \t]*#(?:\\\r?\n|[^\n])*"
_DIRECTIVE = re.compile(_DIRECTIVE_PATTERN, re.M)
_DIRECTIVE_BYTES = re.compile(_DIRECTIVE_PATTERN.encode(), re.M)
_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/", re.S)


def normalise_spellings(source: bytes) -> bytes:
    r"""What the grammar reads differently from a compiler, written so that it reads the same
    (lengths and lines kept): GCC's ``__restrict`` (read as a parameter's name in
    ``T* const __restrict p``) as ``__restrict__``, and so a library's ``X_RESTRICT`` macro; a
    block comment inside a directive continued
    over lines (``return; /* ok */ \``), where the grammar ends the directive, blanked.

    >>> normalise_spellings(b"const int* const __restrict p, float* __restrict__ q")
    b'const int* const __restrict__ p, float* __restrict__ q'
    >>> normalise_spellings(b"#define F() do { /* x */ \\\n } while (0)\n")
    b'#define F() do {         \\\n } while (0)\n'
    """
    if b"__restrict" in source:
        source = _GCC_RESTRICT.sub(b"__restrict__", source)
    if b"RESTRICT" in source:  # a library's restrict macro (GGML_CUDA_RESTRICT) from a header
        source = _RESTRICT_MACRO.sub(lambda m: b"__restrict__".ljust(len(m.group(0))), source)
    if b"/*" in source and b"#" in source:
        def blank(d: re.Match) -> bytes:
            text = d.group(0)
            if b"/*" not in text or b"\\\n" not in text.replace(b"\r\n", b"\n"):
                return text
            return _BLOCK_COMMENT.sub(lambda c: re.sub(rb"[^\n]", b" ", c.group(0)), text)
        source = _DIRECTIVE_BYTES.sub(blank, source)
    return source


def _statement_macro(body: str) -> bool:
    """A macro body the model cannot see through where it is used: a loop header that takes the
    block after the invocation (``for (int i = ...; i < n; i += stride)``), one that launches a
    kernel, or an array access (``#define A(i, j) a[(i) * n + (j)]``: the access, its memory
    space and its stride belong to the place that uses it), or one that declares shared memory
    (HIP's ``HIP_DYNAMIC_SHARED(type, var)``)."""
    if "<<<" in body or "__shared__" in body:
        return True
    if re.search(r"[\w)\]]\s*\[", body) and not re.search(r"[;{}]", body):
        return True
    if _LOOP_HEADER.match(body):
        depth, end = 0, None
        for i, ch in enumerate(body):
            depth += ch == "("
            depth -= ch == ")"
            if ch == ")" and depth == 0:
                end = i
                break
        return end is not None and not body[end + 1:].strip()
    return False


def _code_mask(src: str) -> list[bool]:
    """True for each character inside a comment, a string or a preprocessor line."""
    mask = [False] * len(src)
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and c == "#":
            j = i
            while j < n and (src[j] != "\n" or src[j - 1] == "\\"):
                j += 1
            for k in range(i, j):
                mask[k] = True
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c not in " \t":
            line_start = False
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            mask[k] = True
        i = j
    return mask


def _split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out


def _arity_fits(params: list[str], args: list[str]) -> bool:
    """Whether an invocation's arguments fit a macro's parameters (``...`` takes the rest)."""
    if params and params[-1] == "...":
        return len(args) >= len(params) - 1
    return len(args) == len(params) or (not params and args == [""])


def _substitute(body: str, params: list[str], args: list[str]) -> str:
    if params and params[-1] == "...":  # variadic: __VA_ARGS__ is the rest, commas kept
        n = len(params) - 1
        params, args = [*params[:n], "__VA_ARGS__"], [*args[:n], ", ".join(args[n:])]
    sub = dict(zip(params, args, strict=True)) if params else {}
    body = re.sub(r"(?<!#)#\s*([A-Za-z_]\w*)", lambda m: f'"{sub[m.group(1)]}"'
                  if m.group(1) in sub else m.group(0), body)
    body = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: sub.get(m.group(0), m.group(0)), body)
    return re.sub(r"\s*##\s*", "", body)


def expand_statement_macros(source: bytes, extra: str = "") -> tuple[bytes, list[str]] | None:
    """``source`` with the file's statement macros (see :func:`_statement_macro`) expanded
    where they are used, nested macros included, as a compiler would; each expansion is put on
    the invocation's first line and followed by as many newlines as the invocation spanned, so
    lines do not move. ``extra`` holds ``#define`` lines from headers and the command line. None
    when there is nothing to expand."""
    if (b"#" not in source or b"define" not in source) and "define" not in extra:
        return None
    defs: dict[str, tuple[list[str], str]] = {}
    for m in [*_DEFINE.finditer(extra.encode("utf8")), *_DEFINE.finditer(source)]:
        body = m.group(3).decode("utf8", "replace")
        body = re.sub(r"\\\r?\n", " ", body)
        body = re.sub(r"/\*.*?\*/", " ", body)
        body = body.split("//", 1)[0].strip()
        params = [x.strip() for x in m.group(2).decode("utf8", "replace").split(",") if x.strip()]
        defs[m.group(1).decode()] = (params, body)
    wanted = {name for name, (_, body) in defs.items() if _statement_macro(body)}
    # a macro that uses a statement macro is one too (HANDLE_SWITCH -> HANDLE_CASE -> launch)
    for _ in range(4):
        more = {name for name, (_, body) in defs.items() if name not in wanted and
                any(re.search(rf"\b{w}\s*\(", body) for w in wanted)}
        if not more:
            break
        wanted |= more
    if not wanted:
        return None
    text = source.decode("utf8", "replace")
    pattern = re.compile(r"\b(" + "|".join(sorted(wanted)) + r")\s*\(")

    def expand(body: str, depth: int) -> str:
        if depth > 4:
            return body
        out, pos = [], 0
        for m in pattern.finditer(body):
            if m.start() < pos:
                continue
            end = _close_paren(body, m.end() - 1)
            if end is None:
                continue
            params, inner = defs[m.group(1)]
            args = _split_args(body[m.end():end])
            if not _arity_fits(params, args):
                continue
            out.append(body[pos:m.start()])
            out.append(expand(_substitute(inner, params, args), depth + 1))
            pos = end + 1
        out.append(body[pos:])
        return "".join(out)

    mask = _code_mask(text)
    # invocations inside a directive (another macro's #define body) stay: an expansion there
    # would end the directive's backslash continuation early
    directives = [(d.start(), d.end()) for d in _DIRECTIVE.finditer(text)]
    pieces, pos, used = [], 0, []
    for m in pattern.finditer(text):
        if m.start() < pos or mask[m.start()] or any(a <= m.start() < b for a, b in directives):
            continue
        end = _close_paren(text, m.end() - 1)
        if end is None:
            continue
        params, inner = defs[m.group(1)]
        args = _split_args(text[m.end():end])
        if not _arity_fits(params, args):
            continue
        span = text[m.start():end + 1]
        pieces.append(text[pos:m.start()])
        # comments inside the arguments end at their line: drop them before joining the lines
        pieces.append(_drop_comments(expand(_substitute(inner, params, args), 1)).replace("\n", " "))
        pieces.append("\n" * span.count("\n"))
        pos = end + 1
        if m.group(1) not in used:
            used.append(m.group(1))
    return _spliced(pieces, text, pos, used)


def _spliced(pieces: list[str], text: str, pos: int, used: list[str]
             ) -> tuple[bytes, list[str]] | None:
    """The rewritten source (``pieces`` then the rest of ``text`` from ``pos``) and the macros
    used, or None when none was."""
    if not used:
        return None
    return ("".join(pieces) + text[pos:]).encode("utf8"), used


_CALLABLE = re.compile(r"[A-Za-z_][\w:]*(?:\s*<.*>)?", re.S)


def _kernel_names(text: str) -> set[str]:
    """Names of the kernels the file defines or declares (``__global__ void k(``)."""
    names = set()
    for m in re.finditer(r"\b__global__\b", text):
        for c in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text[m.end():m.end() + 400]):
            if c.group(1) not in ("__launch_bounds__", "__align__", "__attribute__",
                                  "__declspec"):
                names.add(c.group(1))
                break
    return names


def wrapper_macros(source: bytes, extra: str = "") -> tuple[bytes, list[str]] | None:
    r"""``source`` with calls of macros from a header the file lacks (upper-case names no
    ``#define`` in the file, a header found or ``extra`` gives) that take a callable as their
    first argument written as the call they wrap, as such wrappers do: a kernel of the file is
    launched with the next two arguments as grid and block
    (``CUDA_LAUNCH((k<T>), blocks, threads, a, b)`` is ``k<T><<<blocks, threads>>>(a, b)``),
    a Thrust or CUB algorithm is called with the rest (``POLICY_CALL(thrust::sort, b, e)``).
    Lines do not move. None when there is none.

    >>> wrapper_macros(b"__global__ void k(int* a);\nRUN((k<4>), g, b, a);\n")[0]
    b'__global__ void k(int* a);\nk<4><<<g, b>>>(a);\n'
    """
    text = source.decode("utf8", "replace")
    calls = list(re.finditer(r"\b([A-Z][A-Z0-9_]*)\s*\(", text))
    if not calls:
        return None
    defined = set(re.findall(r"#\s*define\s+([A-Za-z_]\w*)", text + "\n" + extra))
    kernels = _kernel_names(text)
    mask = _code_mask(text)
    pieces, pos, used = [], 0, []
    for m in calls:
        if m.start() < pos or mask[m.start()] or m.group(1) in defined:
            continue
        end = _close_paren(text, m.end() - 1)
        if end is None:
            continue
        args = _split_args(text[m.end():end])
        first = args[0]
        while first.startswith("(") and _close_paren(first, 0) == len(first) - 1:
            first = first[1:-1].strip()
        if not _CALLABLE.fullmatch(first):
            continue
        name = first.split("<", 1)[0].strip()
        if name.rsplit("::", 1)[-1] in kernels and len(args) >= 3:
            call = f"{first}<<<{args[1]}, {args[2]}>>>({', '.join(args[3:])})"
        elif name.startswith(("thrust::", "cub::")):
            call = f"{first}({', '.join(args[1:])})"
        else:
            continue
        span = text[m.start():end + 1]
        pieces += [text[pos:m.start()], call.replace("\n", " "), "\n" * span.count("\n")]
        pos = end + 1
        if m.group(1) not in used:
            used.append(m.group(1))
    return _spliced(pieces, text, pos, used)


# a call without arguments of a plain or qualified name, not a member (p.size_x())
_NO_ARG_CALL = re.compile(r"(?<![\w.>:])((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)\s*\(\s*\)")


def position_helpers(source: bytes) -> tuple[bytes, list[str]] | None:
    """``source`` with calls of position helpers from a header the file lacks
    (``gcuda::thread::global::id::x()``, ``block::size::x()``: see
    :func:`categories.position_builtin`) written as the built-ins they return, as a compiler
    would after inlining them; lines do not move. A helper the file defines or declares is left
    to the model. None when there is none.

    >>> position_helpers(b"int i = dev::thread::global::id::x();  // x()")[0]
    b'int i = (blockIdx.x * blockDim.x + threadIdx.x);  // x()'
    """
    if b"()" not in source:
        return None
    text = source.decode("utf8", "replace")
    found = [(m, b) for m in _NO_ARG_CALL.finditer(text)
             if (b := position_builtin(m.group(1))) is not None]
    if not found:
        return None
    mask = _code_mask(text)
    pieces, pos, used = [], 0, []
    for m, builtin in found:
        short = m.group(1).rsplit("::", 1)[-1]
        before = text[:m.start()].rstrip()
        if mask[m.start()] or re.search(rf"\b{short}\s*\(\s*\)\s*(const\s*)?\{{", text) or (
                before and (before[-1].isalnum() or before[-1] in "_*&")
                and not re.search(r"\breturn$", before)):
            continue  # a comment, a definition in the file, or a declaration
        pieces += [text[pos:m.start()], builtin]
        pos = m.end()
        if m.group(1) not in used:
            used.append(m.group(1))
    if not used:
        return None
    pieces.append(text[pos:])
    return "".join(pieces).encode("utf8"), used


_STRING_OR_COMMENT = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')|//[^\n]*|/\*.*?\*/', re.S)


def _drop_comments(text: str) -> str:
    """``text`` without its comments (string and character literals kept).

    >>> _drop_comments('f(a, /* c */ "x//y") // row')
    'f(a,   "x//y")  '
    """
    return _STRING_OR_COMMENT.sub(lambda m: m.group(1) or " ", text)


def _close_paren(text: str, open_at: int) -> int | None:
    depth = 0
    for k in range(open_at, min(len(text), open_at + 4000)):
        ch = text[k]
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return k
    return None


_QUALIFIER_WORDS = {"__device__", "__host__", "__global__", "__forceinline__", "__noinline__",
                    "inline", "__inline__", "static", "constexpr", "extern"}
_OBJECT_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]*)$", re.M)
_MACRO_NAME = re.compile(r"\b(_*[A-Z][A-Z0-9_]*[A-Z0-9]_*)\b")


def _qualifiers_by_name(name: str) -> str | None:
    """The CUDA qualifiers an undefined attribute macro stands for, read from its name the way
    the libraries spell them (``CUTLASS_GLOBAL``, ``_CCCL_KERNEL_ATTRIBUTES``,
    ``CUTLASS_HOST_DEVICE``, ``_CCCL_DEVICE``, ``DEVICE_INLINE``); None for other names."""
    parts = set(name.strip("_").split("_"))
    if parts & {"GLOBAL", "KERNEL"} and not parts & {"LOOP", "CHECK", "LAUNCH", "SIZE"}:
        return "__global__"
    if ("HOST" in parts and parts & {"DEVICE", "DEV"}) or parts & {"HD", "HOSTDEVICE"}:
        return "__host__ __device__"
    if parts & {"DEVICE", "DEV"} and not parts & {"ID", "COUNT", "NUM", "MEMORY", "PTR"}:
        return "__device__"
    if parts & {"FORCEINLINE", "INLINE", "ALWAYS_INLINE"} and not parts & {"NO", "NOINLINE"}:
        return "__forceinline__"
    return None


def qualify_attribute_macros(source: bytes, extra: str = ""
                             ) -> tuple[bytes, list[str], dict[str, tuple[int, str]]] | None:
    """``source`` with attribute macros written as the CUDA qualifiers they stand for: those the
    file defines as qualifiers only (``#define HD __host__ __device__``) and undefined ones whose
    name says so (:func:`_qualifiers_by_name`), where they sit in front of a function (the next
    name followed by ``(`` comes before any ``;``, ``{`` or ``=``). Lines do not move. Returns the
    text, the names rewritten, and for the undefined ones read by their name the first line and
    the qualifiers taken; None when there is nothing to rewrite."""
    text = source.decode("utf8", "replace")
    defined: dict[str, str | None] = {}
    for m in [*_OBJECT_DEFINE.finditer(extra), *_OBJECT_DEFINE.finditer(text)]:
        value = m.group(2).split("//", 1)[0].strip()
        words = value.split()
        defined[m.group(1)] = value if words and all(w in _QUALIFIER_WORDS for w in words) and \
            {"__device__", "__host__", "__global__"} & set(words) else None
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", extra + "\n" + text, re.M):
        defined.setdefault(m.group(1), None)
    if not any(defined.values()) and not re.search(r"DEV|GLOBAL|KERNEL|HD|INLINE", text):
        return None
    mask = None
    pieces, pos, used = [], 0, []
    guessed: dict[str, tuple[int, str]] = {}
    for m in _MACRO_NAME.finditer(text):
        name = m.group(1)
        by_name = name not in defined
        if not by_name:
            qual = defined[name]
        elif name.startswith("__") and name.endswith("__"):
            qual = None
        else:
            qual = _qualifiers_by_name(name)
        if qual is None:
            continue
        rest = text[m.end():m.end() + 400]
        if rest.lstrip().startswith("("):
            continue  # a function-like macro: not an attribute
        stop = re.search(r"[;{}=]", rest)
        head = rest[:stop.start()] if stop else rest
        if not re.search(r"\b[A-Za-z_][\w:~]*\s*\(", head):
            continue
        if mask is None:
            mask = _code_mask(text)
        if mask[m.start()]:
            continue
        pieces.append(text[pos:m.start()])
        pieces.append(qual)
        pos = m.end()
        if name not in used:
            used.append(name)
            if by_name:
                guessed[name] = (text.count("\n", 0, m.start()) + 1, qual)
    if not used:
        return None
    pieces.append(text[pos:])
    return "".join(pieces).encode("utf8"), used, guessed


_FRAGMENT_IF = re.compile(r"^[ \t]*#[ \t]*if[^\n]*\n((?:(?![ \t]*#)[^\n]*\n){1,3})[ \t]*#[ \t]*endif[^\n]*$",
                          re.M)


def unwrap_fragment_conditionals(source: bytes) -> tuple[bytes, int] | None:
    """``source`` with the directives of short conditional fragments removed (the lines stay,
    blank): ``#if`` ... ``#endif`` with no ``#else`` around a few lines that are no statement or
    declaration of their own (no ``;``, ``{`` or ``}``), such as a ``requires`` clause or an
    attribute between a template head and its function. The grammar cannot read a directive in
    the middle of a declaration; the fragment is kept, as when its condition holds."""
    if b"#" not in source:
        return None
    text = source.decode("utf8", "replace")
    count = 0

    def blank(m: re.Match) -> str:
        nonlocal count
        inner = m.group(1)
        if re.search(r"[;{}]", inner) or not inner.strip():
            return m.group(0)
        count += 1
        return "\n" + inner
    out = _FRAGMENT_IF.sub(blank, text)
    return (out.encode("utf8"), count) if count else None


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
_DEFINE_LINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+[^\n]*(?:\\\r?\n[^\n]*)*", re.M)


def find_headers(text: str, folder: str | None, include_dirs: list[str],
                 _depth: int = 0, _seen: set[str] | None = None
                 ) -> tuple[list[tuple[str, str]], list[str]]:
    """The headers ``text`` includes that can be read, as a compiler would look for them: a
    quoted name in the including file's folder, then in ``include_dirs`` (``-I``); an angle name
    in ``include_dirs`` only. Returns ``(path, text)`` of each header read (their own includes
    followed, three levels deep) and the quoted names found nowhere. Angle names found nowhere
    are system or toolkit headers and are not listed."""
    seen = _seen if _seen is not None else set()
    found: list[tuple[str, str]] = []
    missing: list[str] = []
    for m in _INCLUDE.finditer(text):
        quoted, name = m.group(1) == '"', m.group(2).strip()
        dirs = ([folder] if quoted and folder else []) + list(include_dirs)
        hit = next((os.path.join(d, name) for d in dirs if os.path.isfile(os.path.join(d, name))),
                   None)
        if hit is None:
            if quoted and name not in missing:
                missing.append(name)
            continue
        real = os.path.realpath(hit)
        if real in seen:
            continue
        seen.add(real)
        try:
            with open(hit, "rb") as fh:
                body = fh.read(1 << 20).decode("utf8", "replace")
        except OSError:
            missing.append(name)
            continue
        found.append((hit, body))
        if _depth < 3:
            more, gone = find_headers(body, os.path.dirname(hit), include_dirs, _depth + 1, seen)
            found += more
            missing += [g for g in gone if g not in missing]
    return found, missing


def define_lines(text: str) -> str:
    """The ``#define`` directives of a header, continuations kept, one per line."""
    return "\n".join(m.group(0) for m in _DEFINE_LINE.finditer(text))


_LIBRARY_MACROS = os.path.join(os.path.dirname(__file__), "library_macros.h")
_DEFINED_NAME = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)


@functools.cache
def _library_lines() -> tuple[str, ...]:
    with open(_LIBRARY_MACROS, encoding="utf8") as f:
        return tuple(ln for ln in f.read().splitlines() if ln.startswith("#define"))


@functools.cache
def _library_names() -> tuple[str, ...]:
    return tuple(_DEFINED_NAME.match(ln).group(1) for ln in _library_lines())


def library_defines(text: str, outside: str) -> str:
    r"""The ``#define`` lines of ``library_macros.h`` (framework loop macros such as Caffe's and
    PyTorch's ``CUDA_KERNEL_LOOP``, launch and shared-memory macros) that ``text`` uses and
    neither it nor ``outside`` (headers found, ``-D``) defines.

    >>> library_defines("CUDA_KERNEL_LOOP(i, n) { y[i] = 0; }", "")[:34]
    '#define CUDA_KERNEL_LOOP(i, n) for'
    >>> library_defines("#define CUDA_KERNEL_LOOP(i, n) for (;;)\nCUDA_KERNEL_LOOP(i, n) {}", "")
    ''
    """
    if not any(name in text for name in _library_names()):
        return ""
    defined = set(_DEFINED_NAME.findall(text)) | set(_DEFINED_NAME.findall(outside))
    return "\n".join(ln for name, ln in zip(_library_names(), _library_lines(), strict=True)
                     if name not in defined and re.search(rf"\b{name}\s*\(", text))


def compile_flags(path: str) -> tuple[list[str], dict[str, str]] | None:
    """``-I`` folders and ``-D`` macros for ``path`` from a ``compile_commands.json`` in its
    folder or one of the six above it, as a build system writes it; None when there is none or
    it has no entry for the file."""
    folder = os.path.dirname(os.path.abspath(path))
    target = os.path.realpath(path)
    for _ in range(7):
        db = os.path.join(folder, "compile_commands.json")
        if os.path.isfile(db):
            try:
                with open(db, encoding="utf8") as fh:
                    entries = json.load(fh)
            except (OSError, ValueError):
                return None
            for e in entries if isinstance(entries, list) else []:
                if not isinstance(e, dict) or "file" not in e:
                    continue
                where = e.get("directory", folder)
                if os.path.realpath(os.path.join(where, e["file"])) != target:
                    continue
                args = e.get("arguments") or shlex.split(e.get("command", ""))
                return parse_flags(args, where)
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


def parse_flags(args: list[str], base: str = ".") -> tuple[list[str], dict[str, str]]:
    """``-I`` folders (made absolute against ``base``) and ``-D`` macros among compiler
    arguments (``-Iinc``, ``-I inc``, ``-isystem inc``, ``-DTILE=32``, ``-D DEBUG``)."""
    dirs: list[str] = []
    defines: dict[str, str] = {}
    i = 0
    while i < len(args):
        a = args[i]
        value = None
        for flag in ("-I", "-isystem", "-D", "--include-path", "--define-macro"):
            if a == flag and i + 1 < len(args):
                value, i = args[i + 1], i + 1
                break
            if a.startswith(flag) and len(a) > len(flag) and not a.startswith("--", 0) or \
                    a.startswith(flag + "="):
                value = a[len(flag):].lstrip("=")
                break
        else:
            flag = None
        if value is not None and flag in ("-I", "-isystem", "--include-path"):
            dirs.append(os.path.normpath(os.path.join(base, value)))
        elif value is not None:
            name, _, val = value.partition("=")
            defines[name] = val if val else "1"
        i += 1
    return dirs, defines


def header_bytes(source: bytes, path: str, include_dirs: Sequence[str] = ()) -> bytes:
    """The bytes of the headers that ``source`` (the file at ``path``) includes and that can be
    found (see :func:`find_headers`; a ``compile_commands.json`` entry adds its folders), for
    keying a cache on what the file sees; empty when it includes none."""
    if b"#include" not in source.replace(b"# include", b"#include"):
        return b""
    dirs = list(include_dirs)
    if os.path.isfile(path):
        flags = compile_flags(path)
        if flags is not None:
            dirs += flags[0]
    folder = os.path.dirname(os.path.abspath(path)) if os.path.isfile(path) else None
    found, _ = find_headers(source.decode("utf8", "replace"), folder, dirs)
    return b"".join(b"\0" + p.encode() + b"\0" + text.encode("utf8") for p, text in found)


_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif|define|undef)\b"
                          r"((?:\\\r?\n|[^\n])*)", re.M)
_DEFINED = re.compile(r"\bdefined\b\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))")


class _Config:
    """Which macros are defined where, for deciding ``#if`` groups under one configuration."""

    def __init__(self, outside: str, assume: bool) -> None:
        self.assume = assume
        self.assumed: list[str] = []
        self.events: dict[str, list[tuple[int, str | None]]] = {}  # name -> (pos, value or None)
        for m in _CONDITIONAL.finditer(outside):
            if m.group(1) == "define":
                self.add("define", m.group(2), -1)

    def add(self, kind: str, rest: str, pos: int) -> None:
        m = re.match(r"\s*([A-Za-z_]\w*)(\()?(.*)", re.sub(r"\\\r?\n", " ", rest), re.S)
        if m is None:
            return
        value = None if kind == "undef" else "(" if m.group(2) else _drop_comments(m.group(3)).strip()
        self.events.setdefault(m.group(1), []).append((pos, value))

    def value(self, name: str, pos: int) -> str | None:
        """The macro's value text at ``pos`` ("" when defined empty, "(" when function-like),
        None when undefined; raises LookupError when it depends on the pass or the build."""
        if name in PP_UNKNOWN:
            raise LookupError(name)
        if name in PP_PREDEFINED:
            return "1"
        events = self.events.get(name)
        if not events:  # tested but defined nowhere: a build option
            if name not in self.assumed:
                self.assumed.append(name)
            return "1" if self.assume else None
        before = [v for p, v in events if p < pos]
        return before[-1] if before else None

    def holds(self, kind: str, cond: str, pos: int, depth: int = 0) -> int | None:
        """Whether a condition holds at ``pos``; None when it cannot be decided."""
        try:
            if kind in ("ifdef", "ifndef"):
                name = cond.split()[0] if cond.split() else ""
                return int((self.value(name, pos) is not None) == (kind == "ifdef"))
            expr = _DEFINED.sub(lambda m: "1" if self.value(m.group(1) or m.group(2), pos)
                                is not None else "0", _drop_comments(cond))
            return self._eval(expr, pos, depth)
        except LookupError:
            return None

    def _eval(self, expr: str, pos: int, depth: int) -> int | None:
        if depth > 5:
            return None
        src = ("int __sl = (" + re.sub(r"\\\r?\n", " ", expr) + ");").encode()
        tree = parser().parse(src)
        if tree.root_node.has_error:
            return None

        def ev(n: Node) -> int | None:
            t, txt = n.type, src[n.start_byte:n.end_byte].decode()
            if t == "number_literal":
                return int_literal(txt)
            if t in ("true", "false"):
                return int(t == "true")
            if t == "identifier":
                v = self.value(txt, pos)
                return 0 if v is None else None if v == "(" else self._eval(v or "0", pos, depth + 1)
            if t == "parenthesized_expression" and n.named_child_count == 1:
                return ev(n.named_children[0])
            if t == "unary_expression":
                v = ev(n.child_by_field_name("argument"))
                op = src[n.child_by_field_name("operator").start_byte:
                         n.child_by_field_name("operator").end_byte].decode()
                return None if v is None else {"-": -v, "+": v, "~": ~v, "!": int(not v)}.get(op)
            if t == "binary_expression":
                op = n.child_by_field_name("operator")
                op = src[op.start_byte:op.end_byte].decode()
                a, b = ev(n.child_by_field_name("left")), ev(n.child_by_field_name("right"))
                return None if a is None or b is None or op not in BINOPS else BINOPS[op](a, b)
            if t == "conditional_expression":
                c = ev(n.child_by_field_name("condition"))
                return None if c is None else ev(n.child_by_field_name(
                    "consequence" if c else "alternative"))
            return None
        decl = tree.root_node.named_children[0]
        init = decl.child_by_field_name("declarator")
        value = init.child_by_field_name("value") if init is not None else None
        return ev(value) if value is not None else None


def resolve_conditionals(source: bytes, outside: str = "", assume: bool = True
                         ) -> tuple[bytes, list[str]] | None:
    """``source`` as a compiler reads it under one configuration: each ``#if`` group whose
    conditions can be decided keeps only the branch taken, its directives and the other branches
    blanked (bytes and lines kept). Macros come from the file's ``#define`` lines above the test
    and from ``outside`` (headers, ``-D``); a macro tested but defined nowhere is a build option,
    taken as defined to 1 (``-DNAME``) when ``assume`` holds, else as undefined. Groups that
    depend on the compilation pass (``__CUDA_ARCH__``) or on what cannot be evaluated stay as
    they are. Returns the text and the build options assumed; None when no group was decided or
    the directives do not nest."""
    text = source.decode("latin-1")  # one character per byte: positions are byte offsets
    comments = [(m.start(), m.end()) for m in _STRING_OR_COMMENT.finditer(text)
                if m.group(1) is None and m.group(0).startswith("/*")]
    config = _Config(outside, assume)
    groups: list[list[tuple[str, str, int, int]]] = []
    stack: list[list[tuple[str, str, int, int]]] = []
    for m in _CONDITIONAL.finditer(text):
        if any(a < m.start() < b for a, b in comments):
            continue
        kind, rest = m.group(1), m.group(2)
        if kind in ("define", "undef"):
            config.add(kind, rest, m.start())
        elif kind in ("if", "ifdef", "ifndef"):
            stack.append([(kind, rest, m.start(), m.end())])
        elif not stack:
            return None
        else:
            stack[-1].append((kind, rest, m.start(), m.end()))
            if kind == "endif":
                groups.append(stack.pop())
    if stack or not groups:
        return None
    blank: list[tuple[int, int]] = []
    for group in groups:
        taken = None
        for i, (kind, cond, start, _) in enumerate(group[:-1]):
            holds = 1 if kind == "else" else config.holds(
                {"elif": "if"}.get(kind, kind), cond, start)
            if holds is None:
                taken = -1
                break
            if holds:
                taken = i
                break
        if taken == -1:
            continue
        for i, (_, _, start, end) in enumerate(group):
            blank.append((start, end))
            if i + 1 < len(group) and i != taken:
                blank.append((end, group[i + 1][2]))
    if not blank:
        return None
    buf = bytearray(source)
    for a, b in blank:
        for k in range(a, b):
            if buf[k] not in (10, 13):
                buf[k] = 32
    return bytes(buf), config.assumed
