"""The installed package: a wheel built from this checkout, installed (not editable) into a fresh
virtual environment, finds the catalog, the bundled tasks and the harness sources as package
data from any folder.

The wheel is built without network (``--no-build-isolation``, the dev environment's
setuptools) and installed with ``--no-deps``; its dependencies come from the environment
running the tests through a ``.pth`` line, which puts them after the fresh environment's own
site-packages, so ``import strategylens`` finds the wheel's copy and never the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ("catalog", "tasks", "harness")

pytestmark = pytest.mark.slow


def _sh(cmd: list, cwd: Path | None = None, env: dict | None = None, check: bool = True):
    res = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=600)
    if check and res.returncode != 0:
        raise AssertionError(f"{cmd} failed ({res.returncode}):\n{res.stdout}\n{res.stderr}")
    return res


def _source_files() -> list[str]:
    """The checkout's files a clean clone would have (tracked and new, not ignored)."""
    res = _sh(["git", "-C", ROOT, "ls-files", "--cached", "--others", "--exclude-standard"],
              check=False)
    if res.returncode != 0:
        pytest.skip("needs git to list the checkout's files")
    return [f for f in res.stdout.splitlines() if (ROOT / f).is_file()]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for rel in _source_files():  # a clean copy: no stale build/ or egg-info of the checkout
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    dist = tmp_path_factory.mktemp("dist")
    _sh([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", dist, src])
    (whl,) = dist.glob("strategylens-*.whl")
    return whl


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    env_dir = tmp_path_factory.mktemp("venv")
    _sh([sys.executable, "-m", "venv", "--without-pip", env_dir])
    py = env_dir / "bin" / "python"
    _sh([sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "--no-index", "-q",
         wheel])
    site = _sh([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout
    (Path(site.strip()) / "_strategylens_deps.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n")
    return env_dir


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory) -> Path:
    """A folder outside the checkout with one solution of a bundled task."""
    d = tmp_path_factory.mktemp("elsewhere")
    shutil.copy2(ROOT / "tasks" / "heat2d" / "solutions" / "baseline.cu", d / "heat.cu")
    return d


def run_cli(venv: Path, cwd: Path, *args: str, check: bool = True):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["STRATEGYLENS_CACHE"] = str(cwd / ".cache")
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return _sh([venv / "bin" / "strategylens", *args], cwd=cwd, env=env, check=check)


def test_wheel_holds_the_bundled_folders_and_nothing_stale(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    want = {f"strategylens/_data/{f}" for f in _source_files() if f.split("/")[0] in BUNDLED}
    assert {n for n in names if n.startswith("strategylens/_data/")} == want
    assert "strategylens/_data/harness/slchild.c" in names
    assert "strategylens/_data/tasks/heat2d/task.yaml" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith((".so", ".pyc"))]
    assert "strategylens/harness/session.py" in names and "strategylens/harness.py" not in names


def test_installed_package_reads_its_own_data(venv, elsewhere):
    code = ("import json, strategylens, strategylens.resources as r; print(json.dumps("
            "[strategylens.__file__, str(r.CATALOG_DIR), str(r.TASKS_DIR), str(r.HARNESS_DIR)]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = json.loads(_sh([venv / "bin" / "python", "-c", code], cwd=elsewhere, env=env).stdout)
    pkg = Path(out[0]).parent
    assert pkg.is_relative_to(venv) and not pkg.is_relative_to(ROOT)
    assert [Path(p) for p in out[1:]] == [pkg / "_data" / n for n in BUNDLED]


def test_tasks_list_from_another_folder(venv, elsewhere):
    rows = json.loads(run_cli(venv, elsewhere, "tasks", "list", "--format", "json").stdout)
    assert sorted(r["id"] for r in rows) == sorted(p.name for p in (ROOT / "tasks").iterdir()
                                                   if (p / "task.yaml").exists())
    assert all("/_data/tasks/" in r["path"] for r in rows)


def test_tag_gives_what_the_checkout_gives(venv, elsewhere):
    args = ("tag", "heat.cu", "--no-cache", "--format", "json")
    got = json.loads(run_cli(venv, elsewhere, *args).stdout)
    here = json.loads(_sh([sys.executable, "-m", "strategylens.cli", *args], cwd=elsewhere).stdout)
    assert got[0]["ok"] and "MEM-01" in [lb["id"] for lb in got[0]["labels"]]
    assert got == here


def test_installed_tagger_reads_framework_loop_macros(venv, elsewhere):
    # the definitions ship as package data (model/library_macros.h), not from the checkout
    (elsewhere / "relu.cu").write_text(
        '#include "caffe/util/device_alternate.hpp"\n'
        "__global__ void relu(const int n, const float* in, float* out) {\n"
        "  CUDA_KERNEL_LOOP(i, n) { out[i] = in[i] > 0 ? in[i] : 0; }\n}\n"
        'extern "C" void solution_compute(const float* in, float* out, int n) {\n'
        "  relu<<<(n + 255) / 256, 256>>>(n, in, out);\n}\n")
    got = json.loads(run_cli(venv, elsewhere, "tag", "relu.cu", "--no-cache", "--format",
                             "json").stdout)
    ids = [lb["id"] for lb in got[0]["labels"]]
    assert got[0]["ok"] and "PAR-01" in ids and "MEM-01" in ids


@pytest.mark.skipif(shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists(),
                    reason="nvcc not installed")
def test_run_build_only_reports_kernels(venv, elsewhere):
    res = run_cli(venv, elsewhere, "run", "heat.cu", "--task", "heat2d", "--build-only",
                  "--arch", "sm_90", "--format", "json")
    rows = json.loads(res.stdout)
    assert [(r["compiled"], r["kernel"]) for r in rows] == [(True, "_Z9heat_stepPKfPfiif")]
    assert rows[0]["registers"] > 0 and rows[0]["spill_stores"] == 0


def _gpu() -> bool:
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


@pytest.mark.skipif(_gpu(), reason="checks the message a machine without a GPU gets")
@pytest.mark.skipif(shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists(),
                    reason="nvcc not installed")
def test_run_without_a_gpu_builds_then_says_why_it_stops(venv, elsewhere):
    res = run_cli(venv, elsewhere, "run", "heat.cu", "--task", "heat2d", "--sizes", "small",
                  "--store", "store", "--arch", "sm_90", check=False)
    assert res.returncode == 2, res.stderr
    assert "heat2d: 1 of 1 solution(s) built for sm_90" in res.stderr
    assert "no usable GPU (device 0)" in res.stderr and "--build-only" in res.stderr
    assert not (elsewhere / "store" / "results").exists()


def test_catalog_list_from_another_folder(venv, elsewhere):
    rows = json.loads(run_cli(venv, elsewhere, "catalog", "list", "--format", "json").stdout)
    assert len(rows) == len([p for p in (ROOT / "catalog").iterdir()
                             if (p / "strategy.yaml").exists()])
