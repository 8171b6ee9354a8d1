"""`strategylens tag PATH...`: label CUDA files with catalog strategies and anti-patterns."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from strategylens.cli.common import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Format, FormatOption,
                                     emit, fail, iter_progress, warn)

CSV_COLUMNS = ["path", "id", "kind", "confidence", "probability", "intensity", "line_start",
               "line_end", "detector"]


class DetectorSet(str, Enum):
    ast = "ast"
    substring = "substring"
    compare = "compare"


def command(
    paths: list[Path] = typer.Argument(..., metavar="PATH...",
                                       help="CUDA files or folders (recursive over .cu/.cuh)."),
    fmt: Format = FormatOption,
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="Also write one row per label to this .parquet file."),
    detectors: DetectorSet = typer.Option(DetectorSet.ast, "--detectors",
                                          help="ast (strategylens), substring (AccelEval's "
                                               "keyword rules), or compare (both, side by "
                                               "side, one row per file and ID)."),
    entry: str = typer.Option("solution_compute", "--entry",
                              help="Entry point for reachability."),
    no_index: bool = typer.Option(False, "--no-index",
                                  help="Skip the libclang index pass (strides from tree-sitter)."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Worker processes (0: one per CPU)."),
    no_cache: bool = typer.Option(False, "--no-cache",
                                  help="Ignore and do not write the per-file cache "
                                       "($STRATEGYLENS_CACHE/tag or ~/.cache/strategylens/tag)."),
    catalog: Optional[list[Path]] = typer.Option(None, "--catalog", "-c",
                                                 help="An extra catalog folder (repeatable)."),
    max_bytes: int = typer.Option(2 * 1024 * 1024, "--max-bytes",
                                  help="Files larger than this are reported, not tagged."),
    task: Optional[str] = typer.Option(None, "--task",
                                       help="Task whose C reference the solutions port: enables "
                                            "evidence relative to the reference (MEM-10). "
                                            "'auto': each file's task is the folder named "
                                            "after it (or its labels.yaml entry)."),
    reference: Optional[Path] = typer.Option(None, "--reference",
                                             help="A C reference file, instead of --task."),
    include_dir: Optional[list[Path]] = typer.Option(None, "--include-dir", "-I",
                                                     help="A folder searched for included "
                                                          "headers, as for nvcc -I "
                                                          "(repeatable)."),
    define: Optional[list[str]] = typer.Option(None, "--define", "-D",
                                               help="A macro NAME or NAME=VALUE, as for nvcc "
                                                    "-D (repeatable)."),
    store: Optional[Path] = typer.Option(None, "--store",
                                         help="A harness results store: adds what the runs of "
                                              "these files showed (audit flags, copies per "
                                              "call) as evidence with line 0."),
    with_annotations: Optional[list[Path]] = typer.Option(
        None, "--with-annotations",
        help="Other raters' labels of the same files (`annotate` JSONL, expert CSV/JSONL, "
             "gold YAML; repeatable): each file's final labels come from the combiner."),
    combiner: Optional[Path] = typer.Option(
        None, "--combiner", help="A combiner from `strategylens labels train` (with "
                                 "--with-annotations); without it the documented rule decides."),
) -> None:
    """Tag CUDA files with the strategies and anti-patterns of the catalog.

    Human table by default (file, ID, lines, confidence); --format jsonl prints one object per
    file ({"path", "ok", "error", "labels": [...]}); --format csv and --out FILE.parquet give
    one row per label and evidence span (path, id, kind, confidence, intensity, line_start,
    line_end, detector; a tagged file without labels gets one row with an empty id).
    Exit code 0 when every file was tagged, 1 when any file failed, 2 for bad usage.

    Examples:
      strategylens tag tasks/*/solutions
      strategylens tag solution.cu --format jsonl
      strategylens tag runs/ --format csv --jobs 2 > labels.csv
      strategylens tag runs/ --out labels.parquet --no-index
      strategylens tag solution.cu --detectors substring   # AccelEval's keyword labels
      strategylens tag runs/ --detectors compare          # where the two disagree
      strategylens tag tasks/heat2d/solutions --task heat2d  # reference-relative evidence
      strategylens tag corpus/ --task auto               # each file with its task's reference
      strategylens tag tests/cheats --store analyses/h200    # plus what the H200 runs showed
      strategylens tag runs/ --with-annotations llm.jsonl --combiner combiner.json
      strategylens tag kernels/ -I include -D TILE=32        # headers and macros as for nvcc
    """
    from strategylens import tag
    from strategylens.tag.flags import FlagsError, parse_defines, read_tag_config

    try:  # the config's [tag] flags first, the command line's after (and over) them
        include_dirs, defines = read_tag_config()
        include_dirs += [str(d.resolve()) for d in include_dir or []]
        defines.update(parse_defines(define or []))
    except FlagsError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    cat = None
    try:
        files = tag.expand_paths(paths)
    except FileNotFoundError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    if not files:
        raise fail(f"no .cu or .cuh files under {', '.join(map(str, paths))}", EXIT_USAGE)
    ref_source = None
    if task and reference:
        raise fail("give --task or --reference, not both", EXIT_USAGE)
    groups: list[tuple[list, bytes | None]] = [(files, None)]
    if task == "auto":
        groups = _reference_groups(files)
        task = None
    if task:
        from strategylens.tasks import TaskError, load_task

        try:
            reference = load_task(task).path / "reference.c"
        except (TaskError, FileNotFoundError) as exc:
            raise fail(str(exc), EXIT_USAGE) from None
    if reference is not None:
        try:
            ref_source = reference.read_bytes()
        except OSError as exc:
            raise fail(f"{reference}: cannot read the reference ({exc.strerror or exc})",
                       EXIT_USAGE) from None
        groups = [(files, ref_source)]
    if detectors == DetectorSet.compare:
        _compare(files, fmt, jobs, entry, not no_index, not no_cache, max_bytes,
                 list(catalog) if catalog else None)
        return
    if detectors == DetectorSet.ast or catalog:
        cat = tag.get_catalog(list(catalog) if catalog else None)
        problems = getattr(cat, "errors", [])
        if problems:
            warn(f"the catalog has {len(problems)} problem(s) (first: {problems[0]}); see "
                 "`strategylens catalog validate`")
    runs = None
    if store is not None:
        from strategylens.store import read_results

        if not (store / "results").is_dir():
            raise fail(f"{store}: not a results store (no results/ folder)", EXIT_USAGE)
        runs = read_results(store).to_dict("records")
        if not runs:
            warn(f"{store}: the store holds no results; no harness evidence added")
    from strategylens.runfolders import samples_by_path

    samples = samples_by_path(files)  # AccelEval run folders: model, level, stage per file
    annotations = None
    if combiner is not None and not with_annotations:
        raise fail("--combiner needs --with-annotations", EXIT_USAGE)
    if with_annotations:
        from strategylens.labels.combine import Annotations, catalog_ids
        from strategylens.labels.records import LabelError

        try:
            annotations = Annotations.load(list(with_annotations), combiner, catalog_ids(cat)[1])
        except (LabelError, OSError) as exc:
            raise fail(str(exc), EXIT_USAGE) from None
    results = []
    stream = (r for group, ref in groups
              for r in tag.tag_paths(group, jobs=jobs or None, detectors=detectors.value,
                                        entry=entry, index=not no_index, catalog=cat,
                                        cache=not no_cache, size_limit=max_bytes,
                                        reference=ref, include_dirs=include_dirs,
                                        defines=defines))
    for r in iter_progress(stream, total=len(files), description="tagging"):
        if runs:
            r = tag.add_harness_evidence(r, tag.rows_for(r.path, runs), cat)
        if annotations is not None and r.ok:
            r = tag.FileResult.from_dict(annotations.apply(r.as_dict()), r.index_status)
        if not r.ok:
            warn(r.error or f"{r.path}: failed")
        elif fmt not in (Format.json, Format.jsonl):  # json output carries its warnings
            for w in r.warnings:
                warn(w)
        if fmt == Format.jsonl:
            sys.stdout.write(json.dumps(_record(r, samples)) + "\n")
            sys.stdout.flush()
        results.append(r)
    results.sort(key=lambda r: r.path)
    rows = [row for r in results for row in r.rows()]
    if fmt == Format.json:
        emit([_record(r, samples) for r in results], fmt)
    elif fmt == Format.csv:
        emit(rows, fmt, columns=CSV_COLUMNS)
    elif fmt == Format.human:
        emit(_human_rows(results), fmt, columns=["file", "id", "lines", "confidence", "p"],
             title=f"strategylens tag ({detectors.value})")
    if out is not None:
        try:
            _write_parquet(rows, out)
        except Exception as exc:
            raise fail(f"{out}: cannot write parquet ({exc})", EXIT_USAGE) from None
    failed = sum(not r.ok for r in results)
    if failed:
        warn(f"{failed} of {len(results)} files could not be tagged")
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _reference_groups(files: list) -> list[tuple[list, bytes | None]]:
    """Files grouped by the task each lies under (``strategylens.tasks.task_of_solution``),
    each group with its task's C reference; files under no task get none."""
    from strategylens.tasks import group_by_task

    grouped, by_id, _ = group_by_task(files)
    if None in grouped:
        warn(f"{len(grouped[None])} file(s) under no task folder (first: {grouped[None][0]}); "
             "tagged without a reference")
    out = []
    for tid, group in grouped.items():
        ref = by_id[tid].reference_file() if tid else None
        out.append((group, ref.read_bytes() if ref is not None and ref.is_file() else None))
    return out


def _record(r, samples: dict) -> dict:
    """A file's JSON record, with its run folder's author, level, stage and sample if any."""
    rec = r.as_dict()
    sample = samples.get(str(Path(r.path).resolve()))
    if sample is not None:
        rec.update(sample.as_row(), task=sample.task)
    return rec


def _compare(files, fmt, jobs, entry, index, cache, max_bytes, extra_catalog) -> None:
    """One row per (file, ID) that either detector set reports: what strategylens says beside
    what AccelEval's substring rules say."""
    from strategylens import tag

    cat = tag.get_catalog(extra_catalog)
    found: dict[str, dict[str, dict[str, str]]] = {}
    failed = 0
    for name in ("ast", "substring"):
        stream = tag.tag_paths(files, jobs=jobs or None, detectors=name, entry=entry,
                                  index=index, catalog=cat if name == "ast" else None,
                                  cache=cache, size_limit=max_bytes)
        for r in iter_progress(stream, total=len(files), description=f"tagging ({name})"):
            if not r.ok:
                warn(r.error or f"{r.path}: failed")
                failed += name == "ast"
                continue
            per_file = found.setdefault(r.path, {})
            for lb in r.labels:
                lines = ",".join(str(e.line_start) for e in lb.evidence)
                per_file.setdefault(lb.id, {"ast": "", "substring": ""})[name] = lines
    rows = []
    for path in sorted(found):
        for sid in sorted(found[path]):
            seen = found[path][sid]
            verdict = ("both" if seen["ast"] and seen["substring"] else
                       "strategylens only" if seen["ast"] else "substring only")
            rows.append({"file": path, "id": sid, "strategylens_lines": seen["ast"],
                         "substring_lines": seen["substring"], "verdict": verdict})
    emit(rows, fmt, columns=["file", "id", "strategylens_lines", "substring_lines", "verdict"],
         title="strategylens vs AccelEval's substring rules")
    n = {v: sum(r["verdict"] == v for r in rows) for v in ("both", "strategylens only",
                                                          "substring only")}
    warn(f"{n['both']} (file, ID) pairs agree, {n['strategylens only']} only strategylens, "
         f"{n['substring only']} only the substring rules")
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _human_rows(results) -> list[dict]:
    rows = []
    for r in results:
        if not r.ok:
            rows.append({"file": r.path, "id": "error", "lines": "", "confidence": "", "p": ""})
            continue
        if not r.labels:
            rows.append({"file": r.path, "id": "-", "lines": "", "confidence": "", "p": ""})
        for lb in r.labels:
            spans = ", ".join("run" if e.detector == "harness" else str(e.line_start)
                              if e.line_start == e.line_end else f"{e.line_start}-{e.line_end}"
                              for e in lb.evidence)
            rows.append({"file": r.path, "id": lb.id, "lines": spans,
                         "confidence": f"{lb.confidence:.2f}",
                         "p": "" if lb.probability is None else f"{lb.probability:.2f}"})
        if r.notes:
            rows.append({"file": r.path, "id": "notes", "lines": "; ".join(r.notes),
                         "confidence": "", "p": ""})
    return rows


def _write_parquet(rows: list[dict], out: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("path", pa.string()), ("id", pa.string()), ("kind", pa.string()),
                        ("confidence", pa.float64()), ("probability", pa.float64()),
                        ("intensity", pa.float64()),
                        ("line_start", pa.int64()), ("line_end", pa.int64()),
                        ("detector", pa.string())])
    table = pa.Table.from_pylist(
        [{**r, "intensity": None if r["intensity"] is None else float(r["intensity"])}
         for r in rows], schema=schema)
    pq.write_table(table, out)
