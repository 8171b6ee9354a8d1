"""The layering, checked on the source with ast: no import loop between the package's modules, no
module over 800 lines, detectors that import only the model and the detector API, and no private
name imported across packages.

Imports are taken wherever they are written (lazy ones inside functions too), except those under
``if TYPE_CHECKING:``. ``from P import n`` counts as an import of ``P.n`` when that is a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from strategylens import REPO_ROOT

PACKAGE = REPO_ROOT / "strategylens"
DETECTORS = sorted((REPO_ROOT / "catalog").glob("*/detector.py")) + sorted(
    (REPO_ROOT / "examples").glob("*/*/catalog/*/detector.py"))
MAX_LINES = 800
DETECTOR_API = ("strategylens.model", "strategylens.detectors")


def module_name(path: Path) -> str:
    if path.is_relative_to(PACKAGE):
        parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return "detector:" + path.parent.name


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
ALL = {**MODULES, **{module_name(p): p for p in DETECTORS}}


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                lines.update(range(inner.lineno, inner.end_lineno + 1))
    return lines


def imports(path: Path) -> list[tuple[str, str | None, int]]:
    """``(module, imported name or None, line)`` for every import of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    out = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                out.append(("." * node.level + (node.module or ""), None, node.lineno))
                continue
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.append((sub, None, node.lineno) if sub in MODULES else
                           (node.module, a.name, node.lineno))
    return out


def private(name: str | None) -> bool:
    """A name meant for its own module (``_x``; dunders such as ``__version__`` are public)."""
    return bool(name) and name.startswith("_") and not (name.startswith("__") and
                                                        name.endswith("__"))


def graph() -> dict[str, set[str]]:
    return {name: {mod for mod, _, _ in imports(path) if mod in MODULES and mod != name}
            for name, path in ALL.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_checks_see_the_whole_tree():
    assert {"strategylens.model.program", "strategylens.model.libclang", "strategylens.tag.batch",
            "strategylens.detectors", "strategylens.catalog"} <= set(MODULES)
    assert len(DETECTORS) == 49  # 48 built-in, one in the plugin example
    assert "strategylens.model.strides" in graph()["strategylens.model.libclang"]


def test_no_import_loop():
    assert cycles(graph()) == []


def test_cycle_finder_finds_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("name", sorted(ALL), ids=str)
def test_module_size(name):
    lines = ALL[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{ALL[name]}: {lines} lines (at most {MAX_LINES})"


def detector_problems(path: Path) -> list[str]:
    """Imports of a detector file other than the model, the detector API and outside packages."""
    bad = []
    for mod, name, line in imports(path):
        if mod.startswith(".") or mod.split(".")[0] in ("catalog", "strategylens_catalog"):
            bad.append(f"line {line}: imports {mod} (another detector)")
        elif mod.split(".")[0] == "strategylens" and not mod.startswith(DETECTOR_API):
            bad.append(f"line {line}: imports {mod}, outside strategylens.model and "
                       "strategylens.detectors")
        elif private(name):
            bad.append(f"line {line}: imports the private name {name} from {mod}")
    return bad


@pytest.mark.parametrize("path", DETECTORS, ids=lambda p: p.parent.name)
def test_detector_imports_only_the_model_and_the_detector_api(path):
    assert detector_problems(path) == []


def test_detector_check_flags_what_it_must(tmp_path):
    bad = tmp_path / "detector.py"
    bad.write_text("import re\nfrom strategylens.model import walk, _walk_nodes\n"
                   "from strategylens.tag import tag_file\nfrom .other import x\n"
                   "def f():\n    from strategylens_catalog.MEM_01 import h\n")
    assert detector_problems(bad) == [
        "line 2: imports the private name _walk_nodes from strategylens.model",
        "line 3: imports strategylens.tag, outside strategylens.model and strategylens.detectors",
        "line 4: imports .other (another detector)",
        "line 6: imports strategylens_catalog.MEM_01 (another detector)"]


def test_no_private_name_imported_across_packages():
    bad = []
    for name, path in MODULES.items():
        home = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        if home == "strategylens":  # a top-level module is a package of its own
            home = name
        for mod, imported, line in imports(path):
            if private(imported) and mod.startswith("strategylens") and \
                    not (mod == home or mod.startswith(home + ".")):
                bad.append(f"{path}:{line}: {imported} from {mod}")
    assert bad == []
