"""The one configuration file every command reads.

``strategylens.toml`` (tables at the top level) or ``pyproject.toml`` (tables under
``[tool.strategylens]``), found as ruff finds its own: the nearest folder, from the current one
upwards, that holds either (``strategylens.toml`` wins in the same folder; a ``pyproject.toml``
counts only with a ``[tool.strategylens]`` table). ``--config FILE`` or ``$STRATEGYLENS_CONFIG``
names the file instead.

Tables:

- one per command, named by its path: ``[tag]``, ``[report]``, ``[run]``, ``[catalog.test]``,
  ``[stats.effects]``; keys are the command's long options without dashes (``max-bytes`` or
  ``max_bytes``). A key in a group's table (``[stats]``) is the default of every command of the
  group that has that option. Flags given on the command line win; relative paths are read from
  the file's folder.
- ``[annotate]``: the LLM rater (``strategylens.annotate.providers.load_config``).
- ``[cluster]``: ``run --cluster`` (``strategylens.harness.cluster.read_config``).

An unknown table or key is an error naming the file and the key.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ENV_VAR = "STRATEGYLENS_CONFIG"
FILE_NAMES = ("strategylens.toml", "pyproject.toml")
# tables read by their own loaders, not command defaults
OWN_TABLES = ("annotate", "cluster")


class ConfigError(ValueError):
    """A bad configuration file: the message names the file and the key."""


@dataclass
class Config:
    """The strategylens tables of one file (``path`` None: no file found)."""

    path: Path | None = None
    data: dict = field(default_factory=dict)

    def section(self, name: str) -> dict:
        """One table (``annotate``, ``cluster``, ``tag``...), empty when absent."""
        table = self.data.get(name, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{self.path}: '{name}' must be a table ([{name}])")
        return dict(table)

    @property
    def where(self) -> str:
        if self.path is None:
            return "(no configuration file)"
        return f"{self.path}" + (" [tool.strategylens]" if self.path.name == "pyproject.toml"
                                 else "")


def _tables(path: Path) -> dict | None:
    """The strategylens tables of a file; None for a pyproject.toml without them."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    if path.name == "pyproject.toml":
        tool = doc.get("tool", {})
        return tool.get("strategylens") if isinstance(tool, dict) else None
    return doc


def find_config(start: Path | None = None) -> Path | None:
    """The nearest ``strategylens.toml``, or ``pyproject.toml`` with ``[tool.strategylens]``,
    from ``start`` (the current folder) upwards."""
    here = Path(start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        for name in FILE_NAMES:
            p = folder / name
            if p.is_file() and (name != "pyproject.toml" or _tables(p) is not None):
                return p
    return None


_LOADED: dict[str, Config] = {}


def load_config(path: Path | str | None = None, start: Path | None = None) -> Config:
    """The configuration: ``path``, else ``$STRATEGYLENS_CONFIG``, else :func:`find_config`."""
    explicit = path or os.environ.get(ENV_VAR) or None
    if explicit:
        p = Path(explicit)
        if not p.is_file():
            raise ConfigError(f"{p}: no such configuration file")
    else:
        p = find_config(start)
        if p is None:
            return Config()
    st = p.stat()
    key = f"{p.resolve()}:{st.st_mtime_ns}:{st.st_size}"
    if key not in _LOADED:
        _LOADED[key] = Config(p, _tables(p) or {})
    return _LOADED[key]


def read_section(name: str, path: Path | str | None = None) -> tuple[dict, str]:
    """One table of the configuration and where it came from (for messages)."""
    cfg = load_config(path)
    return cfg.section(name), cfg.where


# ---------------------------------------------------------------------------------------------
# command defaults (click's default_map)

def default_map(config: Config, root) -> dict:
    """Click's ``default_map`` for the root command from the per-command tables: values are
    checked against each command's options, relative paths made relative to the file."""
    # typer vendors click, so parameters are matched by what they are, not by class
    def params(cmd) -> dict:
        """Options by long name (``max_bytes`` for --max-bytes, ``format`` for --format)."""
        found = {}
        for p in cmd.params:
            if getattr(p, "param_type_name", "") != "option" or not p.name:
                continue
            longs = [o[2:] for o in p.opts if o.startswith("--")]
            found[(longs[0] if longs else p.name).replace("-", "_")] = p
        return found

    def value(param, raw, where: str):
        base = config.path.parent if config.path else Path.cwd()
        kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if "Path" in str(kind):
            fix = lambda v: str(v) if Path(str(v)).is_absolute() else str(base / str(v))
            return [fix(v) for v in raw] if isinstance(raw, list) else fix(raw)
        if param.multiple and not isinstance(raw, list):
            raise ConfigError(f"{where}: must be a list, e.g. [\"{raw}\"]")
        return raw

    def build(cmd, table: dict, prefix: str, inherited: dict) -> dict:
        out: dict = {}
        own = params(cmd)
        subs = getattr(cmd, "commands", {}) or {}
        shared = {}
        for key, raw in table.items():
            name = key.replace("-", "_")
            where = f"{config.where}: {prefix}{key}"
            if key in subs:
                if not isinstance(raw, dict):
                    raise ConfigError(f"{where}: must be a table ([{prefix}{key}])")
                continue
            if isinstance(raw, dict):
                raise ConfigError(f"{where}: no command '{prefix}{key}'"
                                  + (f" (commands: {', '.join(sorted(subs))})" if subs else ""))
            if subs:  # a group's key: every subcommand with this option
                takers = [s for s in subs.values() if name in params(s)]
                if not takers:
                    raise ConfigError(f"{where}: no command of '{prefix.rstrip('.')}' has an "
                                      f"option --{name.replace('_', '-')}")
                shared[name] = raw
                continue
            if name not in own:
                known = ", ".join(sorted(n.replace("_", "-") for n in own))
                raise ConfigError(f"{where}: '{cmd.name}' has no option --"
                                  f"{name.replace('_', '-')} (options: {known})")
            out[own[name].name] = value(own[name], raw, where)
        for name, raw in inherited.items():
            if name in own and own[name].name not in out:
                out[own[name].name] = value(own[name], raw, f"{config.where}: {prefix}{name}")
        for sub_name, sub in subs.items():
            sub_table = table.get(sub_name, {})
            built = build(sub, sub_table, f"{prefix}{sub_name}.", {**inherited, **shared})
            if built:
                out[sub_name] = built
        return out

    tables = {k: v for k, v in config.data.items() if k not in OWN_TABLES}
    nouns = getattr(root, "commands", {})
    for key in tables:
        if key not in nouns:
            raise ConfigError(f"{config.where}: unknown table [{key}] (tables: "
                              f"{', '.join(sorted([*nouns, *OWN_TABLES]))})")
    return build(root, tables, "", {})
