"""`strategylens tag PATH...`: label CUDA files with catalog strategies and anti-patterns."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from strategylens.cli.common import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, SCHEMA_VERSION, Format,
                                     catalog_version, debug, emit, fail, info, iter_progress,
                                     jsonl_line, stamped, metadata, use_catalog, warn)

CSV_COLUMNS = ["path", "id", "kind", "confidence", "probability", "intensity", "line_start",
               "line_end", "detector"]


class DetectorSet(str, Enum):
    ast = "ast"
    substring = "substring"
    compare = "compare"


class TagFormat(str, Enum):
    human = "human"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"
    sarif = "sarif"


def command(
    paths: list[Path] = typer.Argument(..., metavar="PATH...",
                                       help="CUDA files or folders (recursive over .cu/.cuh)."),
    fmt: TagFormat = typer.Option(TagFormat.human, "--format", "-f",
                                  help="human (grouped by file), json, jsonl, csv, or sarif "
                                       "(SARIF 2.1.0 for code scanning)."),
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
                                  help="Files larger than this many bytes are reported, not "
                                       "tagged."),
    timeout: float = typer.Option(60.0, "--timeout",
                                  help="Seconds one file may take (0: no limit); a file over "
                                       "it is reported, not tagged."),
    max_memory: int = typer.Option(2048, "--max-memory",
                                   help="MiB of memory one file may use (0: no limit)."),
    show_evidence: bool = typer.Option(False, "--show-evidence",
                                       help="Human view: each label's evidence (lines, "
                                            "detector, reason)."),
    fail_on: Optional[list[str]] = typer.Option(
        None, "--fail-on", metavar="IDS",
        help="Exit 1 when a file gets one of these labels: IDs or patterns, comma-separated "
             "(AP-*, MEM-02), or audit flags of the --store runs (flag:timer-tamper, flag:*)."),
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

    The human view lists each file once, then one line per label:

      ID     the catalog ID (MEM, CMP, PAR, LBL, HST: strategies; AP: anti-patterns)
      name   the catalog entry's name (strategylens catalog show ID explains it)
      lines  the evidence lines; "run" is evidence from the harness runs (--store)
      p      calibrated probability that the label is right, fitted on hand-labelled files;
             blank where no calibration applies

    and "note:" lines for what the tagger assumed or could not see. --show-evidence adds each
    label's evidence (lines, detector, reason).

    --format jsonl prints one object per file ({"schema_version", "record_type": "tag", tool
    and catalog versions, "path", "ok", "error", "labels": [...], "warnings", "notes"}); json
    the same objects as a list; csv and --out FILE.parquet one row per label and evidence span
    (path, id, kind, confidence: the detector's own certainty 0-1, probability: the calibrated
    p, intensity, line_start, line_end, detector; a tagged file without labels gets one row with
    an empty id); sarif a SARIF 2.1.0 log with the catalog as the tool's rules.
    docs/output-formats.md documents the shapes.

    Exit code 0 when every file was tagged (and no --fail-on label was found), 1 when any file
    failed or a --fail-on label was found, 2 for bad usage or when no path could be used.

    Examples:
      strategylens tag tasks/*/solutions
      strategylens tag solution.cu --format jsonl
      strategylens tag runs/ --format csv --jobs 2 > labels.csv
      strategylens tag runs/ --out labels.parquet --no-index
      strategylens tag src/ --format sarif > strategylens.sarif   # GitHub code scanning
      strategylens tag src/ --fail-on 'AP-*'                      # CI: no anti-patterns
      strategylens tag solution.cu --show-evidence
      strategylens tag solution.cu --detectors substring   # AccelEval's keyword labels
      strategylens tag runs/ --detectors compare          # where the two disagree
      strategylens tag tasks/heat2d/solutions --task heat2d  # reference-relative evidence
      strategylens tag corpus/ --task auto               # each file with its task's reference
      strategylens tag tests/cheats --store analyses/h200    # plus what the H200 runs showed
      strategylens tag runs/ --with-annotations llm.jsonl --combiner combiner.json
      strategylens tag kernels/ -I include -D TILE=32        # headers and macros as for nvcc
    """
    from strategylens import tag
    from strategylens.cli import tag_output
    from strategylens.cli.common import check_output, writing
    from strategylens.tag.flags import FlagsError, parse_defines

    try:  # `[tag] include-dir = [...]`, `define = [...]` in the config give their defaults
        include_dirs = [str(d.resolve()) for d in include_dir or []]
        defines = parse_defines(define or [])
    except FlagsError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    cat = None
    files, bad_paths = tag.find_files(paths)
    for r in bad_paths:
        warn(r.error)
    if not files:
        where = ", ".join(map(str, paths))
        raise fail(f"no .cu or .cuh files under {where}" if not bad_paths
                   else "no file to tag", EXIT_USAGE)
    if out is not None:
        check_output(out)
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
    bounds = tag.Bounds(timeout or None, max_memory or None)
    if detectors == DetectorSet.compare:
        fmt_plain = Format(fmt.value) if fmt != TagFormat.sarif else None
        if fmt_plain is None:
            raise fail("--format sarif needs --detectors ast or substring", EXIT_USAGE)
        _compare(files, fmt_plain, jobs, entry, not no_index, not no_cache, max_bytes,
                 list(catalog) if catalog else None, bounds)
        return
    cat = tag.get_catalog(list(catalog) if catalog else None)
    use_catalog(cat)
    problems = getattr(cat, "errors", [])
    if problems:
        warn(f"the catalog has {len(problems)} problem(s) (first: {problems[0]}); see "
             "`strategylens catalog validate`")
    patterns = tag_output.parse_patterns(fail_on)
    if patterns:
        from strategylens.harness.audit import FLAG_NAMES

        unknown = tag_output.check_patterns(patterns, cat, FLAG_NAMES)
        if unknown:
            raise fail(f"--fail-on: {', '.join(unknown)} matches no catalog ID and no audit "
                       f"flag (IDs look like MEM-02 or AP-*; flags: flag:{FLAG_NAMES[0]})",
                       EXIT_USAGE)
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
    results = list(bad_paths)
    if fmt == TagFormat.jsonl:
        for r in bad_paths:
            sys.stdout.write(jsonl_line(r.as_dict(), "tag") + "\n")
    stream = (r for group, ref in groups
              for r in tag.tag_paths(group, jobs=jobs or None, detectors=detectors.value,
                                        entry=entry, index=not no_index,
                                        catalog=cat if detectors == DetectorSet.ast else None,
                                        cache=not no_cache, size_limit=max_bytes,
                                        reference=ref, bounds=bounds,
                                        include_dirs=include_dirs, defines=defines))
    for r in iter_progress(stream, total=len(files), description="tagging"):
        if runs:
            r = tag.add_harness_evidence(r, tag.rows_for(r.path, runs), cat)
        if annotations is not None and r.ok:
            r = tag.FileResult.from_dict(annotations.apply(r.as_dict()), r.index_status)
        debug(f"{r.path}: {'ok' if r.ok else 'failed'}, {len(r.labels)} label(s)"
              + (" (cached)" if r.cached else ""))
        if not r.ok:
            warn(r.error or f"{r.path}: failed")
        elif fmt not in (TagFormat.json, TagFormat.jsonl, TagFormat.sarif):
            for w in r.warnings:  # machine-readable output carries its warnings
                warn(w)
        if fmt == TagFormat.jsonl:
            sys.stdout.write(jsonl_line(_record(r, samples), "tag") + "\n")
            sys.stdout.flush()
        results.append(r)
    results.sort(key=lambda r: r.path)
    rows = [row for r in results for row in r.rows()]
    if fmt == TagFormat.json:
        meta = metadata("tag")
        sys.stdout.write(json.dumps([stamped(_record(r, samples), meta=meta) for r in results],
                                    indent=2, default=str) + "\n")
    elif fmt == TagFormat.csv:
        emit(rows, Format.csv, columns=CSV_COLUMNS)
    elif fmt == TagFormat.sarif:
        from strategylens import __version__

        log = tag_output.sarif_log(results, cat, tool_version=__version__,
                                   catalog_version=catalog_version(),
                                   schema_version=SCHEMA_VERSION, arguments=sys.argv[1:])
        sys.stdout.write(json.dumps(log, indent=2) + "\n")
    elif fmt == TagFormat.human:
        tag_output.human(results, cat, show_evidence=show_evidence)
    if out is not None:
        with writing(out):
            _write_parquet(rows, out)
        info(f"wrote {out}")
    failed = sum(not r.ok for r in results)
    if failed:
        warn(f"{failed} of {len(results)} files could not be tagged")
    flags_of = None
    if runs:
        from strategylens.stats.data import parse_flags

        def flags_of(path: str) -> list[str]:
            return [f for row in tag.rows_for(path, runs)
                    for f in parse_flags(row.get("audit_flags"))]
    hits = tag_output.fail_on(results, patterns, flags_of) if patterns else []
    if hits:
        shown = "; ".join(f"{p}: {what}" for p, what in hits[:10])
        more = f" and {len(hits) - 10} more" if len(hits) > 10 else ""
        warn(f"--fail-on {','.join(patterns)}: {len(hits)} finding(s): {shown}{more}")
    raise typer.Exit(EXIT_FINDINGS if failed or hits else EXIT_OK)


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
    try:
        sample = samples.get(str(Path(r.path).resolve()))
    except (OSError, RuntimeError):  # a symlink loop: no run folder to name
        return rec
    if sample is not None:
        rec.update(sample.as_row(), task=sample.task)
    return rec


def _compare(files, fmt, jobs, entry, index, cache, max_bytes, extra_catalog, bounds) -> None:
    """One row per (file, ID) that either detector set reports: what strategylens says beside
    what AccelEval's substring rules say."""
    from strategylens import tag

    cat = tag.get_catalog(extra_catalog)
    found: dict[str, dict[str, dict[str, str]]] = {}
    failed = 0
    for name in ("ast", "substring"):
        stream = tag.tag_paths(files, jobs=jobs or None, detectors=name, entry=entry,
                                  index=index, catalog=cat if name == "ast" else None,
                                  cache=cache, size_limit=max_bytes, bounds=bounds)
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
