"""`strategylens tasks`: list, show, generate inputs for and run the references of the task suite."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import typer

from strategylens import tasks as T
from strategylens.resources import cache_root
from strategylens.cli.common import EXIT_FINDINGS, Format, FormatOption, emit, err, fail, warn

app = typer.Typer(help="The task suite: list tasks, show one, generate inputs, run references.",
                  no_args_is_help=True)

SizeOption = typer.Option(..., "--size", "-s", help="small, medium or large")
AccelEvalOption = typer.Option(None, "--acceleval", envvar=T.ACCELEVAL_ENV,
                               help="An AccelEval checkout (or its tasks/ folder): task ids name "
                                    "its tasks instead of the bundled ones "
                                    "($STRATEGYLENS_ACCELEVAL).")


def _load(task_id: str, acceleval: Path | None = None) -> T.Task:
    try:
        return T.load_task(task_id, acceleval=acceleval)
    except T.TaskError as exc:
        raise fail(str(exc)) from exc


def _check_size(task: T.Task, size: str) -> None:
    if size not in task.sizes:
        raise fail(f"task {task.id}: unknown size {size!r} (have {', '.join(task.sizes)})")


@app.command("list")
def list_cmd(
    fmt: Format = FormatOption,
    root: Path = typer.Option(None, "--root", help="Task folder to scan (default: the bundled tasks)."),
    acceleval: Path = AccelEvalOption,
) -> None:
    """List the tasks (id, domain, signature, sizes, correctness mode).

    Examples: `strategylens tasks list`, `strategylens tasks list --format json`,
    `strategylens tasks list --acceleval ~/AccelEval` (its 42 tasks).
    """
    try:
        found, errors = T.scan_tasks(root, acceleval=acceleval)
    except T.TaskError as exc:
        raise fail(str(exc)) from exc
    for message in errors:
        warn(message)
    emit([t.summary_row() for t in found], fmt,
         columns=["id", "domain", "correctness", "summary"], title="tasks")
    if errors:
        raise typer.Exit(EXIT_FINDINGS)


@app.command("show")
def show_cmd(
    task_id: str = typer.Argument(..., help="Task id or folder."),
    fmt: Format = FormatOption,
    no_bytes: bool = typer.Option(False, "--no-bytes",
                                  help="Skip bytes in/out (they generate each size's inputs once, "
                                       "then come from the cache)."),
    acceleval: Path = AccelEvalOption,
) -> None:
    """Show one task: semantics, parameters, sizes with state bytes in and out.

    Examples: `strategylens tasks show heat2d`,
    `strategylens tasks show dbscan --acceleval ~/AccelEval`.
    """
    task = _load(task_id, acceleval)
    row = task.summary_row()
    row["description"] = task.description
    row["params"] = [vars(p) for p in task.params]
    row["correctness"] = vars(task.correctness)
    row["seed"] = task.seed
    if not no_bytes and task.format.lengths_known:
        row["bytes"] = {}
        for size in task.sizes:
            try:
                b_in, b_out = task.bytes_in_out(size)
            except (T.TaskError, MemoryError) as exc:
                warn(f"{task.id} {size}: bytes not computed: {exc}")
                continue
            row["bytes"][size] = {"in": b_in, "out": b_out}
    if task.unknown:
        row["unknown"] = task.unknown
    if task.extra:
        row["acceleval"] = task.extra
    if fmt != Format.human:
        emit([row], fmt)
        return
    lines = [f"{task.id} ({task.domain}): {task.name}", task.summary, "",
             "signature", f"  {task.signature}", "", "params"]
    for p in task.params:
        extra = f" {p.direction} length={p.length}" if p.kind == "array" else ""
        lines.append(f"  {p.name}: {p.kind} {p.dtype}{extra}")
    lines += ["", "sizes"]
    for size, params in task.sizes.items():
        b = row.get("bytes", {}).get(size)
        moved = f"  in {_mib(b['in'])}, out {_mib(b['out'])}" if b else ""
        lines.append(f"  {size}: {json.dumps(params)}{moved}")
    c = task.correctness
    tol = f" atol={c.atol:g} rtol={c.rtol:g} tight={c.tight}" if c.mode in ("numeric", "set") \
        else ""
    lines += ["", f"correctness: {c.mode}{tol}", "", "description", task.description.rstrip()]
    if task.unknown:
        lines.append(f"not given by the task folder: {', '.join(task.unknown)}")
    if task.extra:
        x = task.extra
        lines += ["", f"AccelEval task {x.get('task_json_id')} (category {x.get('category')}), "
                      f"timing {json.dumps(x.get('timing'))}, files {', '.join(x['files'])}"]
        lines += [f"note: {n}" for n in x.get("notes", [])]
    typer.echo("\n".join(lines))


def _mib(n: int) -> str:
    return f"{n} B ({n / 2**20:.1f} MiB)"


@app.command("gen")
def gen_cmd(
    task_id: str = typer.Argument(..., help="Task id or folder."),
    size: str = SizeOption,
    seed_offset: int = typer.Option(0, "--seed-offset", help="Input set k uses seed + k."),
    out: Path = typer.Option(None, "--out", help="Folder to write (default: the cache, "
                                                  "$STRATEGYLENS_CACHE/inputs/<id>/<size>-s<k>)."),
    acceleval: Path = AccelEvalOption,
    fmt: Format = FormatOption,
) -> None:
    """Generate inputs: arrays into inputs.npz, scalars and provenance into meta.json.

    An AccelEval task's own gen_data.py runs in the cache (never in the checkout), with every
    seed shifted by the seed offset; its input.bin stays there (the row's `input_bin`).

    Examples: `strategylens tasks gen bfs --size medium --seed-offset 1`,
    `strategylens tasks gen dbscan --size small --acceleval ~/AccelEval`.
    """
    from strategylens.cli.common import check_output, writing

    task = _load(task_id, acceleval)
    _check_size(task, size)
    if out is not None:
        check_output(out, "folder")
    try:
        inputs = task.generate(size, seed_offset)
    except T.TaskError as exc:
        raise fail(str(exc)) from exc
    folder = out or cache_root() / "inputs" / task.id / f"{size}-s{seed_offset}"
    arrays = {k: v for k, v in inputs.items() if isinstance(v, np.ndarray)}
    scalars = {k: v for k, v in inputs.items() if not isinstance(v, np.ndarray)}
    with writing(folder):
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(folder / "inputs.npz", **arrays)
    meta = {"task": task.id, "size": size, "seed_offset": seed_offset,
            "seed": task.seed + seed_offset, "scalars": scalars,
            "arrays": {k: {"dtype": str(v.dtype), "length": int(v.size)} for k, v in
                       arrays.items()},
            "task_sha256": task.content_hash()}
    with writing(folder):
        (folder / "meta.json").write_text(json.dumps(meta, indent=2, default=str))
    row = {"task": task.id, "size": size, "seed_offset": seed_offset, "path": str(folder),
           "bytes": int(sum(v.nbytes for v in arrays.values()))}
    if task.format.adapter and (task.path / "gen_data.py").exists():
        from strategylens.tasks.acceleval_gen import gen_record, input_folder

        made = input_folder(task, size, seed_offset)
        rec = gen_record(made)
        row.update(input_bin=str(made / "input.bin"), magic=rec["magic"],
                   gen_s=round(rec["gen_s"], 3))
    emit([row], fmt)


@app.command("reference")
def reference_cmd(
    task_id: str = typer.Argument(..., help="Task id or folder."),
    size: str = SizeOption,
    trials: int = typer.Option(3, "--trials", "-n", min=1, help="Timed calls."),
    seed_offset: int = typer.Option(0, "--seed-offset"),
    remeasure: bool = typer.Option(False, "--remeasure", help="Ignore cached results."),
    cpu: int = typer.Option(None, "--cpu", help="Core to pin to (default: the last allowed)."),
    acceleval: Path = AccelEvalOption,
    fmt: Format = FormatOption,
) -> None:
    """Compile the C reference (gcc -O2), run it pinned to one core, store expected outputs.

    Every trial's time is kept; the median is reported with CPU model, gcc, host and commit.
    An AccelEval task's reference runs through its task_io_cpu.c adapter, built with
    strategylens's reader of input.bin (both magics) into the cache.
    Examples: `strategylens tasks reference heat2d --size medium --trials 5`,
    `strategylens tasks reference dbscan --size small --acceleval ~/AccelEval`.
    """
    task = _load(task_id, acceleval)
    _check_size(task, size)
    err.print(f"{task.id} {size}: running the reference ({trials} trials)...", highlight=False)
    try:
        run = T.run_reference(task, size, trials=trials, seed_offset=seed_offset,
                              remeasure=remeasure, cpu=cpu)
    except T.TaskError as exc:
        raise fail(str(exc), EXIT_FINDINGS) from exc
    row = dict(run.record)
    row["cached"] = run.cached
    if task.format.adapter:
        from strategylens.tasks.acceleval_ref import expected_key

        row["expected"] = str(expected_key(task, size, seed_offset).with_suffix(".npz"))
    else:
        row["expected"] = str(T.expected_key(task, size, seed_offset).with_suffix(".npz"))
    if fmt == Format.human:
        trials_ms = ", ".join(f"{t * 1e3:.3f}" for t in row["trials_s"])
        typer.echo(f"{task.id} {size}: median {row['median_s'] * 1e3:.3f} ms over "
                   f"{len(row['trials_s'])} trials [{trials_ms}] ms on cpu {row['cpu']} "
                   f"({row['cpu_model']}), {row['gcc']}{' (cached)' if run.cached else ''}\n"
                   f"expected outputs: {row['expected']}")
    else:
        emit([row], fmt)


@app.command("checksum")
def checksum_cmd(
    task_ids: list[str] = typer.Argument(None, help="Task ids (default: all)."),
    write: bool = typer.Option(False, "--write", help="Write tasks/<id>/small.sha256."),
    fmt: Format = FormatOption,
) -> None:
    """Checksum of each reference's small-size outputs (what CI compares with small.sha256).

    Example: `strategylens tasks checksum --write` after changing a task on purpose.
    """
    chosen = [_load(t) for t in task_ids] if task_ids else T.list_tasks()
    rows, bad = [], 0
    for task in chosen:
        try:
            run = T.run_reference(task, "small", trials=1)
        except T.TaskError as exc:
            warn(str(exc))
            bad += 1
            continue
        digest = T.output_checksum(task, run.outputs)
        committed = T.committed_checksum(task)
        if write:
            (task.path / "small.sha256").write_text(
                f"{digest}  small seed_offset=0 float_digits={T.CHECKSUM_DIGITS}\n")
            committed = digest
        rows.append({"task": task.id, "sha256": digest, "committed": committed,
                     "matches": committed == digest})
        bad += (committed != digest) and not write
    emit(rows, fmt, columns=["task", "sha256", "matches"])
    if bad:
        raise typer.Exit(EXIT_FINDINGS)
