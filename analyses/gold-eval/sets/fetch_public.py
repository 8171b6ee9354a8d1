"""Bring in the third-party CUDA files of the public gold sets.

    python3 analyses/gold-eval/sets/fetch_public.py --mirror /work/.mirror
    python3 analyses/gold-eval/sets/fetch_public.py public-hecbench          # clone from GitHub

Each `<set>/labels.yaml` beside this script names, per local file, the repository, commit and
path it comes from and the file's SHA-256. The files are written to `<set>/files/`, which git
ignores: third-party source is never committed, only where to get it. A file is read from a
local bare mirror (`<mirror>/<owner>+<name>/repo` or `<mirror>/<owner>+<name>`) with
`git cat-file blob <commit>:<path>`, or else from a blobless clone of
https://github.com/<owner>/<name> (`--clone-url` changes the address) kept under `--cache`. A file whose bytes do not hash to the
recorded SHA-256 is not written, and the run fails naming it.

Exit codes: 0 all files written, 1 a file could not be brought or did not match, 2 bad labels.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import yaml

SETS_DIR = Path(__file__).resolve().parent
GITHUB = "https://github.com/{repo}.git"
HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")


class LabelsError(ValueError):
    """A labels.yaml entry that does not say where its file comes from."""


def read_sources(labels_path: Path) -> dict[str, dict]:
    """Map each local file name of one labels.yaml to {repo, commit, path, sha256}.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "labels.yaml"
    >>> _ = p.write_text("a.cu:\\n  source: {repo: o/r, commit: '" + "0" * 40 + "', path: x/a.cu}\\n"
    ...                  "  sha256: '" + "f" * 64 + "'\\n  present: {}\\n")
    >>> read_sources(p)["a.cu"]["path"]
    'x/a.cu'
    """
    try:
        data = yaml.safe_load(labels_path.read_text())
    except yaml.YAMLError as exc:
        raise LabelsError(f"{labels_path}: not valid YAML ({exc})") from exc
    if not isinstance(data, dict) or not data:
        raise LabelsError(f"{labels_path}: expected a mapping of file name to entry")
    out = {}
    for name, entry in data.items():
        where = f"{labels_path}: {name}"
        if not isinstance(name, str) or "/" in name or name.startswith("."):
            raise LabelsError(f"{where}: the key must be a plain file name")
        if not isinstance(entry, dict):
            raise LabelsError(f"{where}: entry must be a mapping")
        src = entry.get("source")
        if not isinstance(src, dict):
            raise LabelsError(f"{where}: missing `source: {{repo, commit, path}}`")
        repo, commit, path = src.get("repo"), str(src.get("commit", "")), src.get("path")
        sha = str(entry.get("sha256", ""))
        if not isinstance(repo, str) or not REPO.match(repo):
            raise LabelsError(f"{where}: source.repo must be owner/name, got {repo!r}")
        if not HEX40.match(commit):
            raise LabelsError(f"{where}: source.commit must be 40 lower-case hex digits "
                              f"(quote it if YAML reads it as a number)")
        if not isinstance(path, str) or not path or path.startswith("/"):
            raise LabelsError(f"{where}: source.path must be a path inside the repository")
        if not HEX64.match(sha):
            raise LabelsError(f"{where}: sha256 must be 64 lower-case hex digits "
                              f"(quote it if YAML reads it as a number)")
        out[name] = {"repo": repo, "commit": commit, "path": path, "sha256": sha}
    return out


def _git(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], capture_output=True)


def mirror_dir(mirror: Path, repo: str) -> Path | None:
    """The bare git directory of `repo` under `mirror`, or None."""
    stem = repo.replace("/", "+")
    for cand in (mirror / stem / "repo", mirror / stem):
        if (cand / "objects").is_dir():
            return cand
        if (cand / ".git" / "objects").is_dir():
            return cand / ".git"
    return None


def clone_dir(cache: Path, repo: str, commit: str, url: str = GITHUB) -> Path:
    """A blobless bare clone of `url` (formatted with repo) under `cache` holding `commit`."""
    dest = cache / repo.replace("/", "+")
    if not dest.exists():
        cache.mkdir(parents=True, exist_ok=True)
        r = _git(["clone", "--bare", "--filter=blob:none", url.format(repo=repo), str(dest)])
        if r.returncode:
            raise RuntimeError(f"git clone of {repo} failed: {r.stderr.decode().strip()}")
    if _git(["--git-dir", str(dest), "cat-file", "-e", f"{commit}^{{commit}}"]).returncode:
        r = _git(["--git-dir", str(dest), "fetch", "--filter=blob:none", "origin", commit])
        if r.returncode:
            raise RuntimeError(f"{repo} has no commit {commit}: {r.stderr.decode().strip()}")
    return dest


def file_bytes(src: dict, mirror: Path | None, cache: Path, url: str = GITHUB) -> bytes:
    """The bytes of src's file at src's commit, from the mirror if it has it, else a clone."""
    spec = f"{src['commit']}:{src['path']}"
    gitdir = mirror_dir(mirror, src["repo"]) if mirror else None
    if gitdir is not None:
        r = _git(["--git-dir", str(gitdir), "cat-file", "blob", spec])
        if r.returncode == 0:
            return r.stdout
    gitdir = clone_dir(cache, src["repo"], src["commit"], url)
    r = _git(["--git-dir", str(gitdir), "cat-file", "blob", spec])
    if r.returncode:
        raise RuntimeError(f"{src['repo']} has no {spec}: {r.stderr.decode().strip()}")
    return r.stdout


def fetch_set(set_dir: Path, mirror: Path | None, cache: Path, url: str = GITHUB) -> list[str]:
    """Write every file of one set into set_dir/files; return one message per failure.

    A repository that cannot be cloned is tried once; its other files fail with that message.
    """
    sources = read_sources(set_dir / "labels.yaml")
    out_dir = set_dir / "files"
    out_dir.mkdir(exist_ok=True)
    failures, unclonable = [], {}
    for name, src in sources.items():
        where = f"{set_dir.name}/{name} ({src['repo']}@{src['commit'][:12]}:{src['path']})"
        if src["repo"] in unclonable:
            failures.append(f"{where}: {unclonable[src['repo']]}")
            continue
        try:
            data = file_bytes(src, mirror, cache, url)
        except RuntimeError as exc:
            if str(exc).startswith("git clone of"):
                unclonable[src["repo"]] = str(exc)
            failures.append(f"{where}: {exc}")
            continue
        got = hashlib.sha256(data).hexdigest()
        if got != src["sha256"]:
            failures.append(f"{where}: SHA-256 mismatch, labels.yaml records {src['sha256']}, "
                            f"the source gives {got}; the file was not written")
            continue
        (out_dir / name).write_bytes(data)
        print(f"ok {set_dir.name}/files/{name}", file=sys.stderr)
    return failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="*", help="set names (default: every folder with labels.yaml)")
    ap.add_argument("--mirror", type=Path, help="folder of bare git mirrors (owner+name/repo)")
    ap.add_argument("--cache", type=Path, default=SETS_DIR / ".clones",
                    help="where GitHub clones are kept (default: sets/.clones, git-ignored)")
    ap.add_argument("--clone-url", default=GITHUB,
                    help="clone address, {repo} standing for owner/name (default: %(default)s)")
    args = ap.parse_args(argv)
    names = args.sets or sorted(p.parent.name for p in SETS_DIR.glob("*/labels.yaml"))
    failures = []
    for name in names:
        set_dir = SETS_DIR / name
        if not (set_dir / "labels.yaml").is_file():
            print(f"error: no {set_dir / 'labels.yaml'}", file=sys.stderr)
            return 2
        try:
            failures += fetch_set(set_dir, args.mirror, args.cache, args.clone_url)
        except LabelsError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    for msg in failures:
        print(f"error: {msg}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
