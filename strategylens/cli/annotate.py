"""`strategylens annotate PATH...`: ask an LLM rater to label solutions with catalog IDs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from strategylens.cli.common import EXIT_FINDINGS, EXIT_OK, Format, emit, err, fail, warn


def command(
    paths: Optional[list[Path]] = typer.Argument(None, metavar="PATH...",
                                                 help="CUDA files or folders (recursive over "
                                                      ".cu/.cuh)."),
    config: Optional[Path] = typer.Option(None, "--config",
                                          help="TOML file with an \\[annotate] table (default: "
                                               "./strategylens.toml, or \\[tool.strategylens."
                                               "annotate] in ./pyproject.toml)."),
    provider: Optional[str] = typer.Option(None, "--provider", help="openai or anthropic."),
    model: Optional[str] = typer.Option(None, "--model", help="Model name."),
    base_url: Optional[str] = typer.Option(None, "--base-url",
                                           help="Endpoint, e.g. http://localhost:8000/v1 "
                                                "(vLLM, Ollama, llama.cpp server)."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env",
                                              help="Name of the environment variable holding "
                                                   "the key (the key is never stored)."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", help="Requests in flight."),
    budget_tokens: Optional[int] = typer.Option(None, "--budget-tokens",
                                                help="Start no request past this many tokens."),
    budget_usd: Optional[float] = typer.Option(None, "--budget-usd",
                                               help="Start no request past this cost (needs "
                                                    "prices in the config)."),
    task: Optional[str] = typer.Option(None, "--task",
                                       help="Task whose C reference goes into the prompt; "
                                            "'auto': each file's task from its folder."),
    hints: bool = typer.Option(True, "--hints/--no-hints",
                               help="Put the detectors' evidence into the prompt as hints."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache."),
    export: Optional[Path] = typer.Option(None, "--export",
                                          help="Write the requests as a provider batch "
                                               "(requests.jsonl, manifest.json) into this folder "
                                               "instead of calling the model."),
    missing_only: bool = typer.Option(False, "--missing-only",
                                      help="With --export: only files not in the cache."),
    import_: Optional[Path] = typer.Option(None, "--import",
                                           help="Read a provider's batch results file (with "
                                                "manifest.json beside it or --manifest)."),
    manifest: Optional[Path] = typer.Option(None, "--manifest", help="The export's manifest."),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="Append records to this JSONL file as they finish."),
    fmt: Format = typer.Option(Format.jsonl, "--format", "-f", help="jsonl (default), json, "
                                                                     "human or csv"),
) -> None:
    """Ask an LLM to label each solution with catalog IDs (line spans and a reason each).

    Records have the JSONL shape of `strategylens tag`, with "rater" naming model and prompt
    version, "usage" (requests, tokens, cost) and "cached". Replies are validated against a JSON
    schema; an invalid reply is asked again (--config invalid_retries), then recorded as a
    failure with the reply kept. Rate limits, timeouts and server errors are retried with
    backoff. Valid replies are cached by model, prompt version and everything sent.
    Exit code 0 when every file was labelled, 1 when any failed, 2 for bad usage.

    Examples:
      strategylens annotate tasks/heat2d/solutions --model gpt-5 --task auto
      strategylens annotate runs/ --provider anthropic --model claude-opus-4 --budget-usd 5
      strategylens annotate sol.cu --base-url http://localhost:8000/v1 --model qwen3-coder
      strategylens annotate runs/ --model gpt-5 --export batch/      # then upload batch/requests.jsonl
      strategylens annotate --import batch/results.jsonl -o ann.jsonl
    """
    from strategylens.annotate import batch
    from strategylens.annotate.providers import Client, ConfigError, load_config
    from strategylens.annotate.run import Budget, Cache, annotate

    cache = None if no_cache else Cache()
    if import_ is not None:
        try:
            records = batch.import_results(import_, manifest, cache)
        except batch.BatchError as exc:
            raise fail(str(exc)) from None
        _write(records, out, fmt)
        raise typer.Exit(EXIT_OK if all(r["ok"] for r in records) else EXIT_FINDINGS)
    if not paths:
        raise fail("give CUDA files or folders to label (or --import a batch results file)")
    overrides = {"provider": provider, "model": model, "base_url": base_url,
                 "api_key_env": api_key_env, "concurrency": concurrency,
                 "budget_tokens": budget_tokens, "budget_usd": budget_usd}
    try:
        cfg = load_config(config, overrides)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    from strategylens.catalog import load_catalog

    catalog = load_catalog()
    jobs, problems = _jobs(paths, task, hints, catalog)
    for p in problems:
        warn(p)
    if export is not None:
        man = batch.export(jobs, cfg, catalog, export, cache, missing_only)
        err.print(f"wrote {len(man['requests'])} request(s) to {export / 'requests.jsonl'} "
                  f"and {export / 'manifest.json'}")
        raise typer.Exit(EXIT_OK if not problems else EXIT_FINDINGS)
    try:
        client = Client(cfg)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    budget = Budget.of(cfg)
    sink = open(out, "a") if out else None  # noqa: SIM115 - appended and flushed per record
    records = []
    try:
        for rec in _progress(annotate(jobs, cfg, catalog, client, cache, budget), len(jobs)):
            records.append(rec)
            if sink:
                sink.write(json.dumps(rec) + "\n")
                sink.flush()
            elif fmt == Format.jsonl:
                sys.stdout.write(json.dumps(rec) + "\n")
                sys.stdout.flush()
            if not rec["ok"]:
                warn(f"{rec['path']}: {rec['error']}")
    finally:
        if sink:
            sink.close()
    if fmt != Format.jsonl and not out:
        _write(records, None, fmt)
    s = budget.summary()
    err.print(f"{sum(r['ok'] for r in records)} of {len(records)} labelled "
              f"({sum(r['cached'] for r in records)} from the cache); {s['requests']} request(s), "
              f"{s['tokens']} tokens, ${s['usd']:.4f}")
    raise typer.Exit(EXIT_OK if all(r["ok"] for r in records) and not problems else EXIT_FINDINGS)


def _jobs(paths, task, hints, catalog):
    from strategylens.annotate.run import Job
    from strategylens.tag import expand_paths

    files = expand_paths(paths)
    refs = _references(files, task)
    problems = []
    jobs = []
    for f in files:
        try:
            source = f.read_text(errors="replace")
        except OSError as exc:
            problems.append(f"{f}: cannot read: {exc.strerror or exc}")
            continue
        jobs.append(Job(str(f), source, refs.get(f), _hints(f, catalog) if hints else None))
    return jobs, problems


def _references(files, task) -> dict:
    if not task:
        return {}
    from strategylens.tasks import group_by_task, load_task

    out = {}
    if task == "auto":
        groups = group_by_task(files)
        for tid, members in groups.items():
            try:
                ref = (load_task(tid).path / "reference.c").read_text()
            except Exception:  # noqa: BLE001 - no task: no reference in the prompt
                continue
            out.update({f: ref for f in members})
        return out
    ref = (load_task(task).path / "reference.c").read_text()
    return {f: ref for f in files}


def _hints(path: Path, catalog) -> list[dict] | None:
    from strategylens.tag import tag_file

    try:
        result = tag_file(path, catalog=catalog, index=False)
    except Exception:  # noqa: BLE001 - hints are optional
        return None
    return [lab.as_dict() for lab in result.labels] if result.ok else None


def _progress(items, total):
    from strategylens.cli.common import iter_progress

    return iter_progress(items, total, "annotating")


def _write(records, out, fmt) -> None:
    if out:
        with open(out, "a") as fh:
            for r in records:
                fh.write(json.dumps(r) + "\n")
        return
    if fmt in (Format.jsonl, Format.json):
        emit(records, fmt)
        return
    rows = [{"path": r["path"], "ok": r["ok"], "ids": ",".join(lab["id"] for lab in r["labels"]),
             "error": r["error"] or ""} for r in records]
    emit(rows, fmt, ["path", "ok", "ids", "error"])
