"""The `strategylens` command: one sub-app per noun.

Each noun lives in its own module of this package and exposes `app` (a typer.Typer) or, for
single-verb nouns, a function registered below.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Optional

import typer

from strategylens import __version__

app = typer.Typer(
    name="strategylens",
    help="Explains why GPU code is fast: tag strategies, run solutions on a GPU, relate strategies to speedup.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish)
    pretty_exceptions_enable=False,
)

# noun -> module under strategylens.cli; a module exposing `app` becomes a sub-app, one exposing
# `command` a single command.
_NOUNS = {
    "catalog": "catalog",
    "tasks": "tasks",
    "tag": "tag",
    "run": "run",
    "results": "results",
    "stats": "stats",
    "report": "report",
    "annotate": "annotate",
    "labels": "labels",
    "corpus": "corpus",
}


def _register() -> None:
    for noun, module_name in _NOUNS.items():
        try:
            module = importlib.import_module(f"strategylens.cli.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] == "strategylens":
                raise
            _register_missing(noun, exc.name)  # e.g. no tree-sitter on a GPU-only machine
            continue
        if hasattr(module, "app"):
            app.add_typer(module.app, name=noun)
        elif hasattr(module, "command"):
            app.command(name=noun, help=module.command.__doc__)(module.command)


def _register_missing(noun: str, dependency: str | None) -> None:
    """Keep the other nouns usable when one noun's dependency is not installed."""

    def unavailable(ctx: typer.Context) -> None:
        typer.echo(f"error: `strategylens {noun}` needs the Python package '{dependency}', which "
                   "is not installed here; install strategylens with its dependencies "
                   "(pip install -e .)", err=True)
        raise typer.Exit(2)

    app.command(name=noun, help=f"(unavailable: needs {dependency})",
                context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(unavailable)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"strategylens {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
    quiet: bool = typer.Option(False, "--quiet", "-q",
                               help="Only results and errors: no progress, warnings or "
                                    "status lines."),
    verbose: int = typer.Option(0, "--verbose", "-v", count=True,
                                help="More detail on stderr: the configuration file in use, each "
                                     "phase of a long command, each tagged file (cached "
                                     "or not)."),
    config: Optional[Path] = typer.Option(None, "--config", envvar="STRATEGYLENS_CONFIG",
                                          help="Configuration file (default: the nearest "
                                               "strategylens.toml, or pyproject.toml with "
                                               "[tool.strategylens]); docs/configuration.md."),
) -> None:
    """strategylens command line.

    Options of every command can be set in strategylens.toml ([tag], [report],
    [stats.effects], ...) or under [tool.strategylens] in pyproject.toml.
    Shell completion: strategylens --install-completion.
    """
    from strategylens.cli.common import STATE, fail
    from strategylens.config import ConfigError, default_map, load_config

    STATE.quiet, STATE.verbose = quiet, verbose
    if ctx.resilient_parsing:  # shell completion: no config errors
        return
    try:
        cfg = load_config(config)
        ctx.default_map = default_map(cfg, ctx.command)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    if cfg.path is not None:
        from strategylens.cli.common import debug

        debug(f"configuration: {cfg.where}")


_register()


def main() -> None:
    app()
