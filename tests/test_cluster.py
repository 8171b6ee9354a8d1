"""Scale-out on Dask, CPU path: a LocalCluster of 2 worker processes with a fake GPU runner
(cells, the one store writer, resume, a killed worker's cell retried once then failed), and
dask-jobqueue configurations rendered to job scripts."""

from __future__ import annotations

from functools import partial

import pytest

from strategylens import store
from strategylens.harness.cluster import (Cell, CellResult, ClusterError, connect, jobqueue_cluster,
                                  order, pending, run_cells)
from tests.cluster_fakes import fake_runner


def writer(store_dir, seen):
    def write(res: CellResult) -> None:
        seen.append(res)
        for row, trials, trace in res.rows:
            store.append(store_dir, row, trials, trace)
        if res.error and not res.rows:
            c = res.cell
            for z in c.sizes:
                store.append(store_dir, {"task": c.task, "solution": c.solution, "size": z,
                                         "correct": False, "status": "failed",
                                         "status_detail": res.error})
    return write


@pytest.fixture(scope="module")
def client():
    with connect("local", {"workers": 2, "gpus": 1, "dashboard": None}) as c:
        c.wait_for_workers(2, timeout=60)
        yield c


def test_cells_run_on_workers_and_one_writer_stores_them(client, tmp_path):
    cells = [Cell(t, s, ("small", "medium")) for t in ("bfs", "heat2d") for s in ("a.cu", "b.cu")]
    seen = []
    prog = run_cells(client, list(order(cells)), partial(fake_runner, tmp_path), writer(tmp_path / "st", seen))
    assert (prog.done, prog.failed, prog.running) == (4, 0, 0)
    df = store.read_results(tmp_path / "st")
    assert sorted(zip(df["task"], df["solution"], df["size"], strict=True)) == \
        sorted(k for c in cells for k in c.keys)
    assert set(df["host"]) and df["worker"].str.startswith("tcp://").all()
    assert len(store.read_trials(tmp_path / "st")) == 8
    # resume: nothing left to run
    assert pending(cells, store.done_keys(tmp_path / "st")) == []
    more = cells + [Cell("bfs", "c.cu", ("small",)), Cell("bfs", "a.cu", ("small", "large"))]
    assert pending(more, store.done_keys(tmp_path / "st")) == [Cell("bfs", "c.cu", ("small",)),
                                                                Cell("bfs", "a.cu", ("large",))]


def test_a_killed_worker_loses_only_its_cell(client, tmp_path):
    cells = [Cell("bfs", s, ("small",)) for s in ("ok1.cu", "dies-once.cu", "dies-always.cu",
                                                  "raises.cu", "ok2.cu")]
    seen = []
    prog = run_cells(client, cells, partial(fake_runner, tmp_path), writer(tmp_path / "st", seen))
    client.wait_for_workers(2, timeout=60)  # the nannies restarted the killed workers
    by = {r.cell.solution: r for r in seen}
    assert (prog.done, prog.failed) == (3, 2)
    assert by["dies-once.cu"].error is None and by["dies-once.cu"].rows  # retried elsewhere
    assert by["dies-always.cu"].error.startswith("KilledWorker")
    assert by["raises.cu"].error == "RuntimeError: the harness broke"
    df = store.read_results(tmp_path / "st").set_index("solution")
    assert df.loc["dies-always.cu", "status"] == "failed" and \
        "KilledWorker" in df.loc["dies-always.cu", "status_detail"]
    assert bool(df.loc["ok1.cu", "correct"]) and bool(df.loc["ok2.cu", "correct"])


def test_cells_need_a_gpu_worker(tmp_path):
    with connect("local", {"workers": 1, "dashboard": None}) as c, \
            pytest.raises(ClusterError, match="no worker with a GPU resource"):
        run_cells(c, [Cell("bfs", "a.cu", ("small",))], partial(fake_runner, "."), lambda r: None,
                  wait_s=1)


def test_order_groups_cells_by_task():
    cells = [Cell(t, f"s{i}.cu", ("small", "large")) for t in ("b", "a") for i in (1, 0)]
    assert [(c.task, c.solution) for c in order(cells)] == [
        ("a", "s0.cu"), ("a", "s1.cu"), ("b", "s0.cu"), ("b", "s1.cu")]


@pytest.mark.parametrize("spec,expect", [
    ("slurm", ["#SBATCH -p gpu", "#SBATCH -A proj42", "#SBATCH -t 02:00:00",
               "#SBATCH --gres=gpu:4"]),
    ("pbs", ["#PBS -q gpu", "#PBS -A proj42", "#PBS -l walltime=02:00:00", "#PBS -l ngpus=4"]),
    ("lsf", ["#BSUB -q gpu", '#BSUB -P "proj42"', "#BSUB -W 02:00", '#BSUB -gpu "num=4"']),
])
def test_jobqueue_configs_render_to_job_scripts(spec, expect):
    opts = {"queue": "gpu", "account": "proj42", "walltime": "02:00:00" if spec != "lsf" else "02:00",
            "cores": 16, "memory": "128GB", "gpus": 4, "jobs": 3,
            "job_script_prologue": ["source /opt/envs/sl/bin/activate"]}
    cluster, jobs = jobqueue_cluster(spec, opts)
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    assert jobs == 3
    for line in expect:
        assert line in script, script
    assert "source /opt/envs/sl/bin/activate" in script
    assert "--resources GPU=1" in script and "--nworkers 4" in script


def test_bad_specs_and_options_are_clear():
    with pytest.raises(ClusterError, match="not one of local, local-cuda, slurm, pbs, lsf"):
        with connect("kubernetes"):
            pass
    with pytest.raises(ClusterError, match=r"\[cluster\] options for slurm"):
        jobqueue_cluster("slurm", {"queue": "gpu", "bogus_option": 1})

