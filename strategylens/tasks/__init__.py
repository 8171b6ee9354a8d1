"""Task suite: load task folders, generate inputs, run the C reference, compare outputs.

A task is a folder ``tasks/<id>/`` holding ``task.yaml``, ``reference.c``, ``gen.py`` and
``solutions/`` (see docs/task-format.md). Every format loads into the one :class:`Task`
through its :class:`TaskFormat` (``own``: strategylens folders; ``acceleval``: AccelEval's
``task.json`` and ``data/<size>/input.bin``).

Modules: ``task`` (Task, Param, Correctness, the loader boundary), ``own`` and ``acceleval``
(the two formats), ``suite`` (finding tasks and the task of a solution), ``compare``
(correctness modes, checksums), ``reference`` (building, running and caching the C references).
"""

from strategylens.dtypes import DTYPES
from strategylens.resources import TASKS_DIR
from strategylens.tasks.acceleval import (ACCELEVAL, ACCELEVAL_ENV, ACCELEVAL_MAGICS,
                                          AccelEvalFormat, checkout_from_env, checkout_root,
                                          load_acceleval_task, read_acceleval_input)
from strategylens.tasks.compare import (_CHUNK, CHECKSUM_DIGITS, CompareResult, committed_checksum,
                                        compare, output_checksum)
from strategylens.tasks.own import OWN, OwnFormat, parse_signature
from strategylens.tasks.reference import (GCC_FLAGS, ReferenceRun, build_reference, clear_cache,
                                          expected_key, gcc_version, reference_hash, run_reference)
from strategylens.tasks.suite import (FORMATS, group_by_task, list_tasks, load_task, scan_tasks,
                                      suite_dir, task_of_solution)
from strategylens.tasks.task import (DOMAINS, MODES, SIZES, Correctness, Param, Task, TaskError,
                                     TaskFormat)

__all__ = [
    "ACCELEVAL", "ACCELEVAL_ENV", "ACCELEVAL_MAGICS", "AccelEvalFormat", "CHECKSUM_DIGITS", "CompareResult",
    "Correctness", "DOMAINS", "DTYPES", "FORMATS", "GCC_FLAGS", "MODES", "OWN", "OwnFormat",
    "Param", "ReferenceRun", "SIZES", "TASKS_DIR", "Task", "TaskError", "TaskFormat", "_CHUNK",
    "build_reference", "checkout_from_env", "checkout_root", "clear_cache", "committed_checksum", "compare", "expected_key",
    "gcc_version", "group_by_task", "list_tasks", "load_acceleval_task", "load_task",
    "output_checksum", "parse_signature", "read_acceleval_input", "reference_hash",
    "run_reference", "scan_tasks", "suite_dir", "task_of_solution",
]
