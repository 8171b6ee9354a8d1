"""`strategylens run`: build, run, time, audit and profile solutions on the GPU."""

from __future__ import annotations

from pathlib import Path

import typer

from strategylens.cli.common import EXIT_FINDINGS, EXIT_OK, Format, FormatOption, emit, fail, warn

COLUMNS = ["task", "solution", "size", "compiled", "correct", "status", "e2e_ms_median",
           "e2e_ms_iqr", "n_trials", "stop_rule", "cpu_ms", "speedup", "floor_ratio",
           "audit_flags"]
BUILD_COLUMNS = ["task", "solution", "compiled", "kernel", "registers", "spill_stores",
                 "spill_loads", "smem_bytes", "stack_bytes", "error"]


def _solutions(paths: list[Path]) -> list[Path]:
    found = []
    for p in paths:
        if p.is_dir():
            found += sorted(p.rglob("*.cu"))
        elif p.suffix == ".cu" and p.is_file():
            found.append(p)
        else:
            warn(f"{p}: not a .cu file or a folder of them; skipped")
    return found


def _by_task(sols: list[Path], task: str | None,
             acceleval: Path | None = None) -> dict[str, list[Path]]:
    """Solutions grouped by task: all under ``--task``, or each by where it lies."""
    from strategylens.tasks import TaskError, group_by_task

    if task:
        return {task: sols}
    try:
        groups, by_id, errors = group_by_task(sols, acceleval)
    except TaskError as exc:
        raise fail(str(exc)) from None
    for e in errors:
        warn(e)
    for s in groups.pop(None, []):
        warn(f"{s}: no task: put it under a folder named after the task id "
             f"({', '.join(sorted(by_id)[:4])}, ...) or give --task; skipped")
    return groups


def command(
    paths: list[Path] = typer.Argument(..., help="Solution .cu files or folders holding them "
                                       "(searched recursively)."),
    task: str = typer.Option(None, "--task", "-t",
                             help="Task id or task folder of every solution. Without it each "
                                  "solution's task is the nearest folder named after a task "
                                  "id (corpus/<task>/<model>/sample.cu), or its entry in a "
                                  "labels.yaml beside it."),
    sizes: str = typer.Option("small,medium,large", "--sizes", help="Comma-separated sizes."),
    store: Path = typer.Option(Path("results"), "--store", help="Results store folder."),
    warmup_s: float = typer.Option(0.3, help="Warm-up time budget per solution and size (s)."),
    measure_s: float = typer.Option(2.0, help="Measurement time budget (s)."),
    noise: float = typer.Option(0.01, help="Stop when the relative noise of the median is under this."),
    min_trials: int = typer.Option(10, help="Timed calls before the noise rule may stop."),
    call_timeout_s: float = typer.Option(60.0, help="Wall-clock limit per call (s)."),
    solution_timeout_s: float = typer.Option(600.0, help="Wall-clock limit per solution and size (s)."),
    mem_limit_gib: float = typer.Option(32.0, help="Host memory limit of the child (GiB)."),
    landlock: bool = typer.Option(True, help="Restrict the child's filesystem with Landlock."),
    cupti: bool = typer.Option(True, help="Profile with CUPTI (cupti-python) when available."),
    remeasure_cpu: bool = typer.Option(False, help="Time the CPU reference again, ignoring the cache."),
    child_cpus: str = typer.Option("", "--child-cpus",
                                   help="CPUs each solution's child may run on: gpu-local (the "
                                        "GPU's NUMA node) or a list such as 2-7,10 (default: "
                                        "any)."),
    arch: str = typer.Option(None, help="nvcc -arch (default: from the GPU found now, else "
                                        "sm_90)."),
    legacy: bool = typer.Option(False, "--legacy",
                                help="Measure as the harness did before issue 12 (inputs rewritten "
                                     "and validated around every call, a child per size): "
                                     "slower, for comparisons."),
    build_only: bool = typer.Option(False, "--build-only",
                                    help="Only compile: report compile errors and each kernel's "
                                         "registers, spills and shared memory. No GPU needed."),
    cluster: str = typer.Option(None, "--cluster",
                                help="Run on Dask: local (CPU workers), local-cuda (one worker "
                                     "per GPU of this host, dask-cuda), slurm, pbs or lsf "
                                     "(dask-jobqueue, options from --cluster-config), or a "
                                     "scheduler address tcp://host:port. Without it, one GPU "
                                     "in this process."),
    cluster_config: Path = typer.Option(None, "--cluster-config",
                                        help="TOML file with a [cluster] table (default: "
                                             "./strategylens.toml, or [tool.strategylens."
                                             "cluster] in ./pyproject.toml); docs/scale-out.md."),
    acceleval: Path = typer.Option(None, "--acceleval", envvar="STRATEGYLENS_ACCELEVAL",
                                   help="An AccelEval checkout: task ids and folders name its "
                                        "tasks (a run folder's <task>/sample_<k>.cu); solutions "
                                        "are built with the task's task_io.cu and driven "
                                        "through it ($STRATEGYLENS_ACCELEVAL)."),
    fmt: Format = FormatOption,
) -> None:
    """Run solutions at several sizes; results go to the store as they finish.

    Examples:

      strategylens run tasks/black_scholes/solutions --task black_scholes --store runs/bs

      strategylens run my.cu --task heat2d --sizes small --store runs/x --format json

      strategylens run corpus/ --sizes small,medium --store runs/all   # corpus/<task>/...

      strategylens run corpus/ --build-only --format csv   # compile and report kernels, no GPU

      strategylens run corpus/ --cluster local-cuda --store runs/all   # every GPU of this host

      strategylens run corpus/ --cluster slurm --cluster-config strategylens.toml --store runs/all

      strategylens run ~/AccelEval/runs/gpt-5_l3_20260101_1200 --acceleval ~/AccelEval \
          --sizes small,medium --store runs/gpt5   # an AccelEval run folder

    A run folder's samples (runs/<model>_l<L>[s2|s2c]_<stamp>/<task>/sample_<k>.cu) keep their
    model (the author), level, stage and sample number on every row.
    A (solution, size) already in the store is skipped, so an interrupted run resumes.
    Exit code 1 when a solution fails, is incorrect or raises an audit flag (with --build-only:
    when one does not compile).
    """
    from strategylens.harness import NoDevice, RunConfig, benchmark, build_only as compile_all
    from strategylens.tasks import TaskError, load_task

    size_list = [s.strip() for s in sizes.split(",") if s.strip()]
    sols = _solutions(paths)
    if not sols:
        raise fail("no solutions to run")
    groups = _by_task(sols, task, acceleval)
    if not groups:
        raise fail("no solution could be matched to a task; give --task")
    loaded = []
    for tid, files in groups.items():
        try:
            t = load_task(tid, acceleval=acceleval)
        except TaskError as exc:
            raise fail(str(exc)) from None
        bad = [s for s in size_list if s not in t.sizes]
        if bad:
            raise fail(f"{t.path / t.format.marker}: no size {', '.join(bad)} "
                       f"(have {', '.join(t.sizes)})")
        loaded.append((t, files))
    if build_only:
        _build_only(loaded, arch, fmt, compile_all)
    make = RunConfig.legacy if legacy else RunConfig
    try:
        cfg = make(warmup_s=warmup_s, measure_s=measure_s, noise_target=noise,
                   min_trials=min_trials, call_timeout_s=call_timeout_s,
                   solution_timeout_s=solution_timeout_s,
                   mem_limit_bytes=int(mem_limit_gib * (1 << 30)), landlock=landlock, cupti=cupti,
                   child_cpus=child_cpus)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if cluster:
        _on_cluster(cluster, cluster_config, loaded, size_list, store, cfg, arch, remeasure_cpu)
    from strategylens.cli.common import Steps
    from strategylens.runfolders import samples_by_path

    meta = {p: s.as_row() for p, s in samples_by_path(sols).items()}
    rows = []
    with Steps("run", len(loaded)) as step:
        for t, files in loaded:
            step(f"{t.id} ({len(files)} solution(s))")
            try:
                rows += benchmark(t, files, size_list, store, cfg, remeasure_cpu=remeasure_cpu,
                                  arch=arch, solution_meta=meta)
            except NoDevice as exc:
                if rows:
                    emit(rows, fmt, COLUMNS)
                raise fail(f"{exc}; stopped after building {t.id}'s solutions, before any "
                           "reference or timed call (`strategylens run --build-only` compiles "
                           "and reports kernels without a GPU)") from None
            except RuntimeError as exc:
                raise fail(str(exc)) from None
    emit(rows, fmt, COLUMNS)
    bad_rows = [r for r in rows if not r["correct"] or r["audit_flags"]]
    raise typer.Exit(EXIT_FINDINGS if bad_rows else EXIT_OK)


