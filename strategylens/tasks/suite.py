"""Finding tasks: load one by id or folder in whichever format it is, scan a folder of tasks, and
match solution files to the task they lie under."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from strategylens.resources import TASKS_DIR
from strategylens.tasks.acceleval import ACCELEVAL, checkout_from_env
from strategylens.tasks.own import OWN
from strategylens.tasks.task import Task, TaskError, TaskFormat

# Tried in order: a folder with both a task.yaml and a task.json is a strategylens task.
FORMATS: tuple[TaskFormat, ...] = (OWN, ACCELEVAL)


def suite_dir(acceleval: Path | str | None = None) -> Path:
    """Where task ids are looked up: an AccelEval checkout's ``tasks/`` (``acceleval``, else
    ``$STRATEGYLENS_ACCELEVAL``), else the bundled tasks."""
    checkout = checkout_from_env(acceleval)
    return checkout / "tasks" if checkout else TASKS_DIR


def load_task(id_or_path: str | Path, acceleval: Path | str | None = None) -> Task:
    """Load and validate a task by id (under the bundled tasks, or an AccelEval checkout's
    tasks when ``acceleval`` or ``$STRATEGYLENS_ACCELEVAL`` names one) or by folder / task
    file path.

    Raises
    ------
    TaskError
        Naming the file and the field when the task file is missing or invalid.
    """
    path = Path(id_or_path)
    if not path.exists() and re.match(r"^[A-Za-z0-9_]+$", str(id_or_path)):
        path = suite_dir(acceleval) / str(id_or_path)
    if any(path.name == f.marker for f in FORMATS):
        path = path.parent
    for fmt in FORMATS:
        if fmt.detect(path):
            return fmt.load(path)
    raise TaskError(f"{path / OWN.marker}: no such task file (task id or folder {id_or_path!r})")


def scan_tasks(root: Path | str | None = None,
               acceleval: Path | str | None = None) -> tuple[list[Task], list[str]]:
    """Every task folder under `root` (default: :func:`suite_dir`), sorted by domain then id,
    and the error messages of the folders that failed to load."""
    root = Path(root) if root else suite_dir(acceleval)
    tasks, errors = [], []
    for d in sorted(root.iterdir()) if root.exists() else []:
        if d.is_dir() and any(f.detect(d) for f in FORMATS):
            try:
                tasks.append(load_task(d))
            except TaskError as exc:
                errors.append(str(exc))
    tasks.sort(key=lambda t: (t.domain, t.id))
    return tasks, errors


def list_tasks(root: Path | str | None = None,
               acceleval: Path | str | None = None) -> list[Task]:
    """Like :func:`scan_tasks`, but an invalid task folder raises TaskError."""
    tasks, errors = scan_tasks(root, acceleval)
    if errors:
        raise TaskError("; ".join(errors))
    return tasks


def task_of_solution(path: Path | str, ids: set[str] | frozenset[str]) -> str | None:
    """The task a solution file belongs to, from where it lies: the deepest folder named after
    a task id (``corpus/bfs/model-a/sample_1.cu``, ``tasks/bfs/solutions/x.cu``), else a
    ``labels.yaml`` beside it that gives the file a ``task:`` (the gold fixtures); None when
    neither says.

    Examples
    --------
    >>> task_of_solution("runs/heat2d/m1/sample_0.cu", {"heat2d", "bfs"})
    'heat2d'
    >>> task_of_solution("elsewhere/sample_0.cu", {"heat2d"}) is None
    True
    """
    p = Path(path)
    for folder in reversed(p.parent.parts):
        if folder in ids:
            return folder
    labels = p.parent / "labels.yaml"
    if labels.is_file():
        try:
            spec = (yaml.safe_load(labels.read_text()) or {}).get(p.name)
        except (OSError, yaml.YAMLError, AttributeError):
            return None
        task = spec.get("task") if isinstance(spec, dict) else None
        return str(task) if task in ids else None
    return None


def group_by_task(files, acceleval: Path | str | None = None
                  ) -> tuple[dict[str | None, list], dict[str, Task], list[str]]:
    """Solution files grouped by :func:`task_of_solution` (key None: no task found), the
    suite's tasks (:func:`suite_dir`) by id, and the task folders that could not be read."""
    tasks, errors = scan_tasks(acceleval=acceleval)
    by_id = {t.id: t for t in tasks}
    ids = set(by_id)
    groups: dict[str | None, list] = {}
    for f in files:
        groups.setdefault(task_of_solution(f, ids), []).append(f)
    return groups, by_id, errors
