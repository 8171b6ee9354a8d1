"""Compiler flags for tagging: the ``-I`` folders and ``-D`` macros a file is compiled with,
given as ``-I``/``-D`` or as the ``[tag]`` table's defaults in the configuration file
(``docs/configuration.md``):

    [tag]
    include-dir = ["include", "third_party/cutlass/include"]   # relative to the config file
    define = ["TILE=32", "USE_SHARED"]

A ``compile_commands.json`` beside a file (or above it) is read by the program model itself."""

from __future__ import annotations



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
