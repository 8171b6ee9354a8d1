"""Compiler flags for tagging: the ``-I`` folders and ``-D`` macros a file is compiled with,
from the command line and from the ``[tag]`` table of ``strategylens.toml`` (or
``[tool.strategylens.tag]`` in ``pyproject.toml``) in the working folder:

    [tag]
    include_dirs = ["include", "third_party/cutlass/include"]   # relative to the config file
    defines = ["TILE=32", "USE_SHARED"]

A ``compile_commands.json`` beside a file (or above it) is read by the program model itself."""

from __future__ import annotations

import tomllib
from pathlib import Path


class FlagsError(ValueError):
    """A config file that cannot be read, or a bad -D."""


def parse_defines(items: list[str], where: str = "--define") -> dict[str, str]:
    """``["TILE=32", "DEBUG"]`` -> ``{"TILE": "32", "DEBUG": "1"}``."""
    out: dict[str, str] = {}
    for item in items:
        name, _, value = str(item).partition("=")
        name = name.strip()
        if not name.isidentifier():
            raise FlagsError(f"{where}: {item!r} is not NAME or NAME=VALUE")
        out[name] = value.strip() if value.strip() else "1"
    return out


def read_tag_config(path: Path | str | None = None) -> tuple[list[str], dict[str, str]]:
    """``(include_dirs, defines)`` from the ``[tag]`` table of a config file (``strategylens.toml``
    or ``pyproject.toml`` in the working folder when ``path`` is None); empty when there is none."""
    if path is None:
        path = next((p for p in (Path("strategylens.toml"), Path("pyproject.toml")) if p.is_file()),
                    None)
        if path is None:
            return [], {}
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text())
    except OSError as exc:
        raise FlagsError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise FlagsError(f"{path}: not valid TOML: {exc}") from exc
    table = doc.get("tool", {}).get("strategylens", {}).get("tag", {}) \
        if path.name == "pyproject.toml" else doc.get("tag", {})
    dirs = table.get("include_dirs", [])
    defines = table.get("defines", [])
    if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
        raise FlagsError(f"{path}: [tag] include_dirs must be a list of folder names")
    if isinstance(defines, dict):
        defines = [f"{k}={v}" for k, v in defines.items()]
    if not isinstance(defines, list):
        raise FlagsError(f"{path}: [tag] defines must be a list of NAME or NAME=VALUE")
    base = path.resolve().parent
    return [str((base / d).resolve()) for d in dirs], parse_defines(defines, f"{path}: [tag] defines")
