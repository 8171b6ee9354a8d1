"""fetch_public.py writes exactly the recorded bytes, refuses a mismatch, and the public sets' labels are well formed."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
from pathlib import Path

import pytest
import yaml

from strategylens import REPO_ROOT

SETS = REPO_ROOT / "analyses" / "gold-eval" / "sets"
IDS = {"-".join(p.name.split("-")[:2]) for p in (REPO_ROOT / "catalog").iterdir() if p.is_dir()}


def _load():
    spec = importlib.util.spec_from_file_location("fetch_public", SETS / "fetch_public.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fp = _load()


def _mirror(tmp_path: Path, text: bytes) -> tuple[Path, str]:
    """A bare mirror of a one-commit repository holding src/k.cu; returns (mirror root, commit)."""
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "k.cu").write_bytes(text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(work)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "k"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    root = tmp_path / "mirror"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(root / "own+rep" / "repo")],
                   check=True)
    return root, commit


def _labels(set_dir: Path, commit: str, sha: str) -> None:
    set_dir.mkdir()
    (set_dir / "labels.yaml").write_text(
        f"k.cu:\n  source: {{repo: own/rep, commit: {commit}, path: src/k.cu}}\n"
        f"  sha256: '{sha}'\n  entry: main\n  present:\n    MEM-01: [1]\n  unsure: []\n")


def test_fetch_writes_the_recorded_bytes(tmp_path: Path):
    text = b"__global__ void k(float* a) { a[threadIdx.x] = 0; }\r\n"
    mirror, commit = _mirror(tmp_path, text)
    _labels(tmp_path / "s", commit, hashlib.sha256(text).hexdigest())
    failures = fp.fetch_set(tmp_path / "s", mirror, tmp_path / "clones")
    assert failures == []
    assert (tmp_path / "s" / "files" / "k.cu").read_bytes() == text
    assert not (tmp_path / "clones").exists()


def test_fetch_refuses_a_sha_mismatch(tmp_path: Path):
    mirror, commit = _mirror(tmp_path, b"int x;\n")
    _labels(tmp_path / "s", commit, "0" * 64)
    failures = fp.fetch_set(tmp_path / "s", mirror, tmp_path / "clones")
    assert len(failures) == 1
    assert failures[0].startswith("s/k.cu (own/rep@") and "SHA-256 mismatch" in failures[0]
    assert hashlib.sha256(b"int x;\n").hexdigest() in failures[0]
    assert not (tmp_path / "s" / "files" / "k.cu").exists()


def test_bad_source_names_file_and_field(tmp_path: Path):
    _labels(tmp_path / "s", "abc", "0" * 64)
    with pytest.raises(fp.LabelsError, match=r"labels.yaml: k.cu: source.commit"):
        fp.read_sources(tmp_path / "s" / "labels.yaml")


@pytest.mark.parametrize("set_name", ["public-hecbench", "public-suites", "public-templates",
                                      "heldout-programs", "heldout-kernels", "heldout-classic",
                                      "heldout-frameworks", "heldout-tutorials"])
def test_public_set_labels_are_well_formed(set_name: str):
    path = SETS / set_name / "labels.yaml"
    if not path.exists():
        pytest.skip(f"{set_name} not labelled yet")
    sources = fp.read_sources(path)
    assert 10 <= len(sources) <= 14
    assert (SETS / set_name / "files" / ".gitignore").read_text() == "*\n!.gitignore\n"
    for name, entry in yaml.safe_load(path.read_text()).items():
        present, unsure = entry["present"] or {}, entry.get("unsure") or []
        assert set(present) <= IDS and set(unsure) <= IDS, name
        assert not set(present) & set(unsure), name
        assert isinstance(entry.get("entry"), str) and entry["entry"], name
        for sid, lines in present.items():
            assert lines and all(isinstance(n, int) and n > 0 for n in lines), (name, sid)
            assert lines == sorted(set(lines)), (name, sid)



@pytest.mark.parametrize("set_name", ["heldout-programs", "heldout-kernels", "heldout-classic",
                                      "heldout-frameworks", "heldout-tutorials"])
def test_heldout_evidence_lines_lie_inside_the_fetched_files(set_name: str):
    """Every evidence line is a line of the file as fetched (run fetch_public.py first)."""
    path = SETS / set_name / "labels.yaml"
    if not path.exists():
        pytest.skip(f"{set_name} not labelled yet")
    sources = fp.read_sources(path)
    files = SETS / set_name / "files"
    if not all((files / name).is_file() for name in sources):
        pytest.skip(f"{set_name}: files not fetched (run fetch_public.py --mirror ...)")
    for name, entry in yaml.safe_load(path.read_text()).items():
        data = (files / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sources[name]["sha256"], name
        n_lines = len(data.decode("utf-8", errors="replace").splitlines())
        for sid, lines in (entry["present"] or {}).items():
            assert max(lines) <= n_lines, (name, sid, max(lines), n_lines)

def test_fetch_clones_when_no_mirror_has_the_repo(tmp_path: Path):
    text = b"__global__ void k() {}\n"
    mirror, commit = _mirror(tmp_path, text)
    (tmp_path / "gh" / "own").mkdir(parents=True)
    (tmp_path / "gh" / "own" / "rep.git").symlink_to(mirror / "own+rep" / "repo")
    _labels(tmp_path / "s", commit, hashlib.sha256(text).hexdigest())
    url = f"file://{tmp_path}/gh/{{repo}}.git"
    failures = fp.fetch_set(tmp_path / "s", None, tmp_path / "clones", url)
    assert failures == []
    assert (tmp_path / "s" / "files" / "k.cu").read_bytes() == text
    assert (tmp_path / "clones" / "own+rep" / "objects").is_dir()


def test_unclonable_repo_fails_every_file_with_the_clone_error(tmp_path: Path):
    (tmp_path / "s").mkdir()
    entry = "  source: {{repo: own/none, commit: '{c}', path: {p}}}\n  sha256: '{h}'\n  entry: main\n  present: {{}}\n"
    (tmp_path / "s" / "labels.yaml").write_text(
        "a.cu:\n" + entry.format(c="1" * 40, p="a.cu", h="2" * 64)
        + "b.cu:\n" + entry.format(c="1" * 40, p="b.cu", h="2" * 64))
    failures = fp.fetch_set(tmp_path / "s", None, tmp_path / "clones", f"file://{tmp_path}/gh/{{repo}}.git")
    assert [f.split(" (")[0] for f in failures] == ["s/a.cu", "s/b.cu"]
    assert all("git clone of own/none failed" in f for f in failures)
