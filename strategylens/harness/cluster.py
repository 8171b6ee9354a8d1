"""Scale-out on Dask: benchmark cells on many GPUs of one host (dask-cuda) or on a cluster
(dask-jobqueue), one store written by one process, resumable.

A *cell* is one solution of one task at the requested sizes, run in one child exactly as a plain
`strategylens run` runs it, so a cell's figures do not depend on where it ran. Workers run cells
and return their rows, raw trials and traces; only the client writes the store, appending each
cell as it arrives. Every cell still runs its solution in an isolated child process (that is the
harness's job); a worker runs one cell at a time on its GPU (each GPU worker holds one ``GPU``
resource and every cell asks for it), and the client hands a worker its next cell only when the
last one is back, so a worker that dies loses that cell alone: the cell goes to another worker
once, and a second loss records it as failed with the reason. A free worker takes the next cell
of the task it ran last and keeps that task's input sets, so large inputs are generated once per
worker and reused. Builds and the untimed reference answers run first, spread over the workers'
threads with no GPU resource.

Cluster specs (``--cluster``):

* ``local``: a LocalCluster of CPU worker processes for the builds and references; the cells
  then run one after another in this process on its GPU;
* ``local-cuda``: dask-cuda's LocalCUDACluster, one worker per visible GPU, pinned to it;
* ``slurm``, ``pbs``, ``lsf``: dask-jobqueue, options from the config file's ``[cluster]``
  table (queue, account, walltime, cores, memory, gpus per job, job_extra_directives,
  job_script_prologue to activate the environment, jobs to start);
* ``tcp://host:port`` (or any address): a running scheduler.
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

SPECS = ("local", "local-cuda", "slurm", "pbs", "lsf")
JOBQUEUE = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "lsf": "LSFCluster"}
GPU = "GPU"


class ClusterError(Exception):
    """A cluster that cannot be made: names the spec or config file and the problem."""


@dataclass(frozen=True)
class Cell:
    task: str                  # a task id or task folder
    solution: str              # the solution file
    sizes: tuple[str, ...]

    @property
    def keys(self) -> list[tuple[str, str, str]]:
        return [(self.task, self.solution, z) for z in self.sizes]

    @property
    def group(self) -> str:
        return self.task


@dataclass
class CellResult:
    """What a worker sends back for one cell: ``rows`` of (summary row, raw trials, trace)."""

    cell: Cell
    rows: list[tuple[dict, list[dict], dict | None]] = field(default_factory=list)
    error: str | None = None
    host: str = ""
    gpu: str | None = None
    worker: str = ""
    seconds: float = 0.0


def where_am_i() -> dict:
    """Host and GPU of the calling worker (dask-cuda pins each worker with
    CUDA_VISIBLE_DEVICES, whose first entry is the worker's device)."""
    vis = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    try:
        from distributed import get_worker  # noqa: PLC0415

        worker = get_worker().address
    except (ImportError, ValueError):
        worker = ""
    return {"host": socket.gethostname(), "gpu": vis.split(",")[0] if vis else None,
            "worker": worker}


def run_cell(runner: Callable[[Cell], list], cell: Cell) -> CellResult:
    """The task a worker runs: ``runner(cell)`` returns the cell's (row, trials, trace) tuples.
    An exception becomes the result's ``error``; rows are stamped with host, GPU and worker."""
    here = where_am_i()
    t0 = time.monotonic()
    try:
        rows = list(runner(cell))
        error = None
    except Exception as exc:  # noqa: BLE001 - a failing cell must not fail the run
        rows, error = [], f"{type(exc).__name__}: {exc}"
    for row, _, _ in rows:
        row.update(host=here["host"], gpu_index=here["gpu"], worker=here["worker"])
    return CellResult(cell, rows, error, here["host"], here["gpu"], here["worker"],
                      time.monotonic() - t0)


# ----------------------------------------------------------------------------- clusters

def read_config(path: Path | str | None) -> dict:
    """The ``[cluster]`` table of a TOML config (``strategylens.toml``, or ``[tool.strategylens.
    cluster]`` in ``pyproject.toml``)."""
    from strategylens.config import ConfigError, read_section

    try:
        return read_section("cluster", path)[0]
    except ConfigError as exc:
        raise ClusterError(str(exc)) from None


def jobqueue_cluster(spec: str, options: dict):
    """A dask-jobqueue cluster for ``slurm``/``pbs``/``lsf`` from config options. ``gpus`` adds
    the scheduler's GPU request and the workers' GPU resource; ``jobs`` is how many to start."""
    import dask_jobqueue  # noqa: PLC0415

    opts = dict(options)
    jobs = int(opts.pop("jobs", 1))
    gpus = int(opts.pop("gpus", 0))
    extra = list(opts.pop("job_extra_directives", []))
    if gpus:
        extra.append({"slurm": f"--gres=gpu:{gpus}", "pbs": f"-l ngpus={gpus}",
                      "lsf": f'-gpu "num={gpus}"'}[spec])
        opts.setdefault("processes", gpus)
        opts["worker_extra_args"] = [*opts.get("worker_extra_args", []),
                                     "--resources", f"{GPU}=1"]
    if spec == "lsf" and "account" in opts:  # LSF calls it a project
        opts["project"] = opts.pop("account")
    opts.setdefault("cores", max(1, gpus))
    opts.setdefault("memory", "16GB")
    cls = getattr(dask_jobqueue, JOBQUEUE[spec])
    try:
        cluster = cls(job_extra_directives=extra, **opts)
    except (TypeError, ValueError) as exc:
        raise ClusterError(f"[cluster] options for {spec}: {str(exc).splitlines()[0]}") from exc
    return cluster, jobs


@contextlib.contextmanager
def connect(spec: str, config: dict | None = None, start_jobs: bool = True):
    """A dask Client for ``spec`` (module docstring), closed (with its cluster) on exit."""
    import dask  # noqa: PLC0415
    from distributed import Client, LocalCluster  # noqa: PLC0415

    config = dict(config or {})
    # workers start harness children (not daemons); a dead worker's cell fails at once and
    # run_cells decides about the retry (a scheduler started elsewhere keeps its own setting)
    dask.config.set({"distributed.worker.daemon": False,
                     "distributed.scheduler.allowed-failures": 0})
    cluster = None
    if spec == "local":
        n = int(config.pop("workers", max(1, (os.cpu_count() or 2) // 2)))
        gpus = int(config.pop("gpus", 0))
        cluster = LocalCluster(n_workers=n, threads_per_worker=int(config.pop("threads", 1)),
                               processes=True, resources={GPU: 1} if gpus else None,
                               dashboard_address=config.pop("dashboard", ":0"), **config)
    elif spec == "local-cuda":
        try:
            from dask_cuda import LocalCUDACluster  # noqa: PLC0415
        except ImportError as exc:
            raise ClusterError("--cluster local-cuda needs dask-cuda (pip install "
                               "'strategylens[gpu]')") from exc
        gpus = len([v for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v]) \
            or _count_gpus()
        threads = int(config.pop("threads", max(1, (os.cpu_count() or 1) // max(1, gpus))))
        cluster = LocalCUDACluster(threads_per_worker=threads,
                                   resources={GPU: 1},
                                   dashboard_address=config.pop("dashboard", ":0"), **config)
    elif spec in JOBQUEUE:
        cluster, jobs = jobqueue_cluster(spec, config)
        if start_jobs:
            cluster.scale(jobs=jobs)
    elif "://" in spec or ":" in spec:
        pass
    else:
        raise ClusterError(f"--cluster {spec!r}: not one of {', '.join(SPECS)} or a scheduler "
                           "address (tcp://host:port)")
    client = Client(cluster if cluster is not None else spec)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _count_gpus() -> int:
    try:
        import pynvml  # noqa: PLC0415 - nvidia-ml-py, a dask-cuda dependency

        pynvml.nvmlInit()
        return pynvml.nvmlDeviceGetCount()
    except Exception:  # noqa: BLE001 - dask-cuda will say what is wrong
        return 1


# ----------------------------------------------------------------------------- scheduling

@dataclass
class Progress:
    total: int
    done: int = 0
    failed: int = 0
    running: int = 0
    started: float = field(default_factory=time.monotonic)

    def eta_s(self) -> float | None:
        finished = self.done + self.failed
        if not finished:
            return None
        return (time.monotonic() - self.started) / finished * (self.total - finished)

    def line(self) -> str:
        eta = self.eta_s()
        left = "?" if eta is None else f"{math.ceil(eta)} s"
        waiting = self.total - self.done - self.failed - self.running
        return (f"cells: {self.done} done, {self.failed} failed, {self.running} running, "
                f"{waiting} waiting; about {left} to go")


def _gpu_workers(client, gpu: bool) -> list[str]:
    info = client.scheduler_info(n_workers=-1)["workers"]
    return sorted(w for w, i in info.items() if not gpu or i.get("resources", {}).get(GPU))


def run_cells(client, cells: list[Cell], runner: Callable[[Cell], list],
              write: Callable[[CellResult], None], gpu: bool = True, retries: int = 1,
              on_progress: Callable[[Progress, CellResult | None], None] | None = None,
              wait_s: float = 120.0) -> Progress:
    """Run every cell, at most one at a time on each GPU worker, and write each result as it
    arrives (the one writer).

    Each free worker takes the next cell of the (task, size) group it ran last, else the next
    cell in ``cells`` (give them in :func:`order`), so a worker generates a group's inputs once.
    Only the running cell sits on a worker, so a worker that dies loses that cell alone: it is
    given to another worker ``retries`` times, then recorded as failed with the reason.
    """
    from distributed import wait  # noqa: PLC0415

    todo = list(cells)
    progress = Progress(len(todo))
    last_group: dict[str, tuple[str, str]] = {}
    tries: dict[Cell, list[str]] = {}
    running: dict = {}  # future -> (cell, worker)
    no_worker_since = None
    while todo or running:
        workers = _gpu_workers(client, gpu)
        if not workers and not running:
            if time.monotonic() > (no_worker_since := no_worker_since or time.monotonic()) + wait_s:
                raise ClusterError(f"no worker with a GPU resource for {wait_s:.0f} s: use "
                                   "--cluster local-cuda, or give 'gpus' in the [cluster] "
                                   "config of a jobqueue cluster")
            time.sleep(0.5)
            continue
        no_worker_since = None
        busy = {w for _, w in running.values()}
        for w in [w for w in workers if w not in busy]:
            pick = _next_for(todo, last_group.get(w), tries, w)
            if pick is None:
                continue
            todo.remove(pick)
            tries.setdefault(pick, []).append(w)
            last_group[w] = pick.group
            fut = client.submit(run_cell, runner, pick, pure=False, workers=[w],
                                allow_other_workers=False,
                                resources={GPU: 1} if gpu else None)
            running[fut] = (pick, w)
        progress.running = len(running)
        if not running:
            time.sleep(0.2)  # every waiting cell already failed on every live worker
            continue
        done, _ = wait(list(running), return_when="FIRST_COMPLETED")
        for fut in done:
            cell, w = running.pop(fut)
            try:
                res = fut.result()
            except Exception as exc:  # noqa: BLE001 - the worker died (KilledWorker) or worse
                reason = f"{type(exc).__name__}: {exc}"
                if len(tries[cell]) <= retries:
                    todo.insert(0, cell)  # to another worker, next
                    continue
                res = CellResult(cell, [], f"{reason} (tried on {len(tries[cell])} workers)",
                                 worker=w)
            fut.release()
            write(res)
            if res.error is None:
                progress.done += 1
            else:
                progress.failed += 1
            progress.running = len(running)
            if on_progress:
                on_progress(progress, res)
    return progress


def _next_for(todo: list[Cell], group, tries: dict, worker: str) -> Cell | None:
    """The next cell for ``worker``: one of its last group, else the first it has not failed."""
    fresh = [c for c in todo if worker not in tries.get(c, [])]
    if not fresh:
        return None
    return next((c for c in fresh if c.group == group), fresh[0])


def pending(cells: Iterable[Cell], done: set[tuple[str, str, str]]) -> list[Cell]:
    """Each cell cut to its sizes not in the store yet; cells with none left dropped (resume).
    ``done`` holds (task id, solution id, size) as the store names them; cells are matched by
    their task's folder name and their solution's path relative to the store's naming (the
    caller maps them with ``name``)."""
    out = []
    for c in cells:
        left = tuple(z for z, k in zip(c.sizes, c.keys, strict=True) if k not in done)
        if left:
            out.append(Cell(c.task, c.solution, left))
    return out


def order(cells: Iterable[Cell]) -> Iterator[Cell]:
    """Cells grouped by task (so a worker makes a task's inputs once), solutions in order."""
    yield from sorted(cells, key=lambda c: (c.task, c.solution))


# ----------------------------------------------------------------------------- the harness

_WORKER_INPUTS: dict = {"task": None, "prepared": {}}


def _worker_inputs(task_id: str) -> dict:
    """This worker process's prepared input sets, kept for one task at a time (large inputs
    take gigabytes): switching task closes the previous task's."""
    if _WORKER_INPUTS["task"] != task_id:
        for z in _WORKER_INPUTS["prepared"].values():
            z.close()
        _WORKER_INPUTS.update(task=task_id, prepared={})
    return _WORKER_INPUTS["prepared"]


@dataclass
class HarnessRunner:
    """Runs one cell on the worker's GPU through :func:`strategylens.harness.benchmark`,
    returning its rows instead of storing them."""

    cfg: object
    arch: str | None = None
    remeasure_cpu: bool = False

    def __call__(self, cell: Cell) -> list:
        from strategylens.harness.runner import benchmark  # noqa: PLC0415
        from strategylens.tasks import load_task  # noqa: PLC0415

        task = load_task(cell.task)
        out: list = []
        benchmark(task, [Path(cell.solution)], list(cell.sizes), None, self.cfg,
                  remeasure_cpu=self.remeasure_cpu, arch=self.arch, log=lambda m: None,
                  sink=lambda row, trials, trace: out.append((row, trials, trace)),
                  prepared=_worker_inputs(task.id))
        return out


def _build(source: str, task: str, arch: str) -> tuple[str, bool, str]:
    from strategylens.harness.build import build_solution  # noqa: PLC0415
    from strategylens.tasks import load_task  # noqa: PLC0415

    b = build_solution(Path(source), load_task(task).params, arch)
    return source, b.compiled, b.error[-400:]


def _reference(task: str, size: str, seed_offset: int) -> str:
    from strategylens.tasks import load_task, run_reference  # noqa: PLC0415

    run_reference(load_task(task), size, trials=1, seed_offset=seed_offset)
    return f"{task}/{size}/s{seed_offset}"


def prepare(client, cells: list[Cell], arch: str, log: Callable[[str], None]) -> None:
    """Builds (nvcc) and the untimed reference answers of every cell, on all workers' threads,
    into the shared caches. The timed reference (input set 0) is left to the cell, which times
    it alone, as a plain run does."""
    from distributed import as_completed  # noqa: PLC0415

    from strategylens.harness.runner import n_sets  # noqa: PLC0415

    t0 = time.monotonic()
    builds = [client.submit(_build, c.solution, c.task, arch, pure=False) for c in cells]
    refs = [client.submit(_reference, t, z, k, pure=False)
            for t, z in sorted({(c.task, z) for c in cells for z in c.sizes})
            for k in range(1, n_sets(z))]
    failed = 0
    for fut in as_completed(builds + refs):
        try:
            res = fut.result()
        except Exception as exc:  # noqa: BLE001 - the cell will meet and record it
            log(f"preparation failed: {type(exc).__name__}: {exc}")
            continue
        if isinstance(res, tuple) and not res[1]:
            failed += 1
    log(f"prepared {len(builds)} build(s) ({failed} failed to compile) and {len(refs)} "
        f"reference answer(s) in {time.monotonic() - t0:.1f} s")


def detect_arch_on_gpu(client) -> str:
    """nvcc's -arch of the GPU a GPU worker sees."""
    from strategylens.harness.build import detect_arch  # noqa: PLC0415

    return client.submit(detect_arch, resources={GPU: 1}, pure=False).result()


def run_on_cluster(spec: str, loaded: list, sizes: list[str], store_dir: Path, cfg,
                   config: dict | None = None, arch: str | None = None,
                   remeasure_cpu: bool = False, log: Callable[[str], None] = print) -> Progress:
    """`strategylens run --cluster SPEC`: every (task, solutions) of ``loaded`` at ``sizes``,
    resuming from ``store_dir``, each finished cell appended to it by this process."""
    from strategylens import store  # noqa: PLC0415
    from strategylens.harness.rows import solution_id  # noqa: PLC0415

    done = store.done_keys(store_dir)
    names: dict[tuple[str, str], tuple[str, str]] = {}
    cells = []
    for task, files in loaded:
        for f in files:
            c = Cell(str(task.path), str(Path(f).resolve()), tuple(sizes))
            names[(c.task, c.solution)] = (task.id, solution_id(Path(f)))
            cells.append(c)
    todo = [c for c in cells
            if any((*names[(c.task, c.solution)], z) not in done for z in c.sizes)]
    todo = [Cell(c.task, c.solution, tuple(z for z in c.sizes
                                           if (*names[(c.task, c.solution)], z) not in done))
            for c in todo]
    if not todo:
        log(f"every requested cell is already in {store_dir}")
        return Progress(0)

    def write(res: CellResult) -> None:
        for row, trials, trace in res.rows:
            store.append(store_dir, row, trials, trace)
        if res.error and not res.rows:
            tid, sid = names[(res.cell.task, res.cell.solution)]
            for z in res.cell.sizes:
                store.append(store_dir, {"task": tid, "solution": sid, "size": z,
                                         "compiled": None, "correct": False, "status": "failed",
                                         "status_detail": res.error[:2000], "audit_flags": [],
                                         "host": res.host, "worker": res.worker})

    def show(p: Progress, res: CellResult | None) -> None:
        if res is not None:
            tid, sid = names[(res.cell.task, res.cell.solution)]
            what = "failed: " + res.error[:200] if res.error else \
                ", ".join(f"{r['size']} {r['status']}" for r, _, _ in res.rows)
            log(f"{tid} {sid} on {res.worker or '?'} (gpu {res.gpu}): {what}")
        log(p.line())

    with connect(spec, config) as client:
        if client.dashboard_link:
            log(f"dask dashboard: {client.dashboard_link}")
        if spec == "local":  # CPU workers: builds and references there, cells here on our GPU
            from strategylens.harness.build import detect_arch  # noqa: PLC0415

            arch = arch or detect_arch()
            prepare(client, todo, arch, log)
        else:
            arch = arch or detect_arch_on_gpu(client)
            prepare(client, todo, arch, log)
            return run_cells(client, list(order(todo)), HarnessRunner(cfg, arch, remeasure_cpu),
                             write, on_progress=show)
    progress = Progress(len(todo))
    runner = HarnessRunner(cfg, arch, remeasure_cpu)
    for cell in order(todo):
        res = run_cell(runner, cell)
        write(res)
        progress.done += res.error is None
        progress.failed += res.error is not None
        show(progress, res)
    return progress