def _on_cluster(spec, config_file, loaded, sizes, store, cfg, arch, remeasure_cpu) -> None:
    """`run --cluster`: cells on Dask workers, this process the one store writer."""
    from strategylens.cli.common import err
    from strategylens.harness.cluster import ClusterError, read_config, run_on_cluster

    try:
        config = read_config(config_file)
        progress = run_on_cluster(spec, loaded, sizes, store, cfg, config, arch, remeasure_cpu,
                                  log=lambda m: err.print(m, highlight=False))
    except ClusterError as exc:
        raise fail(str(exc)) from None
    from strategylens.store import read_results

    df = read_results(store)
    bad = 0 if df.empty else int((~df["correct"].fillna(False).astype(bool)).sum())
    err.print(f"{progress.done} cell(s) done, {progress.failed} failed; {len(df)} row(s) in "
              f"{store} ({bad} not correct); `strategylens results export {store}` lists them")
    raise typer.Exit(EXIT_FINDINGS if progress.failed or bad else EXIT_OK)


def _build_only(loaded, arch: str | None, fmt: Format, compile_all) -> None:
    """Compile every solution of every task; rows per kernel; exit 1 on a compile error."""
    from strategylens.harness import detect_arch

    from strategylens.cli.common import Steps

    arch = arch or detect_arch()
    rows = []
    with Steps("building", len(loaded)) as step:
        got_all = []
        for t, files in loaded:
            step(f"{t.id} ({len(files)} solution(s))")
            got_all.append(compile_all(t, files, arch))
    for got in got_all:
        for r in got:
            if not r["compiled"]:
                tail = "\n".join(r.pop("error_full").strip().splitlines()[-20:])
                warn(f"{r['solution']}: does not compile for {arch}:\n{tail}")
        rows += got
    emit(rows, fmt, BUILD_COLUMNS)
    raise typer.Exit(EXIT_FINDINGS if any(not r["compiled"] for r in rows) else EXIT_OK)
